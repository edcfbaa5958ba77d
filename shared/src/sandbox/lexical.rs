//! Pure, filesystem-free helpers: validation and lexical normalisation.

use std::path::{Component, Path, PathBuf, Prefix};

use super::SandboxError;
use crate::platform;

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
    let mut components = Path::new(path).components().peekable();
    while let Some(component) = components.next() {
        match component {
            // Windows only: what `C:`, `\\server\share`, `\\?\` and `\\.\` mean there.
            Component::Prefix(prefix) => match prefix.kind() {
                Prefix::Disk(_) | Prefix::VerbatimDisk(_) if components.peek() != Some(&Component::RootDir) => {
                    return Err(SandboxError::invalid(
                        path,
                        "a drive-relative path (`C:file`) depends on that drive's current directory; write the \
                         full path (`C:\\dir\\file`) or one relative to the root",
                    ));
                }
                Prefix::Disk(_) | Prefix::VerbatimDisk(_) | Prefix::UNC(..) | Prefix::VerbatimUNC(..) => {}
                Prefix::DeviceNS(_) | Prefix::Verbatim(_) => {
                    return Err(SandboxError::invalid(
                        path,
                        "a device path (`\\\\.\\…`, `\\\\?\\…` without a drive) names no file; use a path of a file",
                    ));
                }
            },
            Component::Normal(name) => {
                if let Some(reason) = name.to_str().and_then(platform::refused_name) {
                    return Err(SandboxError::invalid(path, reason));
                }
            }
            Component::RootDir | Component::CurDir | Component::ParentDir => {}
        }
    }
    Ok(())
}

/// Checks that `name` is exactly one normal path component.
pub(super) fn check_name(name: &str, shown: &str) -> Result<(), SandboxError> {
    check_user_path(name).map_err(|_| SandboxError::invalid(shown, "the name is empty or contains a NUL byte"))?;
    if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) || name == "." || name == ".." {
        return Err(SandboxError::invalid(shown, "a name must be one path component (no '/', not '.' or '..')"));
    }
    if let Some(reason) = platform::refused_name(name) {
        return Err(SandboxError::invalid(shown, reason));
    }
    Ok(())
}

/// Lexically normalises an absolute path: drops `.`, applies `..` (which stays
/// at the top: `/`, or `C:\` on Windows), keeps everything else. A Windows
/// verbatim prefix (`\\?\C:`, `\\?\UNC\server\share`) becomes the plain one
/// (`C:`, `\\server\share`). Touches no filesystem.
pub(super) fn normalize_abs(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    let mut names = 0usize;
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => match prefix.kind() {
                Prefix::VerbatimDisk(drive) | Prefix::Disk(drive) => out.push(format!("{}:", char::from(drive))),
                Prefix::VerbatimUNC(server, share) | Prefix::UNC(server, share) => {
                    let mut unc = std::ffi::OsString::from(r"\\");
                    unc.push(server);
                    unc.push(r"\");
                    unc.push(share);
                    out.push(unc);
                }
                Prefix::Verbatim(_) | Prefix::DeviceNS(_) => out.push(prefix.as_os_str()),
            },
            Component::RootDir => out.push(std::path::MAIN_SEPARATOR_STR),
            Component::CurDir => {}
            Component::ParentDir => {
                if names > 0 {
                    out.pop();
                    names -= 1;
                }
            }
            Component::Normal(name) => {
                out.push(name);
                names += 1;
            }
        }
    }
    if !out.has_root() {
        out.push(std::path::MAIN_SEPARATOR_STR);
    }
    out
}

/// `path` without its first components `base`, compared as the OS compares names
/// ([`platform::same_name`]: case-insensitive on Windows); `None` if `base` is not a prefix.
/// Both are lexically normal (see [`normalize_abs`]).
pub(super) fn strip_base(path: &Path, base: &Path) -> Option<PathBuf> {
    let mut rest = path.components();
    for want in base.components() {
        let got = rest.next()?;
        let same = match (got, want) {
            (Component::Normal(a), Component::Normal(b)) => platform::same_name(a, b),
            (Component::Prefix(a), Component::Prefix(b)) => {
                platform::same_name(a.as_os_str(), b.as_os_str()) || a.kind() == b.kind()
            }
            (a, b) => a == b,
        };
        if !same {
            return None;
        }
    }
    Some(rest.as_path().to_path_buf())
}

