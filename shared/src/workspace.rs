//! The default workspace: what a server confines itself to when its directory flag (`--root`,
//! `--repo`) is absent.
//!
//! Clients start stdio servers wherever they like (Claude Desktop uses `/`), and people paste a
//! config without the optional flags. Taking the working directory as the workspace would then
//! make the sandbox the whole file system. The rule, the same for every server:
//!
//! 1. The flag, when given, is the workspace, whatever it is: `--root /` stays possible (inside a
//!    container that is a real choice) and is logged as such ([`Startup::log`]).
//! 2. Without the flag, the client's MCP roots when it declares them (each server applies this
//!    per session: only the server knows what a root means for it).
//! 3. Otherwise the working directory, **only if** it is a plausible project
//!    ([`not_a_project`] says why not).
//! 4. Otherwise **no** workspace: the server still starts and lists its tools (so the host shows
//!    it), says so in its `instructions` ([`no_workspace_instructions`]) and once on stderr, and
//!    answers every tool call with an `isError` result ([`no_workspace_message`]) that tells the
//!    person which flag to add to the client config. Nothing is read or written.
//!
//! **What is not a project** (the working directory is then not taken):
//! - the file system's root (`/`, `C:\`);
//! - the user's home directory, any directory above it (`/home`, `/Users`) and anything inside one
//!   of its hidden directories (`~/.ssh`, `~/.config`: credentials and settings, never a project);
//! - directories that hold projects but are none themselves ([`CONTAINER_DIRS`]: `/tmp`, `/usr`,
//!   `/var`, `/opt`, `/srv`, `/mnt`, …), so `/srv/blog`, `/opt/app` or `/usr/src/app` (a common
//!   container `WORKDIR`) still are;
//! - system trees, the directory and everything below it ([`SYSTEM_TREES`]: `/etc`, `/bin`,
//!   `/usr/bin`, `/usr/lib`, `/var/lib`, `/proc`, `/sys`, `/System`, `/Library`, `C:\Windows`,
//!   `C:\Program Files`, …).
//!
//! Everything else is taken: a project needs no marker file, so a fresh empty folder works.

use std::{
    borrow::Cow,
    path::{Path, PathBuf},
};

use crate::ErrorCode;

/// The code of every tool call refused for want of a workspace: the server cannot serve until the
/// person changes its configuration (or the client declares roots), whatever the call.
pub const NO_WORKSPACE_CODE: ErrorCode = ErrorCode::Unavailable;

/// Directories that hold projects but are not one themselves (compared exactly). Unix and macOS
/// paths; Windows ones are in [`WINDOWS_CONTAINER_DIRS`].
pub const CONTAINER_DIRS: &[&str] = &[
    "/",
    "/home",
    "/Users",
    "/root",
    "/tmp",
    "/var",
    "/var/tmp",
    "/var/www",
    "/usr",
    "/usr/local",
    "/usr/src",
    "/usr/local/src",
    "/opt",
    "/srv",
    "/mnt",
    "/media",
    "/private",
    "/private/tmp",
    "/private/var",
    "/Volumes",
    "/Applications",
];

/// System trees: neither the directory nor anything below it is a project. Unix and macOS paths;
/// Windows ones are in [`WINDOWS_SYSTEM_TREES`].
pub const SYSTEM_TREES: &[&str] = &[
    "/bin",
    "/sbin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/proc",
    "/run",
    "/sys",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/include",
    "/usr/share",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/local/lib",
    "/usr/local/etc",
    "/usr/local/share",
    "/usr/local/include",
    "/var/lib",
    "/var/log",
    "/var/cache",
    "/var/spool",
    "/var/run",
    "/var/mail",
    "/var/db",
    "/System",
    "/Library",
    "/private/etc",
    "/private/var/db",
];

