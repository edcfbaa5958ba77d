//! Where a journal may live: a place private to this user and outside every root (compared
//! with links resolved), its directories made 0700 and its files 0600; and the small file
//! helpers the log uses.

use std::{
    fs::File,
    io,
    path::{Path, PathBuf},
};

/// Why `dir` cannot hold the journal of `roots` (`None`: it can; its directories are made).
pub(super) fn place_problem(dir: &Path, roots: &[PathBuf]) -> Option<String> {
    let canonical = canonical_as_far_as_exists(dir);
    if let Some(root) = roots.iter().find(|root| canonical.starts_with(root) || dir.starts_with(root)) {
        return Some(format!(
            "its place, {}, is inside the workspace root {} (the agent could edit it); start the server with --journal-dir DIR outside the workspace",
            dir.display(),
            root.display()
        ));
    }
    if let Err(error) = create_private_dirs(dir) {
        return Some(format!("its place, {}, could not be made ({error})", dir.display()));
    }
    mcp_shared::platform::private_dir_problem(dir)
        .map(|why| format!("its place is not private to this user: {why}; give --journal-dir a directory of your own"))
}

/// `path` with its longest existing ancestor canonical (links resolved), the rest as written.
pub(super) fn canonical_as_far_as_exists(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = mcp_shared::platform::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, name| p.join(name));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Why the journal's file `path`, open as `file`, is not private (`None`: it is).
pub(super) fn file_problem(path: &Path, file: &File) -> Option<String> {
    let md = match file.metadata() {
        Ok(md) => md,
        Err(error) => return Some(format!("{} cannot be read ({error})", path.display())),
    };
    mcp_shared::platform::private_file_problem(&md).map(|why| {
        format!("{} is not private to this user ({why}); give --journal-dir a directory of your own", path.display())
    })
}

/// Makes `dir` and its missing parents private to this user (0700), and tightens `dir` itself
/// (the journal's own directory) when it is this user's and looser.
pub(super) fn create_private_dirs(dir: &Path) -> io::Result<()> {
    if !dir.is_dir()
        && let Some(parent) = dir.parent()
        && !parent.is_dir()
    {
        create_private_dirs(parent)?;
    }
    mcp_shared::platform::create_private_dir(dir)
}

/// Opens (creating, 0600) a file for reading and appending.
pub(super) fn open_private(path: &Path, truncate: bool) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(truncate);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(path)
}

pub(super) fn file_id_of_path(path: &Path) -> Option<mcp_shared::platform::FileId> {
    File::open(path).ok().and_then(|f| mcp_shared::platform::file_id_of(&f).ok())
}
