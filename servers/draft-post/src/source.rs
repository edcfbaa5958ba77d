//! The manuscript: where it may come from, what it must be, its identity (`source_id`, from
//! its canonical path) and its text.
//!
//! A manuscript is read on a model's say-so and copied into a repository that is usually
//! public, so the read is confined like a write: the path must resolve (symlinks followed,
//! through the shared sandbox, never by a string prefix) to a regular Markdown file inside one
//! of the allowed source directories, with no hidden component (`.env`, `.ssh/`, `.config/`)
//! between that directory and the file. The checks apply to the resolved path, not to the name
//! the model gave: a `seed.md` that is a symlink to a key is judged as the key.
//!
//! The file is then opened through the source directory's handle and proven to be the file that
//! was checked ([`Sandbox::open_resolved`]: same device and inode, no symlink, no blocking), and
//! read from that descriptor only, so a path swapped for a symlink between the check and the
//! read cannot smuggle another file in.

use std::{io::Read, path::Path};

use mcp_shared::{
    ErrorCode,
    sandbox::{ResolvedFile, ResolvedKind, Sandbox, SandboxError},
};
use sha2::{Digest, Sha256};

/// The prefix a `source` may carry (`FILE:path/to/seed.md`); it is stripped.
pub const FILE_PREFIX: &str = "FILE:";

/// The default largest manuscript, in bytes (`--max-manuscript-size`): 1 MiB, some 150,000
/// words of Markdown, far above any article, and a small bound on what a mistaken call copies.
pub const DEFAULT_MAX_MANUSCRIPT_BYTES: u64 = 1024 * 1024;

/// The extensions of a manuscript's file name (compared without regard to case).
pub const MARKDOWN_EXTENSIONS: [&str; 3] = ["md", "markdown", "mdx"];

/// How many hex digits of the SHA-256 make a `source_id`.
pub const SOURCE_ID_HEX_DIGITS: usize = 16;

/// What a valid source looks like, in every refusal of where a source comes from. It names the
/// allowed directories by what they are, never by their host paths (a message shows no path the
/// caller did not send).
const WHAT_A_SOURCE_IS: &str = "A manuscript is a UTF-8 Markdown file (.md, .markdown or .mdx) inside an allowed \
                                source directory (by default the blog repository, the directory that holds it and \
                                the server's working directory, each only when it is not the home directory itself, \
                                `/` or a system directory: a blog at ~/blog does not allow ~/drafts by default; or \
                                those the user gave with --source-root), not in a hidden file or directory (a name \
                                starting with `.`)";