/// Windows directories that hold projects but are none (compared without regard to case, with
/// either slash).
pub const WINDOWS_CONTAINER_DIRS: &[&str] = &[r"C:\", r"C:\Users", r"C:\Users\Public"];

/// Windows system trees (compared without regard to case, with either slash).
pub const WINDOWS_SYSTEM_TREES: &[&str] =
    &[r"C:\Windows", r"C:\Program Files", r"C:\Program Files (x86)", r"C:\ProgramData", r"C:\$Recycle.Bin"];

/// Why a directory is not taken as a project by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAProject {
    /// `/` (or a drive's root).
    FileSystemRoot,
    /// The user's home directory.
    Home,
    /// A directory above the home directory (`/home`, `/Users`).
    AboveHome,
    /// Inside one of the home directory's hidden directories (`~/.ssh`, `~/.config`).
    HomeSettings,
    /// A directory that holds projects but is none (`/tmp`, `/usr`, `/srv`).
    Container,
    /// A system directory or something below one (`/etc`, `/usr/lib`, `C:\Windows`).
    System,
}

impl NotAProject {
    /// What it is, for a log line or a message: "the file system's root", "the home directory", ….
    pub fn describe(self) -> &'static str {
        match self {
            NotAProject::FileSystemRoot => "the file system's root",
            NotAProject::Home => "the home directory",
            NotAProject::AboveHome => "a directory above the home directory",
            NotAProject::HomeSettings => "a hidden settings directory of the home directory",
            NotAProject::Container => "a directory that holds projects but is none",
            NotAProject::System => "a system directory",
        }
    }
}

impl std::fmt::Display for NotAProject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

/// Why `dir` is not a plausible project directory, or `None` when it is one (see the module docs
/// for the list). `dir` and `home` are compared as given and, when they exist, canonicalized, so
/// a symlink to `/etc` is `/etc`.
pub fn not_a_project(dir: &Path, home: Option<&Path>) -> Option<NotAProject> {
    let canonical = std::fs::canonicalize(dir).ok();
    let home_canonical = home.and_then(|h| std::fs::canonicalize(h).ok());
    let homes: Vec<&Path> = home.into_iter().chain(home_canonical.as_deref()).collect();
    std::iter::once(dir).chain(canonical.as_deref()).find_map(|d| classify(d, &homes, cfg!(windows)))
}

/// Whether `dir` is a plausible project directory ([`not_a_project`] is `None`).
pub fn is_plausible_project(dir: &Path, home: Option<&Path>) -> bool {
    not_a_project(dir, home).is_none()
}

/// The pure rule over one spelling of the directory; `windows` selects the Windows lists and
/// case-insensitive comparison (a parameter so both are tested everywhere).
fn classify(dir: &Path, homes: &[&Path], windows: bool) -> Option<NotAProject> {
    let dir = normalize(dir, windows);
    if dir.is_empty() || dir == "/" || (windows && is_drive_root(&dir)) {
        return Some(NotAProject::FileSystemRoot);
    }
    for home in homes {
        let home = normalize(home, windows);
        if home.is_empty() || home == "/" {
            continue;
        }
        if dir == home {
            return Some(NotAProject::Home);
        }
        if is_below(&home, &dir) {
            return Some(NotAProject::AboveHome);
        }
        if let Some(rest) = below(&dir, &home)
            && rest.starts_with('.')
        {
            return Some(NotAProject::HomeSettings);
        }
    }
    let (containers, systems) =
        if windows { (WINDOWS_CONTAINER_DIRS, WINDOWS_SYSTEM_TREES) } else { (CONTAINER_DIRS, SYSTEM_TREES) };
    // The Unix lists are written normalized (a test checks it): comparing them as they are saves
    // a cold start with no flag some fifty allocations before its first answer.
    let listed = |entry: &'static str| -> Cow<'static, str> {
        if windows { Cow::Owned(normalize(Path::new(entry), true)) } else { Cow::Borrowed(entry) }
    };
    if systems.iter().any(|s| {
        let system = listed(s);
        dir == system || is_below(&dir, &system)
    }) {
        return Some(NotAProject::System);
    }
    if containers.iter().any(|c| dir == listed(c)) {
        return Some(NotAProject::Container);
    }
    None
}

