//! Unix (Linux, macOS): identity is device and inode, permission bits are the mode.

use std::io;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};

use cap_std::fs::{Dir, MetadataExt as _, OpenOptions, OpenOptionsExt as _};

use super::FileId;

pub(super) fn file_id(md: &cap_std::fs::Metadata) -> Option<FileId> {
    Some(FileId { volume: md.dev(), index: md.ino() })
}

pub(super) fn file_id_of(file: &std::fs::File) -> io::Result<FileId> {
    let md = file.metadata()?;
    Ok(FileId { volume: md.dev(), index: md.ino() })
}

pub(super) fn change_time(md: &std::fs::Metadata) -> Option<(i64, i64)> {
    Some((md.ctime(), md.ctime_nsec()))
}

pub(super) fn link_count(file: &std::fs::File) -> io::Result<u64> {
    Ok(file.metadata()?.nlink())
}

pub(super) fn permission_bits(md: &cap_std::fs::Metadata) -> u32 {
    md.mode() & 0o7777
}

pub(super) fn std_permission_bits(md: &std::fs::Metadata) -> u32 {
    md.mode() & 0o7777
}

pub(super) fn set_permission_bits(file: &std::fs::File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

pub(super) fn create_mode(options: &mut OpenOptions, mode: u32) {
    options.mode(mode);
}

pub(super) fn never_block(options: &mut OpenOptions) {
    options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
}

pub(super) fn sync_dir(dir: &Dir) -> io::Result<()> {
    // Dir handles may be `O_PATH`, which fsync refuses: open it for reading.
    let mut options = OpenOptions::new();
    options.read(true);
    dir.open_with(".", &options)?.sync_all()
}

#[cfg(target_os = "linux")]
pub(super) fn is_pseudo_file(file: &std::fs::File) -> bool {
    const PROC_SUPER_MAGIC: u64 = 0x9fa0;
    const SYSFS_MAGIC: u64 = 0x6265_6572;
    const DEBUGFS_MAGIC: u64 = 0x6462_6720;
    const SECURITYFS_MAGIC: u64 = 0x7363_6673;
    match rustix::fs::fstatfs(file) {
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Ok(fs) => {
            let kind = fs.f_type as u64;
            matches!(kind, PROC_SUPER_MAGIC | SYSFS_MAGIC | DEBUGFS_MAGIC | SECURITYFS_MAGIC)
        }
        Err(_) => false,
    }
}

/// macOS and the BSDs have no `/proc` or `/sys` of files that look regular (`/dev` holds
/// devices, which are refused as not regular anyway).
#[cfg(not(target_os = "linux"))]
pub(super) fn is_pseudo_file(_file: &std::fs::File) -> bool {
    false
}

pub(super) fn refused_name(_name: &str) -> Option<&'static str> {
    None
}

pub(super) fn path_of_file_uri(decoded: &str) -> Option<std::path::PathBuf> {
    Some(std::path::PathBuf::from(decoded))
}

#[cfg(not(target_os = "macos"))]
pub(super) fn same_name(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    a == b
}

/// macOS: APFS and HFS+ volumes are case-insensitive by default and normalisation-insensitive
/// (a name written in NFC is found in NFD and the other way round), so a root given as
/// `/Users/me/Café` is the same folder as `/users/me/Cafe\u{301}`.
#[cfg(target_os = "macos")]
pub(super) fn same_name(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    use unicode_normalization::UnicodeNormalization as _;
    match (a.to_str(), b.to_str()) {
        (Some(a), Some(b)) => a == b || a.nfc().flat_map(char::to_lowercase).eq(b.nfc().flat_map(char::to_lowercase)),
        _ => a == b,
    }
}

pub(super) fn canonicalize(path: &std::path::Path) -> io::Result<std::path::PathBuf> {
    std::fs::canonicalize(path)
}

pub(super) fn user_tag() -> String {
    rustix::process::getuid().as_raw().to_string()
}

pub(super) fn is_mine(md: &std::fs::Metadata) -> bool {
    md.uid() == rustix::process::getuid().as_raw()
}

