//! Claude Code IDE lock files: how the bridge finds an IDE that serves the Claude Code IDE
//! protocol (the official VS Code extension, the JetBrains plugin, claudecode.nvim,
//! claude-code-ide.el).
//!
//! Each such IDE writes `<port>.lock` into `$CLAUDE_CONFIG_DIR/ide/` (default `~/.claude/ide/`):
//! `{pid, workspaceFolders, ideName, transport: "ws", authToken}`. A lock file can outlive its IDE
//! (a crash, `kill -9`): only files of this user, of a live process of this user, are kept.
//! These are not workspace paths, so plain `std::fs` is right here.

use std::{
    path::{Path, PathBuf},
    time::SystemTime,
};

use serde::Deserialize;

/// What a lock file says, with where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdeLock {
    /// The IDE's WebSocket port on 127.0.0.1 (the file's name).
    pub port: u16,
    /// The IDE's process id.
    pub pid: u32,
    /// The absolute paths of the IDE's workspace folders.
    pub workspace_folders: Vec<String>,
    /// The IDE's name (`Neovim`, `Visual Studio Code`, `IntelliJ IDEA`, `Emacs`, …), as the
    /// file says it (shown escaped).
    pub ide_name: String,
    /// The token of the WebSocket upgrade (`x-claude-code-ide-authorization`); empty when the
    /// IDE checks none (claude-code-ide.el).
    pub auth_token: String,
    /// The lock file.
    pub path: PathBuf,
    /// Its modification time (newer wins a tie).
    pub modified: SystemTime,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    pid: u32,
    #[serde(default)]
    workspace_folders: Vec<String>,
    #[serde(default)]
    ide_name: Option<String>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    auth_token: Option<String>,
}

impl IdeLock {
    /// The IDE's WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// The length, in components, of the deepest workspace folder that contains `dir`.
    pub fn contains(&self, dir: &Path) -> Option<usize> {
        crate::discovery::deepest_containing(&self.workspace_folders, dir)
    }

    /// Whether the IDE is of the VS Code family, whose Claude Code extension keeps one client at
    /// a time: a new connection drops the previous one (the user's own Claude Code session).
    pub fn single_client(&self) -> bool {
        let name = self.ide_name.to_ascii_lowercase();
        ["code", "cursor", "windsurf", "antigravity", "kiro", "trae"].iter().any(|n| name.contains(n))
    }
}

/// Where lock files are: `$CLAUDE_CONFIG_DIR/ide` when it is set and absolute, else
/// `~/.claude/ide`.
pub fn lock_dirs_from(claude_config_dir: Option<std::ffi::OsString>, home: Option<PathBuf>) -> Vec<PathBuf> {
    match claude_config_dir.map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => vec![dir.join("ide")],
        _ => home.map(|h| h.join(".claude").join("ide")).into_iter().collect(),
    }
}

/// [`lock_dirs_from`] for this process's environment.
pub fn lock_dirs() -> Vec<PathBuf> {
    lock_dirs_from(std::env::var_os("CLAUDE_CONFIG_DIR"), mcp_shared::workspace::home_dir())
}

/// Reads one lock file (its path, bytes and modification time); `None` when it is not named
/// `<port>.lock`, not a WebSocket IDE's, or not a lock record.
fn read_lock(path: &Path, bytes: &[u8], modified: SystemTime) -> Option<IdeLock> {
    let port: u16 = path.file_stem()?.to_str()?.parse().ok().filter(|p| *p > 0)?;
    if path.extension()?.to_str()? != "lock" {
        return None;
    }
    let raw: Raw = serde_json::from_slice(bytes).ok()?;
    if raw.transport.as_deref().is_some_and(|t| t != "ws") {
        return None;
    }
    Some(IdeLock {
        port,
        pid: raw.pid,
        workspace_folders: raw.workspace_folders,
        ide_name: raw.ide_name.filter(|n| !n.trim().is_empty()).unwrap_or_else(|| "an IDE".to_owned()),
        auth_token: raw.auth_token.unwrap_or_default(),
        path: path.to_path_buf(),
        modified,
    })
}

