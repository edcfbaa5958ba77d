//! Atomic writes: a hidden temporary file beside the target (named with [`TEMP_MARKER`], so that
//! listings and crash-leftover sweeps recognise it), written, given the old file's permissions,
//! fsync'ed, then renamed over the target (or hard-linked, for `create_new`), and the directory
//! fsync'ed. Everything here works on a directory handle and a single-component name: the
//! resolution that produced them is [`Sandbox`](super::Sandbox)'s.

use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use cap_std::fs::{Dir, OpenOptions};

use crate::platform;

use super::lexical::TEMP_MARKER;

/// How [`Sandbox::write_atomic`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// fsync the file and its directory (default `true`; `--no-fsync` clears it).
    pub fsync: bool,
    /// Create missing parent directories (each one confined). Default `false`.
    pub create_parents: bool,
    /// Fail with [`SandboxError::AlreadyExists`] if the path exists, atomically
    /// against a concurrent creator. Default `false`.
    pub create_new: bool,
    /// Permission bits of a new file; default 0644 less the umask. An existing
    /// file keeps its own.
    pub mode_if_new: Option<u32>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { fsync: true, create_parents: false, create_new: false, mode_if_new: None }
    }
}

/// A fresh random number for temporary names (no RNG dependency needed:
/// `RandomState` is randomly keyed; the counter and time make each unique).
fn random_suffix() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    if let Ok(now) = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    hasher.finish()
}

/// The prefix of the temporary files of writes of `name`.
fn temp_prefix(name: &Path) -> String {
    let base: String = name.to_string_lossy().chars().take(64).collect();
    format!(".{base}{TEMP_MARKER}")
}

/// Creates a hidden temporary file beside `name` in `dir`, locked (where locks are advisory)
/// for as long as this process holds it: a sweep takes a temporary file nobody holds for what
/// a killed write left behind.
fn create_temp(dir: &Dir, name: &Path, mode: u32) -> io::Result<(PathBuf, std::fs::File)> {
    let prefix = temp_prefix(name);
    for _ in 0..16 {
        let temp = PathBuf::from(format!("{prefix}{:016x}", random_suffix()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        platform::create_mode(&mut options, mode);
        match dir.open_with(&temp, &options) {
            Ok(file) => {
                let file = file.into_std();
                if platform::ADVISORY_FILE_LOCKS {
                    let _ = file.try_lock();
                }
                return Ok((temp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from(io::ErrorKind::AlreadyExists))
}

/// Why [`write_in`] wrote nothing.
#[derive(Debug)]
pub(super) enum WriteError {
    /// The temporary file could not be created: the directory is not writable.
    DirectoryNotWritable,
    /// `unchanged` said the target changed meanwhile.
    Changed,
    /// Any other failure.
    Io(io::Error),
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> WriteError {
        WriteError::Io(e)
    }
}

/// The atomic write proper, in the directory handle `dir`, of the single
/// component `name`. `unchanged`, if given, is asked last, just before the rename: when it says
/// the target changed since the caller read it, nothing is written ([`WriteError::Changed`]).
pub(super) fn write_in(
    dir: &Dir,
    name: &Path,
    bytes: &[u8],
    opts: &WriteOptions,
    unchanged: Option<&dyn Fn() -> bool>,
) -> Result<(), WriteError> {
    let existing = match dir.symlink_metadata(name) {
        Ok(md) => Some(md),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    if let Some(md) = &existing {
        if md.is_dir() {
            return Err(io::Error::from(io::ErrorKind::IsADirectory).into());
        }
        if opts.create_new {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists).into());
        }
    }
    let mode = match &existing {
        Some(md) if md.is_file() => Some(platform::permission_bits(md)),
        _ => opts.mode_if_new,
    };
    // Without an explicit mode, 0644 less the umask; with one, private until set.
    let (temp, mut file) = match create_temp(dir, name, if mode.is_some() { 0o600 } else { 0o644 }) {
        Ok(created) => created,
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_some() => {
            return Err(WriteError::DirectoryNotWritable);
        }
        Err(e) => return Err(e.into()),
    };
    let result: Result<(), WriteError> = (|| {
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            platform::set_permission_bits(&file, mode)?;
        }
        if opts.fsync {
            file.sync_all()?;
        }
        drop(file);
        if unchanged.is_some_and(|unchanged| !unchanged()) {
            return Err(WriteError::Changed);
        }
        if opts.create_new {
            // link(2) never replaces: atomic against a concurrent creator.
            dir.hard_link(&temp, dir, name)?;
            // The new name is in place; a failure here only leaves a hidden temp.
            let _ = dir.remove_file(&temp);
        } else {
            dir.rename(&temp, dir, name)?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = dir.remove_file(&temp);
    }
    result?;
    sweep(dir, name);
    if opts.fsync {
        platform::sync_dir(dir)?;
    }
    Ok(())
}

/// How old an unheld temporary file must be to be taken for a leftover: a write creates its
/// file and locks it at once, so anything older and unlocked is a killed write's. Without
/// advisory locks (Windows), only age tells: an hour.
const LEFTOVER_AGE: std::time::Duration =
    std::time::Duration::from_secs(if platform::ADVISORY_FILE_LOCKS { 2 } else { 3600 });

/// Removes what killed writes of `name` left in `dir` (their temporary files, which listings
/// never show, so nobody else would): files of `name`'s temporary prefix that no process holds
/// and that are older than [`LEFTOVER_AGE`]. Best effort: any failure leaves the file.
fn sweep(dir: &Dir, name: &Path) {
    use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt as _};
    let prefix = temp_prefix(name);
    let Ok(entries) = dir.entries() else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(file_name) = entry.file_name().into_string() else {
            continue;
        };
        if !file_name.starts_with(&prefix) {
            continue;
        }
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        platform::never_block(&mut options);
        let Ok(file) = dir.open_with(&file_name, &options).map(cap_std::fs::File::into_std) else {
            continue;
        };
        let old =
            file.metadata().and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age > LEFTOVER_AGE));
        let unheld = !platform::ADVISORY_FILE_LOCKS || file.try_lock().is_ok();
        if old && unheld && file.metadata().is_ok_and(|m| m.is_file()) {
            tracing::info!(file = file_name, "removing the temporary file of a write that was killed");
            let _ = dir.remove_file(&file_name);
        }
    }
}
