//! Discovery files: how a bridge finds the host of its workspace without a fixed port.
//!
//! A host writes `<dir>/<port>.json` = `{port, pid, workspaceFolders, token}` on start and removes
//! it on exit, where `<dir>` is `$XDG_RUNTIME_DIR/ide-bridge`, or `${TMPDIR:-/tmp}/ide-bridge-<uid>`
//! when `XDG_RUNTIME_DIR` is not set. The directory is private (0700, owned by the user, not a
//! symlink) and each file is 0600, written atomically (temporary file, fsync, rename), because it
//! holds the token. A bridge reads the files of live hosts (the pid exists and is the user's, the
//! file is the user's) and picks the one whose workspace folder contains its directory; it looks
//! in its own environment's directory and in the user's other usual ones ([`bridge_dirs`]),
//! because MCP clients often start it with a trimmed environment.
//!
//! These are not workspace paths, so plain `std::fs` is right here (the sandbox is for the
//! workspace).

use std::{
    ffi::OsString,
    fs,
    path::{Path, PathBuf},
    time::SystemTime,
};

use mcp_shared::platform;
use serde::{Deserialize, Serialize};

/// The name of the discovery directory under `$XDG_RUNTIME_DIR`.
pub const DIR_NAME: &str = "ide-bridge";

/// Largest discovery file read, of any kind (a valid one is a few hundred bytes).
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// What a discovery file holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryRecord {
    /// The host's port on 127.0.0.1.
    pub port: u16,
    /// The host's process id.
    pub pid: u32,
    /// The absolute paths of the workspace folders the host serves.
    pub workspace_folders: Vec<String>,
    /// The bearer token of the WebSocket upgrade.
    pub token: String,
}

impl DiscoveryRecord {
    /// The WebSocket URL of the host.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// The length, in components, of the deepest workspace folder that contains `dir`.
    pub fn contains(&self, dir: &Path) -> Option<usize> {
        deepest_containing(&self.workspace_folders, dir)
    }
}

/// The length, in components, of the deepest of `folders` (absolute paths, as written or
/// canonical) that contains `dir` (canonical), compared component by component.
pub fn deepest_containing(folders: &[String], dir: &Path) -> Option<usize> {
    folders
        .iter()
        .map(Path::new)
        .filter(|folder| folder.is_absolute())
        .filter(|folder| {
            dir.starts_with(folder) || platform::canonicalize(folder).is_ok_and(|real| dir.starts_with(real))
        })
        .map(|folder| folder.components().count())
        .max()
}

