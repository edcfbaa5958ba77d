//! The host's file operations (`fs/list`, `fs/read`, `fs/write`), all through the shared sandbox.
//!
//! Paths are relative to the workspace root ([`Sandbox::resolve_rel`]): an absolute path, a `..`
//! that leaves the root, or a symlink leading out is access denied (-32001). Messages name only
//! the path the caller sent and the fact, never a host path or an OS error text; the bridge adds
//! the next step for the model.

use std::{
    io::Read,
    path::{Component, Path, PathBuf},
};

use mcp_shared::{
    ErrorCode,
    sandbox::{Sandbox, SandboxError, SandboxPath, WalkOptions, WriteOptions},
};

use crate::protocol::{ListParams, ListResult, ReadParams, ReadResult, WireError, WriteParams, WriteResult};

/// The workspace's limits and switches.
#[derive(Debug, Clone)]
pub struct WorkspaceSettings {
    /// Refuse every write (-32004).
    pub read_only: bool,
    /// The largest file read or written, in bytes (-32002 above it).
    pub max_file_size: u64,
    /// The most entries one `fs/list` examines (`truncated` beyond).
    pub max_list_entries: usize,
    /// fsync written files and their directories.
    pub fsync: bool,
}

/// One workspace folder served by the host.
#[derive(Debug, Clone)]
pub struct WorkspaceFolder {
    sandbox: Sandbox,
    settings: WorkspaceSettings,
}

/// Why a workspace could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot serve {root}: {reason}")]
pub struct OpenError {
    /// The root as given.
    pub root: String,
    /// Why.
    pub reason: String,
}

impl WorkspaceFolder {
    /// Opens `root` (it must be an existing directory).
    pub fn open(root: &Path, settings: WorkspaceSettings) -> Result<WorkspaceFolder, OpenError> {
        let sandbox = Sandbox::new([root]).map_err(|e| OpenError {
            root: root.display().to_string(),
            reason: match e {
                SandboxError::NotFound { .. } => "it does not exist".to_owned(),
                SandboxError::NotADirectory { .. } | SandboxError::IsADirectory { .. } => {
                    "it is not a directory".to_owned()
                }
                other => other.to_string(),
            },
        })?;
        Ok(WorkspaceFolder { sandbox, settings })
    }

    /// The canonical root.
    pub fn root(&self) -> PathBuf {
        self.sandbox.roots().first().cloned().unwrap_or_default()
    }

    /// The settings.
    pub fn settings(&self) -> &WorkspaceSettings {
        &self.settings
    }

    /// The absolute path of `shown` (relative to the root), confined as every operation is; with
    /// `must_exist`, it must be an existing file (else not found, or "a directory").
    pub fn absolute(&self, shown: &str, must_exist: bool) -> Result<PathBuf, WireError> {
        let path = self.sandbox.resolve_rel(shown).map_err(|e| map_error(e, shown, Op::Read))?;
        if must_exist {
            let md = self.sandbox.metadata(&path).map_err(|e| map_error(e, shown, Op::Read))?;
            if md.is_dir {
                return Err(WireError::new(ErrorCode::InvalidArgs, format!("`{shown}` is a directory, not a file")));
            }
        }
        Ok(path.absolute())
    }

    /// `fs/list`.
    pub fn list(&self, params: &ListParams) -> Result<ListResult, WireError> {
        let shown = params.path.as_deref().unwrap_or(".");
        let base = self.sandbox.resolve_rel(shown).map_err(|e| map_error(e, shown, Op::List))?;
        let opts = WalkOptions {
            max_depth: if params.recursive { None } else { Some(1) },
            hidden: false,
            respect_gitignore: true,
            max_entries: Some(self.settings.max_list_entries),
        };
        let walk = self.sandbox.walk(&base, &opts).map_err(|e| map_error(e, shown, Op::List))?;
        let mut files = Vec::with_capacity(walk.entries.len());
        for entry in walk.entries {
            let rel = base.rel().join(&entry.rel);
            let Some(text) = slash_path(&rel) else { continue };
            let is_dir = if entry.is_symlink {
                // A symlink is listed only if it stays inside and resolves; never followed in a walk.
                match self.sandbox.resolve_rel(&text).and_then(|p| self.sandbox.metadata(&p)) {
                    Ok(meta) if meta.is_dir || meta.is_file => meta.is_dir,
                    _ => continue,
                }
            } else {
                entry.is_dir
            };
            match (is_dir, params.recursive) {
                (false, _) => files.push(text),
                (true, false) => files.push(format!("{text}/")),
                (true, true) => {}
            }
        }
        Ok(ListResult { files, truncated: walk.truncated })
    }