/// A file name (or relative path) as a listing shows it: as it is when it is UTF-8 without
/// control characters and without a space at either end; otherwise in double quotes with
/// `\n`, `\t`, `\u{..}` and, for bytes that are not UTF-8, `\xNN` escapes. So a name holding a
/// newline cannot pose as several entries of the listing, a name of spaces is seen, and a name
/// that is not UTF-8 is shown, not left out.
pub fn shown_name(name: &std::ffi::OsStr) -> std::borrow::Cow<'_, str> {
    if let Some(text) = name.to_str()
        && !text.chars().any(needs_escape)
        && !text.starts_with(char::is_whitespace)
        && !text.ends_with(char::is_whitespace)
    {
        return text.into();
    }
    let mut out = String::from("\"");
    for chunk in name.as_encoded_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if needs_escape(c) => out.extend(c.escape_default()),
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out.into()
}

/// Whether a listing escapes `c`: what [`crate::escape`] hides (control characters, the Unicode
/// line and paragraph separators, the bidirectional controls that would reorder a name).
fn needs_escape(c: char) -> bool {
    crate::escape::is_hidden(c)
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
    fn odd_names_are_shown_escaped_on_one_line() {
        use std::ffi::OsStr;
        assert_eq!(shown_name(OsStr::new("plain name é.txt")), "plain name é.txt");
        assert_eq!(shown_name(OsStr::new(" ")), "\" \"");
        assert_eq!(shown_name(OsStr::new("a ")), "\"a \"");
        assert_eq!(
            shown_name(OsStr::new("notes.txt (12 B)\n  id_rsa (1.7 KB)")),
            "\"notes.txt (12 B)\\n  id_rsa (1.7 KB)\""
        );
        assert_eq!(shown_name(OsStr::new("a\tb\"\\\u{2028}")), "\"a\\tb\\\"\\\\\\u{2028}\"");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt as _;
            assert_eq!(shown_name(OsStr::from_bytes(b"caf\xe9.txt")), "\"caf\\xe9.txt\"");
        }
    }

    #[test]
    fn strip_base_is_component_wise() {
        assert_eq!(strip_base(Path::new("/a/b/c"), Path::new("/a")), Some(PathBuf::from("b/c")));
        assert_eq!(strip_base(Path::new("/a"), Path::new("/a")), Some(PathBuf::new()));
        assert_eq!(strip_base(Path::new("/ab/c"), Path::new("/a")), None);
        assert_eq!(strip_base(Path::new("/"), Path::new("/a")), None);
    }

    #[cfg(windows)]
    #[test]
    fn windows_paths() {
        assert_eq!(normalize_abs(Path::new(r"\\?\C:\a\..\b")), Path::new(r"C:\b"));
        assert_eq!(normalize_abs(Path::new(r"c:\x\..\..\y")), Path::new(r"C:\y"));
        assert_eq!(normalize_abs(Path::new(r"\\srv\share\a")), Path::new(r"\\srv\share\a"));
        assert_eq!(strip_base(Path::new(r"c:\Work\A.txt"), Path::new(r"C:\work")), Some(PathBuf::from("A.txt")));
        for bad in [r"C:a.txt", r"\\.\PhysicalDrive0", r"\\?\GLOBALROOT\x", "a.txt:s", r"d\CON", "x. ", "nul.txt"] {
            assert!(check_user_path(bad).is_err(), "{bad}");
        }
        for good in [r"C:\a.txt", r"..\a.txt", "a/b.txt", r"\\srv\share\a"] {
            assert!(check_user_path(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn sandbox_check_name() {
        assert!(check_name("a.rs", "x").is_ok());
        for bad in ["", "a/b", ".", "..", "a\0b"] {
            assert!(check_name(bad, "x").is_err(), "{bad:?}");
        }
    }
}