/// The lock files of live IDEs in `dirs`, through the one scanner of announcement files
/// ([`crate::discovery::scan`]: the user's own files in the user's own directories).
pub fn live_locks(dirs: &[PathBuf]) -> Vec<IdeLock> {
    crate::discovery::scan(dirs, read_lock)
}

crate::discovery::announced_by_fields!(IdeLock);

/// The lock for `dir` among `locks`: the deepest workspace folder containing `dir`, the newest
/// on a tie; single-client IDEs only when `take_single` (the user asked for them by name).
pub fn choose<'a>(locks: &'a [IdeLock], dir: &Path, take_single: bool) -> Option<&'a IdeLock> {
    crate::discovery::choose_for(locks.iter().filter(|l| take_single || !l.single_client()), dir)
}

/// The lock of `port` among `locks` (an explicit `--url`).
pub fn by_port(locks: &[IdeLock], port: u16) -> Option<&IdeLock> {
    locks.iter().find(|l| l.port == port)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, body).unwrap();
        path
    }

    #[test]
    fn live_locks_of_this_user_are_read_and_stale_or_odd_ones_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id();
        write(
            dir.path(),
            "4100.lock",
            &format!(r#"{{"pid":{me},"workspaceFolders":["/w"],"ideName":"Neovim","transport":"ws","authToken":"t"}}"#),
        );
        // A dead pid (pids this large do not exist), an HTTP transport, a bad name, not JSON.
        write(dir.path(), "4101.lock", r#"{"pid":4194999,"workspaceFolders":["/w"],"authToken":"t"}"#);
        write(dir.path(), "4102.lock", &format!(r#"{{"pid":{me},"transport":"sse","authToken":"t"}}"#));
        write(dir.path(), "x.lock", &format!(r#"{{"pid":{me}}}"#));
        write(dir.path(), "4103.json", &format!(r#"{{"pid":{me}}}"#));
        write(dir.path(), "4104.lock", "not json");
        let locks = live_locks(&[dir.path().to_path_buf()]);
        assert_eq!(locks.len(), 1, "{locks:?}");
        assert_eq!((locks[0].port, locks[0].ide_name.as_str(), locks[0].auth_token.as_str()), (4100, "Neovim", "t"));
        assert_eq!(locks[0].url(), "ws://127.0.0.1:4100");
    }

    #[test]
    fn the_deepest_folder_wins_and_single_client_ides_need_asking() {
        let lock = |port, folder: &str, name: &str| IdeLock {
            port,
            pid: 1,
            workspace_folders: vec![folder.to_owned()],
            ide_name: name.to_owned(),
            auth_token: String::new(),
            path: PathBuf::new(),
            modified: SystemTime::UNIX_EPOCH,
        };
        let locks = [lock(1, "/w", "Neovim"), lock(2, "/w/p", "Emacs"), lock(3, "/w/p/q", "Visual Studio Code")];
        assert_eq!(choose(&locks, Path::new("/w/p/q/r"), false).map(|l| l.port), Some(2));
        assert_eq!(choose(&locks, Path::new("/w/p/q/r"), true).map(|l| l.port), Some(3));
        assert_eq!(choose(&locks, Path::new("/elsewhere"), true), None);
        assert!(lock(0, "/", "Cursor").single_client() && !lock(0, "/", "IntelliJ IDEA").single_client());
    }

    #[test]
    fn the_directory_follows_claude_config_dir() {
        assert_eq!(lock_dirs_from(Some("/c".into()), Some("/h".into())), vec![PathBuf::from("/c/ide")]);
        assert_eq!(lock_dirs_from(Some("rel".into()), Some("/h".into())), vec![PathBuf::from("/h/.claude/ide")]);
        assert_eq!(lock_dirs_from(None, None), Vec::<PathBuf>::new());
    }
}
