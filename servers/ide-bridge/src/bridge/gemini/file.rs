//! Gemini CLI companion discovery files: `<tmp>/gemini/ide/gemini-ide-server-<pid>-<port>.json`
//! = `{port, workspacePath, authToken, ideInfo: {name, displayName}}`, written by the Gemini CLI's
//! IDE companion (VS Code's, or a plugin written from its specification). `workspacePath` lists
//! the workspace folders separated as `PATH` is (`:`, `;` on Windows). Only files of this user,
//! whose IDE process (the `<pid>` of the name) is alive, are kept. Not workspace paths: plain
//! `std::fs`.

use std::{
    path::{Path, PathBuf},
    time::SystemTime,
};

use serde::Deserialize;

/// What a companion's discovery file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompanionFile {
    /// The companion's MCP port on 127.0.0.1.
    pub port: u16,
    /// The IDE's process id (from the file's name).
    pub pid: u32,
    /// The absolute paths of the workspace folders.
    pub workspace_folders: Vec<String>,
    /// The IDE's name (`ideInfo.displayName`).
    pub ide_name: String,
    /// The bearer token of every request.
    pub auth_token: String,
    /// The file.
    pub path: PathBuf,
    /// Its modification time (newer wins a tie).
    pub modified: SystemTime,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    port: u16,
    #[serde(default)]
    workspace_path: String,
    #[serde(default)]
    auth_token: String,
    #[serde(default)]
    ide_info: Option<IdeInfo>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdeInfo {
    #[serde(default)]
    display_name: String,
}

impl CompanionFile {
    /// The companion's MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// The length, in components, of the deepest workspace folder that contains `dir`.
    pub fn contains(&self, dir: &Path) -> Option<usize> {
        crate::discovery::deepest_containing(&self.workspace_folders, dir)
    }
}

/// Where companions write their files: `<temp>/gemini/ide` (the IDE's temporary directory; the
/// bridge also reads `/tmp`'s, as an MCP client may start it with another `TMPDIR`).
pub fn companion_dirs_from(temp_dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![temp_dir.join("gemini").join("ide")];
    let tmp = Path::new("/tmp/gemini/ide");
    if cfg!(unix) && !dirs.iter().any(|d| d == tmp) {
        dirs.push(tmp.to_path_buf());
    }
    dirs
}

/// [`companion_dirs_from`] for this process's environment.
pub fn companion_dirs() -> Vec<PathBuf> {
    companion_dirs_from(&std::env::temp_dir())
}

/// Reads one discovery file (its path, bytes and modification time): named
/// `gemini-ide-server-<pid>-<port>.json`, its port the name's.
fn read_file(path: &Path, bytes: &[u8], modified: SystemTime) -> Option<CompanionFile> {
    let name = path.file_name()?.to_str()?;
    let rest = name.strip_prefix("gemini-ide-server-")?.strip_suffix(".json")?;
    let (pid, port) = rest.split_once('-')?;
    let (pid, port): (u32, u16) = (pid.parse().ok()?, port.parse().ok()?);
    let raw: Raw = serde_json::from_slice(bytes).ok()?;
    if raw.port != port || port == 0 {
        return None;
    }
    let workspace_folders = std::env::split_paths(&raw.workspace_path)
        .filter(|p| p.is_absolute())
        .filter_map(|p| p.to_str().map(str::to_owned))
        .collect();
    let ide_name = raw.ide_info.map(|i| i.display_name).filter(|n| !n.trim().is_empty());
    Some(CompanionFile {
        port,
        pid,
        workspace_folders,
        ide_name: ide_name.unwrap_or_else(|| "an IDE".to_owned()),
        auth_token: raw.auth_token,
        path: path.to_path_buf(),
        modified,
    })
}

/// The discovery files of live companions in `dirs`, through the one scanner of announcement
/// files ([`crate::discovery::scan`]).
pub fn live_companions(dirs: &[PathBuf]) -> Vec<CompanionFile> {
    crate::discovery::scan(dirs, read_file)
}

crate::discovery::announced_by_fields!(CompanionFile);

/// The companion for `dir`: the deepest workspace folder containing it, the newest on a tie.
pub fn choose<'a>(files: &'a [CompanionFile], dir: &Path) -> Option<&'a CompanionFile> {
    crate::discovery::choose_for(files, dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn live_files_of_this_user_are_read_by_their_name_and_the_rest_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let body = |port: u16| {
            format!(
                r#"{{"port":{port},"workspacePath":"/w/a:/w/b","authToken":"t","ideInfo":{{"name":"vscode","displayName":"VS Code"}}}}"#
            )
        };
        fs::write(dir.path().join(format!("gemini-ide-server-{me}-4200.json")), body(4200)).unwrap();
        // A dead pid, a port that differs from the name's, an odd name.
        fs::write(dir.path().join("gemini-ide-server-4194999-4201.json"), body(4201)).unwrap();
        fs::write(dir.path().join(format!("gemini-ide-server-{me}-4202.json")), body(4203)).unwrap();
        fs::write(dir.path().join(format!("gemini-{me}-4204.json")), body(4204)).unwrap();
        let files = live_companions(&[dir.path().to_path_buf()]);
        assert_eq!(files.len(), 1, "{files:?}");
        let f = &files[0];
        assert_eq!((f.port, f.pid, f.ide_name.as_str(), f.auth_token.as_str()), (4200, me, "VS Code", "t"));
        if cfg!(unix) {
            assert_eq!(f.workspace_folders, ["/w/a", "/w/b"]);
            assert_eq!(choose(&files, Path::new("/w/b/src")).map(|f| f.port), Some(4200));
        }
        assert_eq!(choose(&files, Path::new("/elsewhere")), None);
        assert_eq!(f.url(), "http://127.0.0.1:4200/mcp");
    }
}