    /// `fs/read`.
    pub fn read(&self, params: &ReadParams) -> Result<ReadResult, WireError> {
        let shown = params.path.as_str();
        let path = self.sandbox.resolve_rel(shown).map_err(|e| map_error(e, shown, Op::Read))?;
        let file = self.sandbox.open_read(&path).map_err(|e| map_error(e, shown, Op::Read))?;
        let max = self.settings.max_file_size;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len > max {
            return Err(too_large_file(shown, len, max));
        }
        // Its answer (JSON only grows it) must fit in one message a bridge accepts: refused
        // before reading, not after holding it twice over.
        if len > MAX_READ_ANSWER {
            return Err(WireError::new(
                ErrorCode::FileTooLarge,
                format!(
                    "`{shown}` is {len} bytes, more than fits in one message to the bridge ({MAX_READ_ANSWER} bytes)"
                ),
            ));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| {
            tracing::warn!(error = %e, path = shown, "reading a file failed");
            WireError::new(ErrorCode::InternalError, format!("reading `{shown}` failed; details are in the host's log"))
        })?;
        let read = bytes.len() as u64;
        if read > max {
            return Err(too_large_file(shown, read, max));
        }
        if bytes.contains(&0) {
            return Err(WireError::new(
                ErrorCode::BinaryFile,
                format!("`{shown}` is a binary file ({read} bytes, contains NUL bytes), not text"),
            ));
        }
        let content = String::from_utf8(bytes).map_err(|_| {
            WireError::new(
                ErrorCode::BinaryFile,
                format!("`{shown}` is not UTF-8 text ({read} bytes): a binary file or another encoding"),
            )
        })?;
        Ok(ReadResult { content, unsaved: false, editor_dirty: false })
    }

    /// `fs/write`: atomic, parents created, logged.
    pub fn write(&self, params: &WriteParams) -> Result<WriteResult, WireError> {
        self.write_checked(params, None)
    }

    /// The text of `shown` now (`None`: there is no such file): what a diff is made from.
    pub fn current_text(&self, shown: &str) -> Result<Option<String>, WireError> {
        let path = self.sandbox.resolve_rel(shown).map_err(|e| map_error(e, shown, Op::Read))?;
        if !self.sandbox.exists(&path).map_err(|e| map_error(e, shown, Op::Read))? {
            return Ok(None);
        }
        self.read(&ReadParams { path: shown.to_owned() }).map(|r| Some(r.content))
    }

    /// [`WorkspaceFolder::write`], only if the file still holds `expected` (`None`: it must
    /// not exist), checked just before the atomic rename: otherwise `CONFLICT`, and the newer
    /// file is left as it is.
    pub fn write_expecting(&self, params: &WriteParams, expected: Option<&str>) -> Result<WriteResult, WireError> {
        self.write_checked(params, Some(expected))
    }

    fn write_checked(&self, params: &WriteParams, expected: Option<Option<&str>>) -> Result<WriteResult, WireError> {
        let shown = params.path.as_str();
        if self.settings.read_only {
            return Err(WireError::new(
                ErrorCode::ReadOnly,
                format!("the workspace is read-only; `{shown}` was not written"),
            ));
        }
        let bytes = params.content.len() as u64;
        let max = self.settings.max_file_size;
        if bytes > max {
            return Err(WireError::new(
                ErrorCode::FileTooLarge,
                format!(
                    "the content is {bytes} bytes, over the host's limit of {max} bytes (maxFileSize); `{shown}` was not written"
                ),
            ));
        }
        let path = self.sandbox.resolve_rel(shown).map_err(|e| map_error(e, shown, Op::Write))?;
        check_writable_name(&path, shown)?;
        let existed = self.sandbox.exists(&path).map_err(|e| map_error(e, shown, Op::Write))?;
        // What the write replaces, for the diff the bridge shows (text within the size limit only;
        // anything else is simply not sent).
        let previous = if existed { self.previous_text(&path) } else { None };
        let opts =
            WriteOptions { fsync: self.settings.fsync, create_parents: true, create_new: false, mode_if_new: None };
        match expected {
            None => self.sandbox.write_atomic(&path, params.content.as_bytes(), &opts),
            Some(expected) => {
                let unchanged = || match self.sandbox.read(&path) {
                    Ok(now) => expected.is_some_and(|e| e.as_bytes() == now.as_slice()),
                    Err(SandboxError::NotFound { .. }) => expected.is_none(),
                    Err(_) => false,
                };
                if !unchanged() {
                    return Err(WireError::new(
                        ErrorCode::Conflict,
                        format!("`{shown}` changed since it was read; nothing was written"),
                    ));
                }
                self.sandbox.write_atomic_unless_changed(&path, params.content.as_bytes(), &opts, &unchanged)
            }
        }
        .map_err(|e| map_error(e, shown, Op::Write))?;
        let rel = slash_path(path.rel()).unwrap_or_else(|| shown.to_owned());
        match &previous {
            // The counts, never the content.
            Some(old) => {
                let (added, removed) = mcp_shared::diff::line_counts(old, &params.content);
                tracing::info!(path = %rel, bytes, added, removed, "wrote {rel} ({bytes} bytes, +{added} -{removed} lines)");
            }
            None => tracing::info!(path = %rel, bytes, created = !existed, "wrote {rel} ({bytes} bytes)"),
        }
        Ok(WriteResult { bytes, created: !existed, previous })
    }

