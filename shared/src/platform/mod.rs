//! What differs per operating system, behind one small interface: file identity, permission
//! bits, opening without blocking, directory sync, pseudo file systems. Everything else in the
//! suite is written once against `std` and `cap-std`; the sandbox's confinement itself is
//! cap-std's on every OS (`openat2(RESOLVE_BENEATH)` on Linux, its own component-wise
//! resolution on macOS and Windows), with [`FileId`] as the identity check where a path and a
//! handle must be proved to be the same file.
//!
//! One implementation per OS family (`platform/unix.rs`, `platform/windows.rs`), each with its
//! own tests; this file holds the types and the tests every OS must pass.

use std::io;

use cap_std::fs::{Dir, OpenOptions};

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

/// A file's identity: which file on which volume, whatever it is called (Unix: device and
/// inode; Windows: volume serial number and file index). An atomic replace gives a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    /// The device (Unix) or the volume serial number (Windows).
    pub volume: u64,
    /// The inode (Unix) or the file index (Windows).
    pub index: u64,
}

/// The identity of what `md` describes (from [`Dir::symlink_metadata`] and the like), or `None`
/// where the OS did not report it.
pub fn file_id(md: &cap_std::fs::Metadata) -> Option<FileId> {
    imp::file_id(md)
}

/// The identity of an open file.
pub fn file_id_of(file: &std::fs::File) -> io::Result<FileId> {
    imp::file_id_of(file)
}

/// When the file's inode last changed (Unix `st_ctime`, which no program can set back, unlike
/// the modification time: `cp -p` and `rsync --times` restore that), in seconds and
/// nanoseconds; `None` where the platform does not say (Windows).
pub fn change_time(md: &std::fs::Metadata) -> Option<(i64, i64)> {
    imp::change_time(md)
}

/// How many names an open file has (0: it was removed or renamed over since it was opened).
pub fn link_count(file: &std::fs::File) -> io::Result<u64> {
    imp::link_count(file)
}

/// The permission bits (`0o7777` on Unix; on Windows `0o444` for a read-only file, else `0o644`).
pub fn permission_bits(md: &cap_std::fs::Metadata) -> u32 {
    imp::permission_bits(md)
}

/// [`permission_bits`] of a `std` metadata.
pub fn std_permission_bits(md: &std::fs::Metadata) -> u32 {
    imp::std_permission_bits(md)
}

/// Gives an open file the permission bits `mode` (Windows: read-only unless an owner write bit
/// is set).
pub fn set_permission_bits(file: &std::fs::File, mode: u32) -> io::Result<()> {
    imp::set_permission_bits(file, mode)
}

/// A file created with `options` gets `mode` (less the umask on Unix; Windows: nothing to do).
pub fn create_mode(options: &mut OpenOptions, mode: u32) {
    imp::create_mode(options, mode);
}

/// An open with `options` never waits (Unix: `O_NONBLOCK`, so a FIFO planted where a file was
/// expected is not waited on; Windows has no FIFOs in the file system).
pub fn never_block(options: &mut OpenOptions) {
    imp::never_block(options);
}

/// Makes the entries of `dir` durable (Unix: fsync of the directory; Windows: nothing, NTFS
/// journals its metadata and a directory cannot be flushed).
pub fn sync_dir(dir: &Dir) -> io::Result<()> {
    imp::sync_dir(dir)
}

/// Whether `file` lives on a kernel pseudo file system (Linux `/proc`, `/sys`, …): such files
/// look regular but are views of the system.
pub fn is_pseudo_file(file: &std::fs::File) -> bool {
    imp::is_pseudo_file(file)
}

/// Whether an edit may lock the file it edits against other processes' edits without stopping
/// other programs from reading it: Unix locks (`flock`) are advisory; Windows locks are
/// mandatory (a locked range cannot be read by anyone else), so there an edit is not locked
/// across processes (edits within one server are still serialised, and every write is atomic).
pub const ADVISORY_FILE_LOCKS: bool = cfg!(unix);

/// Why this OS would not take `name` (one component of a path a caller gave) as the plain file
/// name it looks like, or `None`. Unix: every name is what it says. Windows: a `:` (an alternate
/// data stream, or a drive), a reserved device name (`CON`, `NUL`, `COM1`, … also with an
/// extension), a trailing dot or space (silently dropped by Windows), the characters `<>"|?*`
/// and control characters.
pub fn refused_name(name: &str) -> Option<&'static str> {
    imp::refused_name(name)
}

/// The local path a `file://` URI's decoded path names (`/home/a` on Unix; `/C:/Users/a` and
/// `/c:/x` on Windows, where the drive follows the slash: `C:\Users\a`), or `None` when it
/// names no local path (Windows: a path without a drive).
pub fn path_of_file_uri(decoded: &str) -> Option<std::path::PathBuf> {
    imp::path_of_file_uri(decoded)
}

/// Whether two names of one directory are the same entry's, as the OS compares them for
/// locating a root (Windows: case-insensitive; Unix: byte for byte). Only used to decide which
/// root a path lies in: the rest of the path is then opened beneath that root's handle, so a
/// looser comparison can never reach outside.
pub fn same_name(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    imp::same_name(a, b)
}

/// The canonical form of an existing path, in the spelling users and clients write (Windows:
/// `C:\x`, not `\\?\C:\x`, wherever that means the same file).
pub fn canonicalize(path: &std::path::Path) -> io::Result<std::path::PathBuf> {
    imp::canonicalize(path)
}