/// Why a manuscript was refused or could not be read. Every message names the path as the
/// caller wrote it, never the resolved one, and a refusal of where it comes from says nothing
/// of whether it exists.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// `source` is empty (after the prefix).
    #[error("`source` is empty; pass the path of the manuscript, e.g. \"FILE:drafts/seed.md\"")]
    Empty,
    /// The path (or a symlink on the way) leads outside every allowed source directory.
    #[error(
        "the manuscript {shown:?} is not inside an allowed source directory. {WHAT_A_SOURCE_IS}: write it in one of \
         them and pass that path, or ask the user to add its directory with --source-root DIR (repeatable; e.g. \
         --source-root ~/drafts, beside --repo)"
    )]
    Outside {
        /// The path as given.
        shown: String,
    },
    /// A component of the resolved path inside the source directory is hidden.
    #[error(
        "the manuscript {shown:?} is refused: it is, or is reached through, a hidden file or directory. \
         {WHAT_A_SOURCE_IS}; move the draft out of the hidden directory"
    )]
    Hidden {
        /// The path as given.
        shown: String,
    },
    /// The resolved file name is not a Markdown one.
    #[error(
        "the manuscript {shown:?} is refused: the file it names does not end in .md, .markdown or .mdx. \
         {WHAT_A_SOURCE_IS}; save the draft as such a file"
    )]
    NotMarkdown {
        /// The path as given.
        shown: String,
    },
    /// Nothing at that path (inside an allowed directory).
    #[error(
        "the manuscript {shown:?} does not exist (relative paths are resolved against the server's working \
         directory); check the path, or pass an absolute one"
    )]
    NotFound {
        /// The path as given.
        shown: String,
    },
    /// The path is a directory.
    #[error("the manuscript {shown:?} is a directory; pass the path of a Markdown file")]
    IsADirectory {
        /// The path as given.
        shown: String,
    },
    /// Not a regular file (a device, a socket, a FIFO, a view of the system under `/proc`).
    #[error("the manuscript {shown:?} is not a regular file; pass the path of a Markdown file")]
    NotAFile {
        /// The path as given.
        shown: String,
    },
    /// Larger than the limit.
    #[error(
        "the manuscript {shown:?} is {len} bytes, more than the {max} bytes a manuscript may have \
         (--max-manuscript-size)"
    )]
    TooLarge {
        /// The path as given.
        shown: String,
        /// Its size.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The file is not UTF-8.
    #[error(
        "the manuscript {shown:?} is not UTF-8 text: invalid byte at line {line}, column {column}; save it as UTF-8"
    )]
    NotUtf8 {
        /// The path as given.
        shown: String,
        /// The line of the first invalid byte (1-based).
        line: usize,
        /// Its column (1-based, in characters).
        column: usize,
    },
    /// The path cannot be resolved: a symlink loop, or a name the file system refuses.
    #[error(
        "the manuscript {shown:?} cannot be resolved (a symlink loop, or a name too long); pass the path of the \
         Markdown file itself"
    )]
    Unresolvable {
        /// The path as given.
        shown: String,
    },
    /// The file changed between the check and the read (swapped for a symlink or another file).
    #[error("the manuscript {shown:?} changed while it was being read; call draft_post again")]
    Changed {
        /// The path as given.
        shown: String,
    },
    /// The OS refused to let the server read it.
    #[error("the server may not read the manuscript {shown:?} (permission denied)")]
    PermissionDenied {
        /// The path as given.
        shown: String,
    },
    /// Any other failure (the details are logged).
    #[error("the manuscript {shown:?} could not be read ({kind}); check the file and try again")]
    Io {
        /// The path as given.
        shown: String,
        /// The kind of failure.
        kind: std::io::ErrorKind,
    },
}

impl SourceError {
    /// The error code of this refusal.
    pub fn code(&self) -> ErrorCode {
        match self {
            SourceError::Empty
            | SourceError::NotMarkdown { .. }
            | SourceError::Unresolvable { .. }
            | SourceError::IsADirectory { .. }
            | SourceError::NotAFile { .. } => ErrorCode::InvalidArgs,
            SourceError::Outside { .. } => ErrorCode::OutsideRoot,
            SourceError::Hidden { .. } | SourceError::PermissionDenied { .. } => ErrorCode::AccessDenied,
            SourceError::NotFound { .. } => ErrorCode::NotFound,
            SourceError::TooLarge { .. } => ErrorCode::FileTooLarge,
            SourceError::NotUtf8 { .. } => ErrorCode::InvalidInput,
            SourceError::Changed { .. } => ErrorCode::Conflict,
            SourceError::Io { .. } => ErrorCode::InternalError,
        }
    }
}

/// A manuscript read from disk.
#[derive(Debug, Clone)]
pub struct Manuscript {
    /// The path as the caller gave it (prefix stripped).
    pub shown: String,
    /// Its `source_id`.
    pub source_id: String,
    /// Its file name without the extension.
    pub stem: Option<String>,
    /// Its text.
    pub text: String,
    /// The directory it was read from (canonical), for the files it links; `None` for a
    /// manuscript sent as content.
    pub dir: Option<std::path::PathBuf>,
}

/// Where manuscripts may come from, and how large they may be.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The allowed source directories (configured, narrowed by the client's roots).
    pub roots: Sandbox,
    /// Where relative paths are resolved (the server's working directory).
    pub base: std::path::PathBuf,
    /// The largest manuscript, in bytes.
    pub max_bytes: u64,
}

/// `source` without a leading `FILE:`.
pub fn strip_file_prefix(source: &str) -> &str {
    source.strip_prefix(FILE_PREFIX).unwrap_or(source)
}

/// The `source_id` of a manuscript at `canonical` (an absolute path with symlinks, `.` and `..`
/// resolved): the first [`SOURCE_ID_HEX_DIGITS`] hex digits of the SHA-256 of its bytes.
pub fn source_id(canonical: &Path) -> String {
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let mut hex = String::with_capacity(SOURCE_ID_HEX_DIGITS);
    for byte in digest.iter().take(SOURCE_ID_HEX_DIGITS / 2) {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// Line and column (1-based, in characters) of byte offset `at` in `bytes` (valid UTF-8 up to
/// `at`).
fn line_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line, column)
}