/// Why discovery failed.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// A file-system operation on the discovery directory failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, with the path.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The directory exists but is not a private directory of this user.
    #[error(
        "{0} is not a private directory of this user (it must be a directory, not a symlink, owned by you); remove it or set XDG_RUNTIME_DIR"
    )]
    NotPrivate(PathBuf),
    /// The record could not be serialised.
    #[error("cannot serialise the discovery record: {0}")]
    Json(#[from] serde_json::Error),
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> DiscoveryError {
    let context = context.into();
    move |source| DiscoveryError::Io { context, source }
}

/// This user's tag in directory names: the uid on Unix, the user name on Windows.
pub fn current_user() -> String {
    platform::user_tag()
}

/// The discovery directory for the given environment: `xdg_runtime_dir/ide-bridge` when it is set,
/// non-empty and absolute, else `temp_dir/ide-bridge-<uid>` (`uid`: [`current_user`]).
pub fn discovery_dir_from(xdg_runtime_dir: Option<OsString>, temp_dir: &Path, uid: &str) -> PathBuf {
    match xdg_runtime_dir.map(PathBuf::from) {
        Some(xdg) if xdg.is_absolute() => xdg.join(DIR_NAME),
        _ => temp_dir.join(format!("{DIR_NAME}-{uid}")),
    }
}

/// The discovery directory of this process's environment.
pub fn discovery_dir() -> PathBuf {
    discovery_dir_from(std::env::var_os("XDG_RUNTIME_DIR"), &std::env::temp_dir(), &current_user())
}

/// Where a bridge looks for hosts, in order, for the given environment. A bridge is started by
/// an MCP client, which often passes only a few environment variables (the Python SDK, and so
/// mcp-use, passes `HOME`, `PATH`, `USER`, … but not `XDG_RUNTIME_DIR`), while the host or the
/// IDE runs in the user's session. So besides the directory of its own environment the bridge
/// also reads the user's standard runtime directory (`/run/user/<uid>`) and the temp-dir
/// fallback; only files owned by the user, in directories owned by the user, are ever read.
pub fn bridge_dirs_from(xdg_runtime_dir: Option<OsString>, temp_dir: &Path, uid: &str) -> Vec<PathBuf> {
    let own = discovery_dir_from(xdg_runtime_dir.clone(), temp_dir, uid);
    let xdg_set = xdg_runtime_dir.map(PathBuf::from).is_some_and(|x| x.is_absolute());
    let mut dirs = vec![own];
    let mut also = Vec::new();
    if !xdg_set && cfg!(unix) {
        also.push(Path::new("/run/user").join(uid).join(DIR_NAME));
    }
    also.push(temp_dir.join(format!("{DIR_NAME}-{uid}")));
    for dir in also {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// [`bridge_dirs_from`] for this process's environment.
pub fn bridge_dirs() -> Vec<PathBuf> {
    bridge_dirs_from(std::env::var_os("XDG_RUNTIME_DIR"), &std::env::temp_dir(), &current_user())
}

/// The live hosts of every directory of `dirs` ([`live_hosts`]); a directory that is not the
/// user's own (a symlink, or another user's) is skipped.
pub fn live_hosts_in(dirs: &[PathBuf]) -> Vec<LiveHost> {
    let mut hosts: Vec<LiveHost> = Vec::new();
    for dir in dirs {
        let Ok(meta) = fs::symlink_metadata(dir) else { continue };
        if !meta.file_type().is_dir() || !platform::is_mine(&meta) {
            continue;
        }
        for host in live_hosts(dir) {
            // The same host seen twice (two spellings of one directory) counts once.
            if !hosts.iter().any(|h| h.record.port == host.record.port && h.record.pid == host.record.pid) {
                hosts.push(host);
            }
        }
    }
    hosts
}

/// Creates `dir` (0700) or checks that it is a private directory of this user, tightening its
/// mode to 0700 if it is looser.
pub fn ensure_private_dir(dir: &Path) -> Result<(), DiscoveryError> {
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent).map_err(io(format!("cannot create {}", parent.display())))?;
    }
    let meta = fs::symlink_metadata(dir);
    if let Ok(meta) = &meta
        && (!meta.file_type().is_dir() || !platform::is_mine(meta))
    {
        return Err(DiscoveryError::NotPrivate(dir.to_path_buf()));
    }
    platform::create_private_dir(dir).map_err(io(format!("cannot create or make private {}", dir.display())))?;
    let meta = fs::symlink_metadata(dir).map_err(io(format!("cannot inspect {}", dir.display())))?;
    if !meta.file_type().is_dir() || !platform::is_mine(&meta) {
        return Err(DiscoveryError::NotPrivate(dir.to_path_buf()));
    }
    Ok(())
}

/// A published discovery file; removed when dropped (normal exit, SIGINT, SIGTERM all end in a
/// drop; only SIGKILL leaves it, and readers skip files whose pid is gone).
#[derive(Debug)]
pub struct Published {
    path: PathBuf,
    pid: u32,
}

impl Published {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Published {
    fn drop(&mut self) {
        // Only our own file: a later host on the same port may have replaced it.
        let ours = read_record(&self.path).is_some_and(|r| r.pid == self.pid);
        if ours {
            match fs::remove_file(&self.path) {
                Ok(()) => tracing::debug!(path = %self.path.display(), "removed the discovery file"),
                Err(error) => tracing::warn!(%error, path = %self.path.display(), "cannot remove the discovery file"),
            }
        }
    }
}

/// Writes `record` to `dir/<port>.json` atomically with mode 0600 (the directory is made private
/// first). Files of dead hosts in `dir` are removed on the way.
pub fn publish(dir: &Path, record: &DiscoveryRecord) -> Result<Published, DiscoveryError> {
    ensure_private_dir(dir)?;
    sweep_stale(dir);
    let name = format!("{}.json", record.port);
    let path = dir.join(&name);
    let bytes = serde_json::to_vec_pretty(record)?;
    // The shared sandbox's atomic write (temp file, fsync, rename, directory fsync), confined to
    // the discovery directory. A file already there (a stale one of this port) goes first, so that
    // the new one is created 0600 instead of keeping the old file's mode.
    let failed = |e: mcp_shared::sandbox::SandboxError| {
        io(format!("cannot write {}", path.display()))(std::io::Error::other(e.to_string()))
    };
    let sandbox = mcp_shared::sandbox::Sandbox::new([dir]).map_err(failed)?;
    let target = sandbox.resolve_rel(&name).map_err(failed)?;
    match sandbox.remove_file(&target) {
        Ok(()) | Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => {}
        Err(e) => return Err(failed(e)),
    }
    let options = mcp_shared::sandbox::WriteOptions {
        fsync: true,
        create_parents: false,
        create_new: false,
        mode_if_new: Some(0o600),
    };
    sandbox.write_atomic(&target, &bytes, &options).map_err(failed)?;
    Ok(Published { path, pid: record.pid })
}

/// What discovery needs of an announcement, whichever kind of file made it: our hosts'
/// discovery files, Claude Code IDE lock files, Gemini CLI companion files.
pub trait Announced {
    /// The announcing process.
    fn pid(&self) -> u32;
    /// Its port on 127.0.0.1.
    fn port(&self) -> u16;
    /// The workspace folders it serves.
    fn folders(&self) -> &[String];
    /// When its file was written (newer wins a tie).
    fn modified(&self) -> SystemTime;
}

/// [`Announced`] for an announcement type with the fields `pid`, `port`, `workspace_folders`
/// and `modified` (lock files, companion files).
macro_rules! announced_by_fields {
    ($type:ty) => {
        impl $crate::discovery::Announced for $type {
            fn pid(&self) -> u32 {
                self.pid
            }
            fn port(&self) -> u16 {
                self.port
            }
            fn folders(&self) -> &[String] {
                &self.workspace_folders
            }
            fn modified(&self) -> std::time::SystemTime {
                self.modified
            }
        }
    };
}
pub(crate) use announced_by_fields;

/// The one scanner of announcement files, for the three kinds: in each of `dirs` (a directory of
/// this user's, not a link), each regular file of this user's of at most [`MAX_FILE_BYTES`],
/// read by `read` (its path, bytes and modification time; `None`: not one of this kind), kept
/// when its process is alive and its port not announced already.
pub fn scan<T: Announced>(dirs: &[PathBuf], read: impl Fn(&Path, &[u8], SystemTime) -> Option<T>) -> Vec<T> {
    let mut found: Vec<T> = Vec::new();
    for dir in dirs {
        let Ok(meta) = fs::symlink_metadata(dir) else { continue };
        if !meta.file_type().is_dir() || !platform::is_mine(&meta) {
            continue;
        }
        let Ok(entries) = fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = fs::symlink_metadata(&path) else { continue };
            if !meta.file_type().is_file() || meta.len() > MAX_FILE_BYTES || !platform::is_mine(&meta) {
                continue;
            }
            let Ok(bytes) = fs::read(&path) else { continue };
            let Some(item) = read(&path, &bytes, meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)) else { continue };
            if pid_alive(item.pid()) && !found.iter().any(|f| f.port() == item.port()) {
                found.push(item);
            }
        }
    }
    found
}

