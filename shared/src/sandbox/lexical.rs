//! Pure, filesystem-free helpers: validation and lexical normalisation.

use std::path::{Component, Path, PathBuf};

use super::SandboxError;

/// Marker in the names of the temporary files of atomic writes (`.name.mcp-tmp-<random>`).
pub const TEMP_MARKER: &str = ".mcp-tmp-";

/// Refuses an empty path or one with a NUL byte.
pub(super) fn check_user_path(path: &str) -> Result<(), SandboxError> {
    if path.is_empty() {
        return Err(SandboxError::invalid(
            path,
            "the path is empty; pass a file or directory path (\".\" for the root)",
        ));
    }
    if path.contains('\0') {
        return Err(SandboxError::invalid(path, "the path contains a NUL byte; remove it"));
    }
    Ok(())
}

/// Checks that `name` is exactly one normal path component.
pub(super) fn check_name(name: &str, shown: &str) -> Result<(), SandboxError> {
    check_user_path(name).map_err(|_| SandboxError::invalid(shown, "the name is empty or contains a NUL byte"))?;
    if name.contains('/') || name == "." || name == ".." {
        return Err(SandboxError::invalid(shown, "a name must be one path component (no '/', not '.' or '..')"));
    }
    Ok(())
}

/// Lexically normalises an absolute path: drops `.`, applies `..` (which stays
/// at `/` at the top), keeps everything else. Touches no filesystem.
pub(super) fn normalize_abs(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

/// Whether `name` is the name of one of our temporary files (never listed).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMP_MARKER)
}

/// Whether `name` is hidden (dot-file).
pub(super) fn is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_normalize_abs() {
        assert_eq!(normalize_abs(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(normalize_abs(Path::new("/../../a")), Path::new("/a"));
        assert_eq!(normalize_abs(Path::new("/a/b/")), Path::new("/a/b"));
    }

    #[test]
    fn sandbox_check_name() {
        assert!(check_name("a.rs", "x").is_ok());
        for bad in ["", "a/b", ".", "..", "a\0b"] {
            assert!(check_name(bad, "x").is_err(), "{bad:?}");
        }
    }
}