/// Whether `name` ends in a Markdown extension.
pub fn is_markdown_name(name: &Path) -> bool {
    name.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MARKDOWN_EXTENSIONS.iter().any(|m| e.eq_ignore_ascii_case(m)))
}

/// The refusal for a sandbox failure on the manuscript's path.
/// `opening`: the error came from the open of a resolved path (where an invalid path means the
/// path changed since it was resolved), not from the resolution (where it means a symlink loop
/// or a name the file system refuses).
fn sandbox_error(error: SandboxError, shown: &str, opening: bool) -> SourceError {
    tracing::debug!(%error, path = shown, "manuscript refused or unreadable");
    let shown = shown.to_owned();
    match error {
        SandboxError::InvalidPath { .. } if !opening => SourceError::Unresolvable { shown },
        SandboxError::OutsideRoot { .. } => SourceError::Outside { shown },
        SandboxError::NotFound { .. } | SandboxError::NotADirectory { .. } => SourceError::NotFound { shown },
        SandboxError::IsADirectory { .. } => SourceError::IsADirectory { shown },
        SandboxError::PermissionDenied { .. } | SandboxError::DirectoryNotWritable { .. } => {
            SourceError::PermissionDenied { shown }
        }
        SandboxError::Changed { .. } => SourceError::Changed { shown },
        // A symlink that stopped being one while it was read (EINVAL), a swap caught by the open.
        SandboxError::InvalidPath { .. } | SandboxError::Io { kind: std::io::ErrorKind::InvalidInput, .. } => {
            SourceError::Changed { shown }
        }
        SandboxError::AlreadyExists { .. } => SourceError::Io { shown, kind: std::io::ErrorKind::AlreadyExists },
        SandboxError::Io { kind, .. } => SourceError::Io { shown, kind },
    }
}

/// `source` without its `FILE:` prefix, refused when empty or holding a NUL byte.
fn given_path(source: &str) -> Result<&str, SourceError> {
    let shown = strip_file_prefix(source);
    if shown.is_empty() {
        return Err(SourceError::Empty);
    }
    if shown.contains('\0') {
        return Err(SourceError::NotFound { shown: shown.replace('\0', "\\0") });
    }
    Ok(shown)
}

/// Reads the manuscript `source` (a `FILE:` prefix stripped; a relative path resolved against
/// `sources.base`), refusing anything that is not a manuscript from an allowed place.
pub fn read_manuscript(sources: &Sources, source: &str) -> Result<Manuscript, SourceError> {
    read_checked(sources, source, &|| {})
}

/// [`read_manuscript`], with `between` run after the checks and before the open (tests swap
/// the file there, deterministically).
fn read_checked(sources: &Sources, source: &str, between: &dyn Fn()) -> Result<Manuscript, SourceError> {
    let shown = given_path(source)?;
    let given = Path::new(shown);
    let joined = if given.is_absolute() { given.to_path_buf() } else { sources.base.join(given) };
    let Some(joined) = joined.to_str() else {
        return Err(SourceError::NotFound { shown: shown.to_owned() });
    };
    let roots = &sources.roots;
    let resolved: ResolvedFile =
        roots.resolve(joined).and_then(|p| roots.resolve_file(&p)).map_err(|e| sandbox_error(e, shown, false))?;
    // Decided on the resolved path before anything about the file itself is looked at, so that
    // a refusal says nothing of whether the file exists.
    if resolved.rel().components().any(|c| c.as_os_str().as_encoded_bytes().starts_with(b".")) {
        return Err(SourceError::Hidden { shown: shown.to_owned() });
    }
    if !is_markdown_name(resolved.canonical()) {
        return Err(SourceError::NotMarkdown { shown: shown.to_owned() });
    }
    match resolved.kind() {
        ResolvedKind::File => {}
        ResolvedKind::Missing => return Err(SourceError::NotFound { shown: shown.to_owned() }),
        ResolvedKind::Dir => return Err(SourceError::IsADirectory { shown: shown.to_owned() }),
        ResolvedKind::Other => return Err(SourceError::NotAFile { shown: shown.to_owned() }),
    }
    between();
    let mut file = roots.open_resolved(&resolved).map_err(|e| sandbox_error(e, shown, true))?;
    if mcp_shared::platform::is_pseudo_file(&file) {
        return Err(SourceError::NotAFile { shown: shown.to_owned() });
    }
    let io = |e: std::io::Error| {
        tracing::debug!(error = %e, path = shown, "cannot read the manuscript");
        SourceError::Io { shown: shown.to_owned(), kind: e.kind() }
    };
    let max = sources.max_bytes;
    let len = file.metadata().map_err(io)?.len();
    if len > max {
        return Err(SourceError::TooLarge { shown: shown.to_owned(), len, max });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    (&mut file).take(max + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(SourceError::TooLarge { shown: shown.to_owned(), len: bytes.len() as u64, max });
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let (line, column) = line_column(e.as_bytes(), at);
        SourceError::NotUtf8 { shown: shown.to_owned(), line, column }
    })?;
    let canonical = resolved.canonical();
    let stem = canonical.file_stem().and_then(|s| s.to_str()).map(str::to_owned);
    let dir = canonical.parent().map(Path::to_path_buf);
    Ok(Manuscript { shown: shown.to_owned(), source_id: source_id(canonical), stem, text, dir })
}