    /// The current text of an existing file, if it is UTF-8 within the size limit.
    fn previous_text(&self, path: &SandboxPath) -> Option<String> {
        let md = self.sandbox.metadata(path).ok()?;
        if md.len > self.settings.max_file_size {
            return None;
        }
        String::from_utf8(self.sandbox.read(path).ok()?).ok()
    }
}

/// The largest file `fs/read` answers with, whatever `maxFileSize`: what a bridge accepts in one
/// message, less room for the JSON around it.
pub const MAX_READ_ANSWER: u64 = crate::protocol::BRIDGE_MAX_MESSAGE_SIZE as u64 - 4096;

fn too_large_file(shown: &str, len: u64, max: u64) -> WireError {
    WireError::new(
        ErrorCode::FileTooLarge,
        format!("`{shown}` is {len} bytes, over the host's limit of {max} bytes (maxFileSize)"),
    )
}

/// Refuses the root itself and anything under a `.git` directory (hooks there would run code).
fn check_writable_name(path: &SandboxPath, shown: &str) -> Result<(), WireError> {
    if path.rel().as_os_str().is_empty() {
        return Err(WireError::new(ErrorCode::InvalidArgs, format!("`{shown}` is the workspace root, not a file")));
    }
    let in_git = path.rel().components().any(|c| matches!(c, Component::Normal(n) if n.eq_ignore_ascii_case(".git")));
    if in_git {
        return Err(WireError::new(
            ErrorCode::AccessDenied,
            format!("`{shown}` is inside a .git directory, which the host never writes"),
        ));
    }
    Ok(())
}

