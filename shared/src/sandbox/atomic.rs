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

use super::WriteOptions;
use super::lexical::TEMP_MARKER;

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

/// Creates a hidden temporary file beside `name` in `dir`.
fn create_temp(dir: &Dir, name: &Path, mode: u32) -> io::Result<(PathBuf, std::fs::File)> {
    let base: String = name.to_string_lossy().chars().take(64).collect();
    for _ in 0..16 {
        let temp = PathBuf::from(format!(".{base}{}{:016x}", TEMP_MARKER, random_suffix()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        platform::create_mode(&mut options, mode);
        match dir.open_with(&temp, &options) {
            Ok(file) => return Ok((temp, file.into_std())),
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
    if opts.fsync {
        platform::sync_dir(dir)?;
    }
    Ok(())
}