/// The manuscript a client sent as `content`, with `source` its own path of it: the server never
/// opens that path. The path is its identity as when it is read from disk (a `FILE:` prefix
/// stripped, a relative path taken from `base`, `.` and `..` resolved; no symlink can be resolved
/// on a path of another machine), so a client that switches between the two keeps its article.
/// The same rules as for a file: a Markdown name, no hidden component, at most `max_bytes`.
pub fn manuscript_from_content(
    source: &str,
    content: String,
    base: &Path,
    max_bytes: u64,
) -> Result<Manuscript, SourceError> {
    let shown = given_path(source)?;
    let given = Path::new(shown);
    // A Windows client's `C:\drafts\a.md` is absolute too, on any server.
    let windows_absolute =
        shown.len() > 2 && shown.as_bytes()[1] == b':' && matches!(shown.as_bytes()[2], b'\\' | b'/');
    let joined = if given.is_absolute() || windows_absolute { given.to_path_buf() } else { base.join(given) };
    let mut normal = std::path::PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    // The file and the directory holding it, as for a file read from a source directory (whose
    // own place may well lie under a hidden directory, as a temporary one does).
    let names: Vec<&str> = shown.split(['/', '\\']).filter(|n| !n.is_empty() && *n != ".").collect();
    if names.iter().rev().take(2).any(|n| n.starts_with('.') && *n != "..") {
        return Err(SourceError::Hidden { shown: shown.to_owned() });
    }
    let file_name = names.last().copied().unwrap_or_default();
    if !is_markdown_name(Path::new(file_name)) {
        return Err(SourceError::NotMarkdown { shown: shown.to_owned() });
    }
    let len = content.len() as u64;
    if len > max_bytes {
        return Err(SourceError::TooLarge { shown: shown.to_owned(), len, max: max_bytes });
    }
    let stem = Path::new(file_name).file_stem().and_then(|s| s.to_str()).map(str::to_owned);
    Ok(Manuscript { shown: shown.to_owned(), source_id: source_id(&normal), stem, text: content, dir: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(roots: &[&Path], base: &Path) -> Sources {
        Sources { roots: Sandbox::new(roots).unwrap(), base: base.to_path_buf(), max_bytes: 64 }
    }

    #[test]
    fn source_id_is_16_hex_digits_of_sha256_of_the_path() {
        // Computed independently: `printf %s /tmp/seed.md | sha256sum` = 1263c99634eee2ee5aee….
        let id = source_id(Path::new("/tmp/seed.md"));
        assert_eq!(id, "1263c99634eee2ee");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        let full = Sha256::digest(b"/tmp/seed.md");
        let expected: String = full.iter().take(8).map(|b| format!("{b:02x}")).collect();
        assert_eq!(id, expected);
        assert_ne!(source_id(Path::new("/tmp/seed2.md")), id);
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn the_same_file_by_any_spelling_has_one_id() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("a")).unwrap();
        std::fs::write(d.join("seed.md"), "# hi\n").unwrap();
        mcp_tests::os::symlink(d.join("seed.md"), d.join("link.md")).unwrap();
        let s = sources(&[d], d);
        let plain = read_manuscript(&s, "seed.md").unwrap();
        let canonical = d.canonicalize().unwrap().join("seed.md");
        assert_eq!(plain.source_id, source_id(&canonical));
        let dotted = read_manuscript(&s, "./a/../seed.md").unwrap();
        let prefixed = read_manuscript(&s, "FILE:seed.md").unwrap();
        let linked = read_manuscript(&s, "link.md").unwrap();
        let absolute = read_manuscript(&sources(&[d], Path::new("/")), d.join("seed.md").to_str().unwrap()).unwrap();
        // `..` is applied to the path as written: through a directory that does not exist, or a
        // file, it is still `seed.md`.
        let ghost = read_manuscript(&s, "./ghost/../seed.md").unwrap();
        let through_file = read_manuscript(&s, "seed.md/../seed.md").unwrap();
        for m in [&dotted, &prefixed, &linked, &absolute, &ghost, &through_file] {
            assert_eq!(m.source_id, plain.source_id);
        }
        assert_eq!(plain.stem.as_deref(), Some("seed"));
        assert_eq!(prefixed.shown, "seed.md");
        // The root named through a symlink is the same root.
        mcp_tests::os::symlink(d, d.join("a/root-link")).unwrap();
        let via_alias = sources(&[&d.join("a/root-link")], d);
        assert_eq!(read_manuscript(&via_alias, "a/root-link/seed.md").unwrap().source_id, plain.source_id);
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn where_a_source_may_come_from() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let root = d.join("drafts");
        std::fs::create_dir_all(root.join(".config/app")).unwrap();
        std::fs::create_dir_all(d.join("outside")).unwrap();
        std::fs::write(root.join(".config/app/notes.md"), "secret").unwrap();
        std::fs::write(root.join(".env.md"), "AWS=1").unwrap();
        std::fs::write(root.join("id_ed25519"), "KEY").unwrap();
        std::fs::write(d.join("outside/x.md"), "outside").unwrap();
        mcp_tests::os::symlink(root.join("id_ed25519"), root.join("key.md")).unwrap();
        mcp_tests::os::symlink(root.join(".config/app/notes.md"), root.join("notes.md")).unwrap();
        mcp_tests::os::symlink(d.join("outside/x.md"), root.join("out.md")).unwrap();
        std::fs::write(root.join("UPPER.MD"), "ok").unwrap();
        std::fs::write(root.join("big.md"), "x".repeat(65)).unwrap();
        let s = sources(&[&root], &root);
        let code = |path: &str| read_manuscript(&s, path).map(|_| ()).map_err(|e| e.code().as_str().to_owned());
        assert_eq!(code("UPPER.MD"), Ok(()));
        assert_eq!(code(".config/app/notes.md"), Err("ACCESS_DENIED".to_owned()));
        assert_eq!(code(".config/app/missing.md"), Err("ACCESS_DENIED".to_owned()), "no existence leak");
        assert_eq!(code("notes.md"), Err("ACCESS_DENIED".to_owned()), "judged by the resolved path");
        assert_eq!(code(".env.md"), Err("ACCESS_DENIED".to_owned()));
        assert_eq!(code("id_ed25519"), Err("INVALID_ARGS".to_owned()));
        assert_eq!(code("missing-key"), Err("INVALID_ARGS".to_owned()), "no existence leak");
        assert_eq!(code("key.md"), Err("INVALID_ARGS".to_owned()));
        for outside in ["out.md", "../outside/x.md", "../outside/missing.md", "/etc/passwd", "/proc/self/environ"] {
            assert_eq!(code(outside), Err("OUTSIDE_ROOT".to_owned()), "{outside}");
        }
        assert_eq!(code("big.md"), Err("FILE_TOO_LARGE".to_owned()));
        assert_eq!(code("missing.md"), Err("NOT_FOUND".to_owned()));
        let message = read_manuscript(&s, "/etc/passwd").unwrap_err().to_string();
        assert!(message.contains(".md, .markdown or .mdx") && message.contains("--source-root"), "{message}");
        assert!(!message.contains("root:"), "{message}");
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn a_swap_between_the_check_and_the_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".ssh")).unwrap();
        std::fs::write(root.join(".ssh/key.md"), "PRIVATE KEY").unwrap();
        std::fs::write(root.join("seed.md"), "# seed\n").unwrap();
        let s = sources(&[&root], &root);
        let swap = || {
            std::fs::remove_file(root.join("seed.md")).unwrap();
            mcp_tests::os::symlink(root.join(".ssh/key.md"), root.join("seed.md")).unwrap();
        };
        match read_checked(&s, "seed.md", &swap) {
            Err(e @ SourceError::Changed { .. }) => assert_eq!(e.code(), ErrorCode::Conflict),
            other => panic!("{other:?}"),
        }
        // Swapped back to a plain file: read as usual.
        std::fs::remove_file(root.join("seed.md")).unwrap();
        std::fs::write(root.join("seed.md"), "# seed\n").unwrap();
        assert_eq!(read_checked(&s, "seed.md", &|| {}).unwrap().text, "# seed\n");
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn bad_sources_are_classified() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("latin1.md"), b"ok\ncaf\xe9\n").unwrap();
        std::fs::create_dir(d.join("dir.md")).unwrap();
        let s = sources(&[d], d);
        assert!(matches!(read_manuscript(&s, ""), Err(SourceError::Empty)));
        assert!(matches!(read_manuscript(&s, "FILE:"), Err(SourceError::Empty)));
        assert!(matches!(read_manuscript(&s, "nope.md"), Err(SourceError::NotFound { .. })));
        assert!(matches!(read_manuscript(&s, "dir.md"), Err(SourceError::IsADirectory { .. })));
        mcp_tests::os::symlink("loop.md", d.join("loop.md")).unwrap();
        assert!(matches!(read_manuscript(&s, "loop.md"), Err(SourceError::Unresolvable { .. })));
        assert!(std::process::Command::new("mkfifo").arg(d.join("fifo.md")).status().unwrap().success());
        assert!(matches!(read_manuscript(&s, "fifo.md"), Err(SourceError::NotAFile { .. })));
        // Regular-looking views of the system are not manuscripts, even under a source root.
        let proc = sources(&[Path::new("/proc/self")], d);
        let got = read_manuscript(&proc, "/proc/self/environ");
        assert!(matches!(got, Err(SourceError::NotMarkdown { .. })), "{got:?}");
        match read_manuscript(&s, "latin1.md") {
            Err(SourceError::NotUtf8 { line, column, .. }) => assert_eq!((line, column), (2, 4)),
            other => panic!("{other:?}"),
        }
        let message = read_manuscript(&s, "nope.md").unwrap_err().to_string();
        assert!(message.contains("\"nope.md\"") && !message.contains(d.to_str().unwrap()), "{message}");
    }

    #[test]
    fn content_is_identified_by_the_client_path_normalised_as_a_file_is() {
        let base = Path::new("/srv/work");
        let from = |source: &str| manuscript_from_content(source, "# x\n".into(), base, 100);
        let id = from("/home/me/drafts/a.md").unwrap().source_id;
        assert_eq!(id, source_id(Path::new("/home/me/drafts/a.md")));
        assert_eq!(from("FILE:/home/me/./drafts/x/../a.md").unwrap().source_id, id, "`.` and `..` resolved");
        assert_eq!(from("drafts/a.md").unwrap().source_id, source_id(Path::new("/srv/work/drafts/a.md")));
        let windows = from("C:\\Users\\me\\a.md").unwrap();
        assert_eq!(windows.source_id, source_id(Path::new("C:\\Users\\me\\a.md")), "absolute on any server");
        assert_eq!(windows.stem.as_deref(), Some("a"));
        assert!(matches!(from("/home/me/a.txt"), Err(SourceError::NotMarkdown { .. })));
        assert!(matches!(from("/home/me/.private/a.md"), Err(SourceError::Hidden { .. })));
        assert!(matches!(from("/home/me/.a.md"), Err(SourceError::Hidden { .. })));
        assert!(from("/tmp/.tmp123/drafts/a.md").is_ok(), "a hidden directory further up is the client's own place");
        assert!(matches!(from(""), Err(SourceError::Empty)));
        let big = manuscript_from_content("/a.md", "x".repeat(101), base, 100);
        assert!(matches!(big, Err(SourceError::TooLarge { len: 101, max: 100, .. })));
    }
}
