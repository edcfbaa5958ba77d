//! Windows: identity is the volume serial number and the file index (as
//! `GetFileInformationByHandle` reports them); the only permission bit is read-only.

use std::io;

use cap_std::fs::{Dir, OpenOptions};

use super::FileId;

pub(super) fn file_id(md: &cap_std::fs::Metadata) -> Option<FileId> {
    // cap-std takes a path's metadata through a handle on Windows, so both are there.
    use cap_primitives::fs::_WindowsByHandle as _;
    Some(FileId { volume: u64::from(md.volume_serial_number()?), index: md.file_index()? })
}

pub(super) fn file_id_of(file: &std::fs::File) -> io::Result<FileId> {
    let info = winapi_util::file::information(file)?;
    Ok(FileId { volume: info.volume_serial_number(), index: info.file_index() })
}

pub(super) fn change_time(_md: &std::fs::Metadata) -> Option<(i64, i64)> {
    None
}

pub(super) fn link_count(file: &std::fs::File) -> io::Result<u64> {
    Ok(winapi_util::file::information(file)?.number_of_links())
}

fn bits(read_only: bool) -> u32 {
    if read_only { 0o444 } else { 0o644 }
}

pub(super) fn permission_bits(md: &cap_std::fs::Metadata) -> u32 {
    bits(md.permissions().readonly())
}

pub(super) fn std_permission_bits(md: &std::fs::Metadata) -> u32 {
    bits(md.permissions().readonly())
}

pub(super) fn set_permission_bits(file: &std::fs::File, mode: u32) -> io::Result<()> {
    let mut permissions = file.metadata()?.permissions();
    permissions.set_readonly(mode & 0o200 == 0);
    file.set_permissions(permissions)
}

pub(super) fn create_mode(_options: &mut OpenOptions, _mode: u32) {}

pub(super) fn never_block(_options: &mut OpenOptions) {}

pub(super) fn sync_dir(_dir: &Dir) -> io::Result<()> {
    Ok(())
}

pub(super) fn is_pseudo_file(_file: &std::fs::File) -> bool {
    false
}

/// Device names Windows reserves in every directory (also with an extension: `nul.txt`).
const RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7",
    "COM8", "COM9", "COM¹", "COM²", "COM³", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8",
    "LPT9", "LPT¹", "LPT²", "LPT³",
];

pub(super) fn path_of_file_uri(decoded: &str) -> Option<std::path::PathBuf> {
    // `/C:/Users/a` (or `/c:` with a lower-case drive, or `/C|/` from old clients).
    let rest = decoded.strip_prefix('/')?;
    let bytes = rest.as_bytes();
    let drive = bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && matches!(bytes.get(1), Some(b':' | b'|'))
        && matches!(bytes.get(2), None | Some(b'/'));
    if !drive {
        return None;
    }
    let tail = rest.get(2..).unwrap_or("");
    let tail = if tail.is_empty() { "/" } else { tail };
    Some(std::path::PathBuf::from(format!("{}:{}", &rest[..1], tail.replace('/', "\\"))))
}

pub(super) fn refused_name(name: &str) -> Option<&'static str> {
    if name.contains(':') {
        return Some(
            "a `:` in a file name names an alternate data stream (or a drive) on Windows, not a file; remove it",
        );
    }
    if name.chars().any(|c| matches!(c, '<' | '>' | '"' | '|' | '?' | '*') || c < ' ') {
        return Some("Windows does not allow the characters < > \" | ? * or control characters in a file name");
    }
    if name != "." && name != ".." && (name.ends_with('.') || name.ends_with(' ')) {
        return Some(
            "Windows drops a trailing dot or space from a file name, so this would name another file; remove it",
        );
    }
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem) || stem.to_uppercase() == *r) {
        return Some(
            "it is a device name Windows reserves in every directory (CON, NUL, COM1, …); choose another name",
        );
    }
    None
}

pub(super) fn same_name(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    match (a.to_str(), b.to_str()) {
        (Some(a), Some(b)) => a == b || a.to_lowercase() == b.to_lowercase(),
        _ => a == b,
    }
}

pub(super) fn canonicalize(path: &std::path::Path) -> io::Result<std::path::PathBuf> {
    dunce::canonicalize(path)
}

pub(super) fn user_tag() -> String {
    let name = std::env::var("USERNAME").unwrap_or_default();
    let tag: String = name.chars().filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.')).collect();
    if tag.is_empty() { "user".to_owned() } else { tag }
}

pub(super) fn is_mine(_md: &std::fs::Metadata) -> bool {
    true
}

pub(super) fn create_private_dir(dir: &std::path::Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

pub(super) fn private_dir_problem(dir: &std::path::Path) -> Option<String> {
    match std::fs::symlink_metadata(dir) {
        Ok(md) if md.is_dir() => None,
        Ok(_) => Some(format!("{} is not a directory", dir.display())),
        Err(e) => Some(format!("{} cannot be read ({e})", dir.display())),
    }
}

pub(super) fn private_file_problem(md: &std::fs::Metadata) -> Option<String> {
    (!md.is_file()).then(|| "not a regular file".to_owned())
}

pub(super) fn state_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("LOCALAPPDATA").map(std::path::PathBuf::from).filter(|dir| !dir.as_os_str().is_empty())
}

/// `OpenProcess` + `GetExitCodeProcess`: the process exists and has not exited. The only
/// `unsafe` of the suite: two Win32 calls with a handle that is closed before returning.
#[allow(unsafe_code)]
pub(super) fn process_alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
    use windows_sys::Win32::System::Threading::{GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};
    // SAFETY: OpenProcess takes plain values and returns a handle or null; the handle is used
    // once and closed here; `code` outlives the call that writes it.
    unsafe {
        let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if handle.is_null() {
            return false;
        }
        let mut code = 0u32;
        let ok = GetExitCodeProcess(handle, &mut code) != 0;
        CloseHandle(handle);
        ok && code == STILL_ACTIVE as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_windows_would_reinterpret_are_refused() {
        for bad in [
            "a.txt:stream",
            "C:",
            "CON",
            "con",
            "nul.txt",
            "COM1",
            "lpt9.log",
            "COM¹",
            "CON .txt",
            "a.",
            "a ",
            "a?",
            "a*b",
            "a|b",
            "a<b",
            "a\u{1}b",
        ] {
            assert!(refused_name(bad).is_some(), "{bad:?}");
        }
        for good in ["a.txt", "console.log", "NULL", "com10", ".gitignore", ".", "..", "a b", "café.md"] {
            assert_eq!(refused_name(good), None, "{good:?}");
        }
    }

    #[test]
    fn names_compare_without_case_and_canonical_paths_have_no_verbatim_prefix() {
        assert!(same_name("Work".as_ref(), "work".as_ref()));
        assert!(!same_name("work".as_ref(), "works".as_ref()));
        let tmp = tempfile::tempdir().unwrap();
        let canonical = canonicalize(tmp.path()).unwrap();
        assert!(!canonical.to_string_lossy().starts_with(r"\\?\"), "{}", canonical.display());
    }

    #[test]
    fn the_read_only_attribute_is_the_permission() {
        let tmp = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(tmp.path().join("a")).unwrap();
        set_permission_bits(&file, 0o400).unwrap();
        assert!(file.metadata().unwrap().permissions().readonly());
        assert_eq!(std_permission_bits(&file.metadata().unwrap()), 0o444);
        set_permission_bits(&file, 0o600).unwrap();
        assert_eq!(std_permission_bits(&file.metadata().unwrap()), 0o644);
    }
}