/// A relative path as the protocol writes it: `/`-separated, no `.`; `None` if not UTF-8.
pub fn slash_path(rel: &Path) -> Option<String> {
    let mut out = String::new();
    for component in rel.components() {
        if let Component::Normal(name) = component {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(name.to_str()?);
        }
    }
    Some(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    List,
    Read,
    Write,
}

/// A sandbox error as a wire error naming only `shown` (the path the caller sent).
fn map_error(error: SandboxError, shown: &str, op: Op) -> WireError {
    match &error {
        SandboxError::OutsideRoot { .. } => {
            WireError::new(ErrorCode::AccessDenied, format!("`{shown}` is outside the workspace"))
        }
        SandboxError::NotFound { .. } => WireError::new(
            ErrorCode::NotFound,
            match op {
                Op::List => format!("the directory `{shown}` does not exist"),
                Op::Read | Op::Write => format!("`{shown}` does not exist"),
            },
        ),
        SandboxError::IsADirectory { .. } => {
            WireError::new(ErrorCode::InvalidArgs, format!("`{shown}` is a directory, not a file"))
        }
        SandboxError::NotADirectory { .. } => WireError::new(
            ErrorCode::InvalidArgs,
            match op {
                Op::List => format!("`{shown}` is a file, not a directory"),
                Op::Read | Op::Write => format!("a parent of `{shown}` is a file, not a directory"),
            },
        ),
        SandboxError::DirectoryNotWritable { .. } => WireError::new(
            ErrorCode::AccessDenied,
            format!(
                "the directory of `{shown}` is not writable (the host writes a new file beside it, then renames it)"
            ),
        ),
        SandboxError::Changed { .. } => WireError::new(
            ErrorCode::Conflict,
            format!("`{shown}` was changed by another program while it was being written; nothing was written"),
        ),
        SandboxError::InvalidPath { reason, .. } => {
            WireError::new(ErrorCode::InvalidArgs, format!("invalid path `{shown}`: {reason}"))
        }
        SandboxError::PermissionDenied { .. } => {
            WireError::new(ErrorCode::AccessDenied, format!("the file system denied access to `{shown}`"))
        }
        SandboxError::AlreadyExists { .. } => {
            WireError::new(ErrorCode::AlreadyExists, format!("`{shown}` already exists"))
        }
        SandboxError::Io { .. } => {
            tracing::warn!(%error, path = shown, ?op, "file operation failed");
            WireError::new(
                ErrorCode::InternalError,
                format!("the file operation on `{shown}` failed; details are in the host's log"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn settings() -> WorkspaceSettings {
        WorkspaceSettings { read_only: false, max_file_size: 100, max_list_entries: 1000, fsync: false }
    }

    fn workspace(dir: &Path) -> WorkspaceFolder {
        WorkspaceFolder::open(dir, settings()).unwrap()
    }

    fn read(ws: &WorkspaceFolder, path: &str) -> Result<String, WireError> {
        ws.read(&ReadParams { path: path.into() }).map(|r| r.content)
    }

    fn write(ws: &WorkspaceFolder, path: &str, content: &str) -> Result<WriteResult, WireError> {
        ws.write(&WriteParams { path: path.into(), content: content.into() })
    }

    #[test]
    fn lists_files_without_ignored_or_hidden_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::create_dir_all(root.join("src/deep")).unwrap();
        fs::create_dir_all(root.join("target")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        for f in ["a.txt", "src/main.rs", "src/deep/x.rs", "target/out", "debug.log", ".env", ".git/config"] {
            fs::write(root.join(f), "x").unwrap();
        }
        let ws = workspace(root);
        let all = ws.list(&ListParams { recursive: true, path: None }).unwrap();
        assert_eq!(all.files, vec!["a.txt", "src/deep/x.rs", "src/main.rs"]);
        assert!(!all.truncated);
        let top = ws.list(&ListParams { recursive: false, path: None }).unwrap();
        assert_eq!(top.files, vec!["a.txt", "src/"]);
        let sub = ws.list(&ListParams { recursive: false, path: Some("src".into()) }).unwrap();
        assert_eq!(sub.files, vec!["src/deep/", "src/main.rs"]);
        let e = ws.list(&ListParams { recursive: false, path: Some("a.txt".into()) }).unwrap_err();
        assert_eq!(e.code, -32602);
        let e = ws.list(&ListParams { recursive: false, path: Some("nope".into()) }).unwrap_err();
        assert_eq!(e.code, -32003);
    }

    /// A tree 1,900 levels deep is listed on a small stack (the walker recursed per level and
    /// the host overflowed its stack).
    #[test]
    #[cfg_attr(windows, ignore = "a path of 3,800 characters is beyond Windows' MAX_PATH")]
    fn a_very_deep_tree_is_listed_without_recursion() {
        let dir = tempfile::tempdir().unwrap();
        let deep = "d/".repeat(1900);
        std::fs::create_dir_all(dir.path().join(&deep)).unwrap();
        std::fs::write(dir.path().join(&deep).join("leaf.txt"), "x").unwrap();
        let ws =
            WorkspaceFolder::open(dir.path(), WorkspaceSettings { max_list_entries: 10_000, ..settings() }).unwrap();
        let listed = std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(move || ws.list(&ListParams { recursive: true, path: None }).unwrap())
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(listed.files, vec![format!("{deep}leaf.txt")]);
    }

    #[test]
    fn listing_is_cut_at_the_cap() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..10 {
            fs::write(tmp.path().join(format!("f{i}")), "x").unwrap();
        }
        let ws = WorkspaceFolder::open(tmp.path(), WorkspaceSettings { max_list_entries: 4, ..settings() }).unwrap();
        let r = ws.list(&ListParams { recursive: true, path: None }).unwrap();
        assert_eq!(r.files.len(), 4);
        assert!(r.truncated);
    }

    #[test]
    fn reads_text_and_refuses_large_binary_and_missing_files() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::write(root.join("ok.txt"), "héllo\r\n").unwrap();
        fs::write(root.join("max.txt"), "x".repeat(100)).unwrap();
        fs::write(root.join("big.txt"), "x".repeat(101)).unwrap();
        fs::write(root.join("nul.bin"), b"a\0b").unwrap();
        fs::write(root.join("latin1.txt"), b"caf\xe9").unwrap();
        fs::create_dir(root.join("dir")).unwrap();
        let ws = workspace(root);
        assert_eq!(read(&ws, "ok.txt").unwrap(), "héllo\r\n");
        assert_eq!(read(&ws, "./ok.txt").unwrap(), "héllo\r\n");
        assert_eq!(read(&ws, "max.txt").unwrap().len(), 100);
        let e = read(&ws, "big.txt").unwrap_err();
        assert_eq!(e.code, -32002);
        assert!(e.message.contains("101 bytes") && e.message.contains("100 bytes"), "{}", e.message);
        assert_eq!(read(&ws, "nul.bin").unwrap_err().code, ErrorCode::BinaryFile.bridge_wire_code() as i64);
        assert_eq!(read(&ws, "latin1.txt").unwrap_err().code, ErrorCode::BinaryFile.bridge_wire_code() as i64);
        assert_eq!(read(&ws, "missing.txt").unwrap_err().code, -32003);
        assert_eq!(read(&ws, "dir").unwrap_err().code, -32602);
        assert_eq!(read(&ws, "").unwrap_err().code, -32602);
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn confinement_is_access_denied_without_revealing_host_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        fs::create_dir(&root).unwrap();
        fs::write(tmp.path().join("secret.txt"), "secret").unwrap();
        mcp_tests::os::symlink(tmp.path().join("secret.txt"), root.join("link.txt")).unwrap();
        mcp_tests::os::symlink(tmp.path(), root.join("out")).unwrap();
        let ws = workspace(&root);
        let outside = tmp.path().join("secret.txt").display().to_string();
        for path in ["../secret.txt", "link.txt", "out/secret.txt", outside.as_str(), "a/../../secret.txt"] {
            let e = read(&ws, path).unwrap_err();
            assert_eq!(e.code, -32001, "{path}: {e:?}");
            let root_text = tmp.path().display().to_string();
            assert!(path.starts_with('/') || !e.message.contains(&root_text), "{}", e.message);
            let e = write(&ws, path, "pwned").unwrap_err();
            assert_eq!(e.code, -32001, "{path}: {e:?}");
        }
        assert_eq!(fs::read_to_string(tmp.path().join("secret.txt")).unwrap(), "secret");
        let listed = ws.list(&ListParams { recursive: false, path: None }).unwrap();
        assert!(listed.files.is_empty(), "escaping symlinks are not listed: {:?}", listed.files);
        assert_eq!(ws.list(&ListParams { recursive: true, path: Some("..".into()) }).unwrap_err().code, -32001);
    }

    #[test]
    fn writes_create_parents_and_report_creation() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = workspace(tmp.path());
        let r = write(&ws, "new/dir/file.txt", "one").unwrap();
        assert_eq!(r, WriteResult { bytes: 3, created: true, previous: None });
        let r = write(&ws, "new/dir/file.txt", "two!").unwrap();
        assert_eq!(r, WriteResult { bytes: 4, created: false, previous: Some("one".into()) });
        assert_eq!(fs::read_to_string(tmp.path().join("new/dir/file.txt")).unwrap(), "two!");
        assert_eq!(write(&ws, "x", &"y".repeat(101)).unwrap_err().code, -32002);
        assert!(!tmp.path().join("x").exists());
        assert_eq!(write(&ws, ".git/hooks/pre-commit", "boom").unwrap_err().code, -32001);
        assert_eq!(write(&ws, ".", "x").unwrap_err().code, -32602);
        assert_eq!(write(&ws, "new", "x").unwrap_err().code, -32602, "a directory");
        assert_eq!(write(&ws, "new/dir/file.txt/child", "x").unwrap_err().code, -32602, "a parent is a file");
    }

    #[test]
    fn read_only_refuses_every_write() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a.txt"), "keep").unwrap();
        let ws = WorkspaceFolder::open(tmp.path(), WorkspaceSettings { read_only: true, ..settings() }).unwrap();
        let e = write(&ws, "a.txt", "changed").unwrap_err();
        assert_eq!(e.code, -32004);
        assert_eq!(fs::read_to_string(tmp.path().join("a.txt")).unwrap(), "keep");
        assert_eq!(write(&ws, "b.txt", "new").unwrap_err().code, -32004);
        assert!(!tmp.path().join("b.txt").exists());
    }

    #[test]
    fn slash_paths() {
        assert_eq!(slash_path(Path::new("a/./b")).as_deref(), Some("a/b"));
        assert_eq!(slash_path(Path::new("")).as_deref(), Some(""));
    }
}