/// The announcement for `dir` among `found`: the deepest workspace folder containing `dir`, the
/// newest on a tie.
pub fn choose_for<'a, T: Announced>(found: impl IntoIterator<Item = &'a T>, dir: &Path) -> Option<&'a T> {
    found
        .into_iter()
        .filter_map(|a| deepest_containing(a.folders(), dir).map(|depth| (depth, a)))
        .max_by_key(|(depth, a)| (*depth, a.modified()))
        .map(|(_, a)| a)
}

impl Announced for LiveHost {
    fn pid(&self) -> u32 {
        self.record.pid
    }
    fn port(&self) -> u16 {
        self.record.port
    }
    fn folders(&self) -> &[String] {
        &self.record.workspace_folders
    }
    fn modified(&self) -> SystemTime {
        self.modified
    }
}

/// Whether process `pid` exists and this user may signal it (i.e. it is this user's).
pub fn pid_alive(pid: u32) -> bool {
    platform::process_alive(pid)
}

/// Reads one discovery file; `None` when it is unreadable, too large or not a record.
pub fn read_record(path: &Path) -> Option<DiscoveryRecord> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let bytes = fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// A discovery file of a live host, with when it was written.
#[derive(Debug, Clone)]
pub struct LiveHost {
    /// What the file says.
    pub record: DiscoveryRecord,
    /// Its modification time (newer wins a tie).
    pub modified: SystemTime,
}