/// `path` lexically cleaned (`.` and repeated or final separators dropped, `..` applied), with
/// `/` separators, lower-cased on Windows.
fn normalize(path: &Path, windows: bool) -> String {
    let text = path.to_string_lossy();
    let text = if windows { text.replace('\\', "/").to_lowercase() } else { text.into_owned() };
    let mut parts: Vec<&str> = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if windows && parts.first().is_some_and(|p| is_drive(p)) {
        let mut out = parts.join("/");
        if parts.len() == 1 {
            out.push('/');
        }
        return out;
    }
    format!("/{}", parts.join("/"))
}

fn is_drive(part: &str) -> bool {
    let bytes = part.as_bytes();
    bytes.len() == 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

fn is_drive_root(normalized: &str) -> bool {
    normalized.len() == 3 && normalized.ends_with(":/")
}

/// The part of `path` below `ancestor`, when `path` is strictly below it (component-wise).
fn below<'a>(path: &'a str, ancestor: &str) -> Option<&'a str> {
    let rest = path.strip_prefix(ancestor)?;
    if ancestor.ends_with('/') {
        return (!rest.is_empty()).then_some(rest);
    }
    rest.strip_prefix('/').filter(|r| !r.is_empty())
}

fn is_below(path: &str, ancestor: &str) -> bool {
    below(path, ancestor).is_some()
}

/// The user's home directory, for [`decide`] and [`not_a_project`] (read once by `main`).
pub fn home_dir() -> Option<PathBuf> {
    std::env::home_dir().filter(|h| !h.as_os_str().is_empty())
}

/// What a server's directory flag is called and how a client config passes it, for the messages.
#[derive(Debug, Clone, Copy)]
pub struct DirectoryFlag<'a> {
    /// The binary's name (`mcp-server-text-editor`).
    pub server: &'a str,
    /// The flag (`--root`).
    pub flag: &'a str,
    /// What the directory is, in a sentence: "project directory", "blog repository".
    pub what: &'a str,
    /// An example value (`/path/to/project`).
    pub example: &'a str,
}

impl DirectoryFlag<'_> {
    /// The client-config snippet that fixes it:
    /// `{"command": "mcp-server-text-editor", "args": ["--root", "/path/to/project"]}`.
    pub fn config_snippet(&self) -> String {
        format!(r#"{{"command": "{}", "args": ["{}", "{}"]}}"#, self.server, self.flag, self.example)
    }
}

/// The workspace a server starts with, decided by [`decide`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Startup {
    /// The flag was given: these directories, whatever they are.
    Explicit(Vec<PathBuf>),
    /// No flag, and the working directory is a plausible project: it is the workspace unless the
    /// client declares roots.
    WorkingDirectory(PathBuf),
    /// No flag, and the working directory is not a project (or unknown): only the client's roots
    /// can give a workspace.
    None {
        /// The working directory, if it could be read (for the log only: messages never show it).
        cwd: Option<PathBuf>,
        /// Why it was not taken (`None`: it could not be read).
        reason: Option<NotAProject>,
    },
}

impl Startup {
    /// The directories to confine to before any client roots: the flag's, the working directory,
    /// or none.
    pub fn dirs(&self) -> Vec<PathBuf> {
        match self {
            Startup::Explicit(dirs) => dirs.clone(),
            Startup::WorkingDirectory(dir) => vec![dir.clone()],
            Startup::None { .. } => Vec::new(),
        }
    }

