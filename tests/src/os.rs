//! What tests do differently per OS: symbolic links, permission bits, stopping a process.
//!
//! Tests about symbolic links are marked `#[cfg_attr(windows, ignore = WINE_SYMLINKS)]`: wine
//! (where the Windows builds are tested here) shows a link as its target, so nothing about links
//! can be observed there; on real Windows run them with `--include-ignored`.

use std::io;
use std::path::Path;

/// A symbolic link at `link` to `target` (Windows: a directory link if `target` is a directory
/// now, else a file link).
pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (target, link) = (target.as_ref(), link.as_ref());
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(windows)]
    {
        let resolved = match link.parent() {
            Some(parent) if !target.is_absolute() => parent.join(target),
            _ => target.to_path_buf(),
        };
        if resolved.is_dir() {
            std::os::windows::fs::symlink_dir(target, link)
        } else {
            std::os::windows::fs::symlink_file(target, link)
        }
    }
}

/// Gives the file `path` the permission bits `mode` (Windows: read-only unless `0o200` is set).
pub fn set_mode(path: impl AsRef<Path>, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(windows)]
    {
        let mut permissions = std::fs::metadata(path.as_ref())?.permissions();
        permissions.set_readonly(mode & 0o200 == 0);
        std::fs::set_permissions(path, permissions)
    }
}

/// The permission bits of `path` (Unix: `mode & 0o7777`; Windows: `0o444` if read-only, else
/// `0o644`).
pub fn mode(path: impl AsRef<Path>) -> io::Result<u32> {
    let md = std::fs::metadata(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        Ok(md.permissions().mode() & 0o7777)
    }
    #[cfg(windows)]
    {
        Ok(if md.permissions().readonly() { 0o444 } else { 0o644 })
    }
}

/// Why tests about symbolic links do not run on Windows here (see the module docs).
pub const WINE_SYMLINKS: &str = "wine shows a symbolic link as its target: on Windows, run with --include-ignored";