/// A tag for this user in per-user names (`ide-bridge-<tag>`): the uid on Unix, the user name
/// on Windows.
pub fn user_tag() -> String {
    imp::user_tag()
}

/// Whether the file or directory `md` belongs to this user (Unix: its owner is this uid).
/// Windows: true: per-user files live under the user's profile (`%TEMP%`, `%LOCALAPPDATA%`),
/// whose access list admits only the user and the administrators, so the place is the check.
pub fn is_mine(md: &std::fs::Metadata) -> bool {
    imp::is_mine(md)
}

/// Creates the directory `dir` private to this user (Unix: mode 0700), or tightens an existing
/// one of this user's that is looser. The parent must exist.
pub fn create_private_dir(dir: &std::path::Path) -> io::Result<()> {
    imp::create_private_dir(dir)
}

/// Why the directory `dir` is not private to this user (`None`: it is). Unix: it must be a
/// directory (not a link) of this user's with no access for group or others, and every
/// directory above it this user's or root's, writable by others only when sticky (`/tmp`), as
/// OpenSSH checks a key's directory. Windows: a directory (the profile's access list is the
/// check, see [`is_mine`]).
pub fn private_dir_problem(dir: &std::path::Path) -> Option<String> {
    imp::private_dir_problem(dir)
}

/// Why the open file `md` describes is not private to this user (`None`: it is): Unix: a
/// regular file of this user's with no access for group or others.
pub fn private_file_problem(md: &std::fs::Metadata) -> Option<String> {
    imp::private_file_problem(md)
}

/// Where this user's programs keep state that must outlive a restart but is not a document:
/// `$XDG_STATE_HOME` (default `~/.local/state`) on Linux and the other Unixes,
/// `~/Library/Application Support` on macOS, `%LOCALAPPDATA%` on Windows. `None` when the
/// environment names no such place (no home directory).
pub fn state_dir() -> Option<std::path::PathBuf> {
    imp::state_dir().filter(|dir| dir.is_absolute())
}

/// Whether the process `pid` is running and is this user's (Unix: it may be signalled).
pub fn process_alive(pid: u32) -> bool {
    imp::process_alive(pid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cap_std::ambient_authority;
    use std::io::Write as _;

    fn temp_dir() -> (tempfile::TempDir, Dir) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(tmp.path(), ambient_authority()).unwrap();
        (tmp, dir)
    }

    #[test]
    fn a_path_and_its_handle_have_one_identity_and_a_replace_gives_another() {
        let (tmp, dir) = temp_dir();
        std::fs::write(tmp.path().join("a.txt"), "a").unwrap();
        std::fs::write(tmp.path().join("b.txt"), "b").unwrap();
        let by_path = file_id(&dir.symlink_metadata("a.txt").unwrap()).unwrap();
        let file = std::fs::File::open(tmp.path().join("a.txt")).unwrap();
        assert_eq!(file_id_of(&file).unwrap(), by_path);
        assert_ne!(file_id(&dir.symlink_metadata("b.txt").unwrap()).unwrap(), by_path);
        drop(file);
        std::fs::rename(tmp.path().join("b.txt"), tmp.path().join("a.txt")).unwrap();
        assert_ne!(file_id(&dir.symlink_metadata("a.txt").unwrap()).unwrap(), by_path);
    }

    #[test]
    fn link_count_counts_the_names() {
        let (tmp, _dir) = temp_dir();
        let path = tmp.path().join("a.txt");
        std::fs::write(&path, "a").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        assert_eq!(link_count(&file).unwrap(), 1);
        std::fs::hard_link(&path, tmp.path().join("b.txt")).unwrap();
        assert_eq!(link_count(&file).unwrap(), 2);
    }

    #[test]
    fn read_only_survives_a_round_trip() {
        let (tmp, dir) = temp_dir();
        let mut file = std::fs::File::create(tmp.path().join("a.txt")).unwrap();
        file.write_all(b"x").unwrap();
        set_permission_bits(&file, 0o444).unwrap();
        let bits = permission_bits(&dir.symlink_metadata("a.txt").unwrap());
        assert_eq!(bits & 0o222, 0, "{bits:o}");
        assert_eq!(std_permission_bits(&file.metadata().unwrap()) & 0o222, 0);
        set_permission_bits(&file, 0o644).unwrap();
        assert_ne!(permission_bits(&dir.symlink_metadata("a.txt").unwrap()) & 0o200, 0);
    }

    #[test]
    fn this_process_is_alive_and_its_files_are_its_own() {
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(u32::MAX - 7));
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("private");
        create_private_dir(&dir).unwrap();
        create_private_dir(&dir).unwrap();
        assert!(is_mine(&std::fs::symlink_metadata(&dir).unwrap()));
        assert!(!user_tag().is_empty());
        assert!(!user_tag().contains(['/', '\\']));
    }

    #[test]
    fn created_files_and_directory_sync() {
        let (tmp, dir) = temp_dir();
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        create_mode(&mut options, 0o600);
        never_block(&mut options);
        dir.open_with("new.txt", &options).unwrap();
        assert!(tmp.path().join("new.txt").is_file());
        sync_dir(&dir).unwrap();
        let file = std::fs::File::open(tmp.path().join("new.txt")).unwrap();
        assert!(!is_pseudo_file(&file));
    }
}