    /// Says once on stderr what was decided: an explicit directory that is not a project (such as
    /// `--root /`) as a deliberate choice, the default working directory, or no workspace.
    pub fn log(&self, flag: &DirectoryFlag<'_>, home: Option<&Path>) {
        match self {
            Startup::Explicit(dirs) => {
                for dir in dirs {
                    if let Some(reason) = not_a_project(dir, home) {
                        tracing::warn!(
                            "{} {} was given explicitly: serving {} ({reason}) as the workspace",
                            flag.flag,
                            dir.display(),
                            dir.display()
                        );
                    }
                }
            }
            Startup::WorkingDirectory(dir) => tracing::info!(
                "no {}: the workspace is the working directory {}, unless the client declares roots",
                flag.flag,
                dir.display()
            ),
            Startup::None { cwd, reason } => {
                let (cwd, why) = match (cwd, reason) {
                    (Some(cwd), Some(reason)) => (cwd.display().to_string(), reason.describe()),
                    _ => ("an unreadable working directory".to_owned(), "unknown"),
                };
                tracing::warn!(
                    "no workspace: started without {} in {cwd} ({why}, not a project); every tool call is refused \
                     unless the client declares MCP roots. Add {} to the client config: {}",
                    flag.flag,
                    flag.flag,
                    flag.config_snippet()
                );
            }
        }
    }
}

/// Decides the start-up workspace from the flag's values (empty: absent), the working directory
/// and the home directory (both read by `main`, passed in so tests choose them).
pub fn decide(explicit: Vec<PathBuf>, cwd: std::io::Result<PathBuf>, home: Option<&Path>) -> Startup {
    if !explicit.is_empty() {
        return Startup::Explicit(explicit);
    }
    match cwd {
        Ok(cwd) => match not_a_project(&cwd, home) {
            None => Startup::WorkingDirectory(cwd),
            Some(reason) => Startup::None { cwd: Some(cwd), reason: Some(reason) },
        },
        Err(_) => Startup::None { cwd: None, reason: None },
    }
}

/// The message of every tool call made without a workspace: what happened, that nothing was read
/// or written, and the flag to add with the client-config snippet's shape. It never shows the
/// working directory (a host path the caller did not send).
pub fn no_workspace_message(flag: &DirectoryFlag<'_>) -> String {
    format!(
        "No workspace: {server} was started without {flag} in a directory that is not a project (such as / or \
         the home directory), and the client declared no MCP roots, so nothing was read or written. Ask the user \
         to add the {what} to this server's arguments in the client configuration, e.g. {snippet}, or to open a \
         folder in a client that declares MCP roots.",
        server = flag.server,
        flag = flag.flag,
        what = flag.what,
        snippet = flag.config_snippet(),
    )
}