pub(super) fn create_private_dir(dir: &std::path::Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let md = std::fs::symlink_metadata(dir)?;
    if md.is_dir() && is_mine(&md) && md.mode() & 0o777 != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

pub(super) fn private_dir_problem(dir: &std::path::Path) -> Option<String> {
    let md = match std::fs::symlink_metadata(dir) {
        Ok(md) => md,
        Err(e) => return Some(format!("{} cannot be read ({e})", dir.display())),
    };
    if !md.is_dir() {
        return Some(format!("{} is not a directory (a symbolic link?)", dir.display()));
    }
    if !is_mine(&md) {
        return Some(format!("{} belongs to another user (uid {})", dir.display(), md.uid()));
    }
    if md.mode() & 0o077 != 0 {
        return Some(format!("{} is open to other users (mode {:o})", dir.display(), md.mode() & 0o7777));
    }
    // The directories above: another user who can rename in one could swap this one.
    let real = match std::fs::canonicalize(dir) {
        Ok(real) => real,
        Err(e) => return Some(format!("{} cannot be resolved ({e})", dir.display())),
    };
    let me = rustix::process::getuid().as_raw();
    for above in real.ancestors().skip(1) {
        let Ok(md) = std::fs::metadata(above) else { continue };
        if md.uid() != me && md.uid() != 0 {
            return Some(format!("{} above it belongs to another user (uid {})", above.display(), md.uid()));
        }
        if md.mode() & 0o022 != 0 && md.mode() & 0o1000 == 0 {
            return Some(format!(
                "{} above it can be written by other users (mode {:o}, not sticky)",
                above.display(),
                md.mode() & 0o7777
            ));
        }
    }
    None
}

pub(super) fn private_file_problem(md: &std::fs::Metadata) -> Option<String> {
    if !md.is_file() {
        return Some("not a regular file".to_owned());
    }
    if !is_mine(md) {
        return Some(format!("it belongs to another user (uid {})", md.uid()));
    }
    if md.mode() & 0o077 != 0 {
        return Some(format!("it is open to other users (mode {:o})", md.mode() & 0o7777));
    }
    None
}

pub(super) fn state_dir() -> Option<std::path::PathBuf> {
    let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
    state_dir_of(std::env::var_os("XDG_STATE_HOME"), home)
}

/// [`state_dir`] for these values of `XDG_STATE_HOME` and the home directory.
fn state_dir_of(xdg: Option<std::ffi::OsString>, home: Option<std::path::PathBuf>) -> Option<std::path::PathBuf> {
    if cfg!(target_os = "macos") {
        return home.map(|h| h.join("Library/Application Support"));
    }
    match xdg.map(std::path::PathBuf::from) {
        // The XDG rule: a relative value is invalid and ignored.
        Some(dir) if dir.is_absolute() => Some(dir),
        _ => home.map(|h| h.join(".local/state")),
    }
}

pub(super) fn process_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else {
        return false;
    };
    rustix::process::test_kill_process(pid).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(not(target_os = "macos"))]
    fn the_state_directory_follows_xdg_state_home() {
        let home = Some(std::path::PathBuf::from("/home/u"));
        assert_eq!(state_dir_of(Some("/x/state".into()), home.clone()), Some("/x/state".into()));
        assert_eq!(state_dir_of(Some("relative".into()), home.clone()), Some("/home/u/.local/state".into()));
        assert_eq!(state_dir_of(None, home), Some("/home/u/.local/state".into()));
        assert_eq!(state_dir_of(None, None), None);
    }

    #[test]
    fn mode_bits_are_kept_exactly() {
        let tmp = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(tmp.path().join("a")).unwrap();
        set_permission_bits(&file, 0o4751).unwrap();
        assert_eq!(std_permission_bits(&file.metadata().unwrap()), 0o4751);
    }

    #[test]
    fn a_fifo_is_opened_without_waiting() {
        let tmp = tempfile::tempdir().unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, tmp.path().join("fifo"), rustix::fs::Mode::from_raw_mode(0o644)).unwrap();
        let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        let mut options = OpenOptions::new();
        options.read(true);
        never_block(&mut options);
        // Without O_NONBLOCK this open would wait for a writer forever.
        let file = dir.open_with("fifo", &options).unwrap();
        assert!(!file.metadata().unwrap().is_file());
    }

    #[test]
    fn a_private_directory_is_0700_and_a_loose_one_is_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        create_private_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        create_private_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_is_a_pseudo_file_system() {
        let file = std::fs::File::open("/proc/self/status").unwrap();
        assert!(is_pseudo_file(&file));
    }
}