/// The records in `dir` of live hosts owned by this user. Files of other users, of dead
/// processes, and anything unparsable are skipped.
pub fn live_hosts(dir: &Path) -> Vec<LiveHost> {
    scan(&[dir.to_path_buf()], |path, bytes, modified| {
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            return None;
        }
        let record = serde_json::from_slice(bytes).ok()?;
        Some(LiveHost { record, modified })
    })
}

/// Removes the files in `dir` whose host process is gone (a host killed with SIGKILL).
pub fn sweep_stale(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let owned = fs::symlink_metadata(&path).is_ok_and(|m| platform::is_mine(&m));
        if let Some(record) = read_record(&path)
            && owned
            && !pid_alive(record.pid)
        {
            tracing::debug!(path = %path.display(), pid = record.pid, "removing a stale discovery file");
            let _ = fs::remove_file(&path);
        }
    }
}

/// The host for `dir` among `hosts`: the one with the deepest workspace folder containing `dir`;
/// on a tie, the most recently written.
pub fn choose<'a>(hosts: &'a [LiveHost], dir: &Path) -> Option<&'a LiveHost> {
    choose_for(hosts, dir)
}

/// The live host whose port is `port`, if any (to find the token for an explicit `--url`).
pub fn by_port(hosts: &[LiveHost], port: u16) -> Option<&LiveHost> {
    hosts.iter().filter(|h| h.record.port == port).max_by_key(|h| h.modified)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(port: u16, folders: &[&str]) -> DiscoveryRecord {
        DiscoveryRecord {
            port,
            pid: std::process::id(),
            workspace_folders: folders.iter().map(|s| (*s).to_owned()).collect(),
            token: "t".into(),
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_bridge_also_looks_where_a_host_of_a_fuller_environment_writes() {
        let tmp = Path::new("/tmp");
        // Started without XDG_RUNTIME_DIR (e.g. by the Python SDK): the user's runtime dir too.
        assert_eq!(
            bridge_dirs_from(None, tmp, "5"),
            vec![PathBuf::from("/tmp/ide-bridge-5"), PathBuf::from("/run/user/5/ide-bridge")]
        );
        assert_eq!(
            bridge_dirs_from(Some("/run/user/5".into()), tmp, "5"),
            vec![PathBuf::from("/run/user/5/ide-bridge"), PathBuf::from("/tmp/ide-bridge-5")]
        );
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        ensure_private_dir(&a).unwrap();
        ensure_private_dir(&b).unwrap();
        let record = |port: u16| DiscoveryRecord {
            port,
            pid: std::process::id(),
            workspace_folders: vec!["/w".into()],
            token: "t".into(),
        };
        let _one = publish(&a, &record(1)).unwrap();
        let _two = publish(&b, &record(2)).unwrap();
        let _again = publish(&b, &record(1)).unwrap();
        let missing = dir.path().join("missing");
        let mut ports: Vec<u16> =
            live_hosts_in(&[a.clone(), missing, b.clone()]).iter().map(|h| h.record.port).collect();
        ports.sort_unstable();
        assert_eq!(ports, vec![1, 2], "every directory read, a host seen twice counted once");
        // A directory that is a symlink is not read.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        assert!(live_hosts_in(&[link]).is_empty());
    }

    #[test]
    fn dir_prefers_xdg_runtime_dir() {
        let tmp = Path::new("/tmp");
        assert_eq!(discovery_dir_from(Some("/run/user/5".into()), tmp, "5"), Path::new("/run/user/5/ide-bridge"));
        assert_eq!(discovery_dir_from(None, tmp, "5"), Path::new("/tmp/ide-bridge-5"));
        assert_eq!(discovery_dir_from(Some("".into()), tmp, "5"), Path::new("/tmp/ide-bridge-5"));
        assert_eq!(discovery_dir_from(Some("relative".into()), tmp, "5"), Path::new("/tmp/ide-bridge-5"));
    }

    #[cfg(unix)]
    #[test]
    fn publish_is_private_and_removed_on_drop() {
        use std::os::unix::fs::MetadataExt as _;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ide-bridge");
        let published = publish(&dir, &record(4242, &["/w"])).unwrap();
        let file_mode = fs::metadata(published.path()).unwrap().mode() & 0o777;
        let dir_mode = fs::metadata(&dir).unwrap().mode() & 0o777;
        assert_eq!((file_mode, dir_mode), (0o600, 0o700));
        assert_eq!(published.path(), dir.join("4242.json"));
        let back = read_record(published.path()).unwrap();
        assert_eq!(back, record(4242, &["/w"]));
        let json: serde_json::Value = serde_json::from_slice(&fs::read(published.path()).unwrap()).unwrap();
        assert_eq!(json["workspaceFolders"], serde_json::json!(["/w"]));
        assert_eq!(live_hosts(&dir).len(), 1);
        let names: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
        drop(published);
        assert!(!dir.join("4242.json").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_loose_directory_is_tightened_and_a_symlink_refused() {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(matches!(ensure_private_dir(&link), Err(DiscoveryError::NotPrivate(_))));
    }

    #[test]
    fn dead_hosts_are_skipped_and_swept() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ide-bridge");
        ensure_private_dir(&dir).unwrap();
        let mut dead = record(1, &["/w"]);
        dead.pid = i32::MAX as u32 - 1;
        fs::write(dir.join("1.json"), serde_json::to_vec(&dead).unwrap()).unwrap();
        fs::write(dir.join("2.json"), b"not json").unwrap();
        assert!(live_hosts(&dir).is_empty());
        sweep_stale(&dir);
        assert!(!dir.join("1.json").exists());
        assert!(dir.join("2.json").exists(), "only records of dead hosts are swept");
        assert!(!pid_alive(0));
    }

    #[test]
    fn the_deepest_containing_folder_wins() {
        let at = |r: DiscoveryRecord, secs: u64| LiveHost {
            record: r,
            modified: SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs),
        };
        let hosts = vec![at(record(1, &["/a"]), 1), at(record(2, &["/a/b"]), 0), at(record(3, &["/c"]), 5)];
        assert_eq!(choose(&hosts, Path::new("/a/b/c")).unwrap().record.port, 2);
        assert_eq!(choose(&hosts, Path::new("/a/x")).unwrap().record.port, 1);
        assert_eq!(choose(&hosts, Path::new("/c")).unwrap().record.port, 3);
        assert!(choose(&hosts, Path::new("/ab")).is_none(), "component-wise, never a string prefix");
        assert!(choose(&hosts, Path::new("/")).is_none());
        let tie = vec![at(record(1, &["/a"]), 1), at(record(2, &["/a"]), 9)];
        assert_eq!(choose(&tie, Path::new("/a")).unwrap().record.port, 2, "the newer file wins a tie");
        assert_eq!(by_port(&hosts, 3).unwrap().record.port, 3);
    }
}