/// The sentence a server puts in its `instructions` when it starts without a workspace (the
/// client may still declare roots after `initialize`, hence "unless").
pub fn no_workspace_instructions(flag: &DirectoryFlag<'_>) -> String {
    format!(
        "This server has no workspace unless the client declares MCP roots: it was started without {flag} \
         outside any project, so every tool call is refused and nothing is read or written. Tell the user to add \
         the {what} to this server's arguments in the client configuration, e.g. {snippet}.",
        flag = flag.flag,
        what = flag.what,
        snippet = flag.config_snippet(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unix(dir: &str, home: &str) -> Option<NotAProject> {
        classify(Path::new(dir), &[Path::new(home)], false)
    }

    #[test]
    fn the_unix_lists_are_written_normalized() {
        for entry in CONTAINER_DIRS.iter().chain(SYSTEM_TREES) {
            assert_eq!(normalize(Path::new(entry), false), *entry, "write {entry:?} normalized");
        }
    }

    #[test]
    fn the_root_home_and_system_directories_are_not_projects() {
        let home = "/home/someone";
        let cases = [
            ("/", NotAProject::FileSystemRoot),
            ("/home/someone", NotAProject::Home),
            ("/home/someone/", NotAProject::Home),
            ("/home", NotAProject::AboveHome),
            ("/home/someone/.ssh", NotAProject::HomeSettings),
            ("/home/someone/.config/app", NotAProject::HomeSettings),
            ("/etc", NotAProject::System),
            ("/etc/nginx", NotAProject::System),
            ("/proc/self", NotAProject::System),
            ("/usr/lib/x", NotAProject::System),
            ("/usr/local/share/doc", NotAProject::System),
            ("/System/Library", NotAProject::System),
            ("/usr", NotAProject::Container),
            ("/tmp", NotAProject::Container),
            ("/var", NotAProject::Container),
            ("/Users", NotAProject::Container),
            ("/tmp/../etc", NotAProject::System),
        ];
        for (dir, want) in cases {
            assert_eq!(unix(dir, home), Some(want), "{dir}");
        }
    }

    #[test]
    fn project_directories_are_taken() {
        for dir in ["/home/someone/blog", "/work/main", "/tmp/x", "/srv/blog", "/opt/app", "/usr/src/app", "/app"] {
            assert_eq!(unix(dir, "/home/someone"), None, "{dir}");
        }
        // a home of `/` (some containers) does not make every directory a home
        assert_eq!(unix("/work", "/"), None);
        // a sibling whose name starts with the home's is not inside it
        assert_eq!(unix("/home/someone2/.x", "/home/someone"), None);
    }

    #[test]
    fn windows_paths_are_compared_without_case() {
        let home = Path::new(r"C:\Users\me");
        let win = |d: &str| classify(Path::new(d), &[home], true);
        assert_eq!(win(r"C:\"), Some(NotAProject::FileSystemRoot));
        assert_eq!(win(r"d:\"), Some(NotAProject::FileSystemRoot));
        assert_eq!(win(r"c:\windows\System32"), Some(NotAProject::System));
        assert_eq!(win(r"C:\Program Files\App"), Some(NotAProject::System));
        assert_eq!(win(r"c:\users\ME"), Some(NotAProject::Home));
        assert_eq!(win(r"C:\Users"), Some(NotAProject::AboveHome));
        assert_eq!(win(r"C:\Users\me\code\blog"), None);
        assert_eq!(win(r"D:\projects\x"), None);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_judged_by_their_target() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("etc-link");
        std::os::unix::fs::symlink("/etc", &link).unwrap();
        assert_eq!(not_a_project(&link, None), Some(NotAProject::System));
        assert_eq!(not_a_project(dir.path(), None), None);
    }

    #[test]
    fn the_flag_wins_then_a_project_working_directory_then_nothing() {
        let home = Some(Path::new("/home/someone"));
        let explicit = decide(vec![PathBuf::from("/")], Ok(PathBuf::from("/")), home);
        assert_eq!(explicit, Startup::Explicit(vec![PathBuf::from("/")]));
        assert_eq!(explicit.dirs(), vec![PathBuf::from("/")]);
        let project = decide(Vec::new(), Ok(PathBuf::from("/work/p")), home);
        assert_eq!(project, Startup::WorkingDirectory(PathBuf::from("/work/p")));
        let none = decide(Vec::new(), Ok(PathBuf::from("/")), home);
        assert_eq!(none, Startup::None { cwd: Some(PathBuf::from("/")), reason: Some(NotAProject::FileSystemRoot) });
        assert!(none.dirs().is_empty());
        let gone = decide(Vec::new(), Err(std::io::Error::other("deleted")), home);
        assert_eq!(gone, Startup::None { cwd: None, reason: None });
    }

    #[test]
    fn the_messages_name_the_flag_and_the_config_shape() {
        let flag =
            DirectoryFlag { server: "mcp-server-x", flag: "--root", what: "project directory", example: "/path/to/p" };
        let message = no_workspace_message(&flag);
        assert!(message.contains(r#"{"command": "mcp-server-x", "args": ["--root", "/path/to/p"]}"#), "{message}");
        assert!(message.contains("nothing was read or written"), "{message}");
        assert!(no_workspace_instructions(&flag).contains("--root"));
    }
}
