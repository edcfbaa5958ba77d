//! The manuscript: its identity (`source_id`, from its canonical path) and its text.
//!
//! The manuscript usually lives outside the repository (the agent's scratch space), so it is
//! read with `std::fs`, not through the repository's sandbox; it is only ever read.

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

/// The prefix a `source` may carry (`FILE:path/to/seed.md`); it is stripped.
pub const FILE_PREFIX: &str = "FILE:";

/// The largest manuscript read, in bytes.
pub const MAX_MANUSCRIPT_BYTES: u64 = 16 * 1024 * 1024;

/// How many hex digits of the SHA-256 make a `source_id`.
pub const SOURCE_ID_HEX_DIGITS: usize = 16;

/// Why a manuscript could not be read. Every message names the path as the caller wrote it,
/// never the resolved one.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// `source` is empty (after the prefix).
    #[error("`source` is empty; pass the path of the manuscript, e.g. \"FILE:drafts/seed.md\"")]
    Empty,
    /// Nothing at that path.
    #[error(
        "the manuscript {shown:?} does not exist (relative paths are resolved against the server's working \
         directory); check the path, or pass an absolute one"
    )]
    NotFound {
        /// The path as given.
        shown: String,
    },
    /// The path is a directory.
    #[error("the manuscript {shown:?} is a directory; pass the path of a Markdown file")]
    IsADirectory {
        /// The path as given.
        shown: String,
    },
    /// Not a regular file (a device, a socket, a FIFO).
    #[error("the manuscript {shown:?} is not a regular file; pass the path of a Markdown file")]
    NotAFile {
        /// The path as given.
        shown: String,
    },
    /// Larger than [`MAX_MANUSCRIPT_BYTES`].
    #[error("the manuscript {shown:?} is {len} bytes, more than the {max} bytes a manuscript may have")]
    TooLarge {
        /// The path as given.
        shown: String,
        /// Its size.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The file is not UTF-8.
    #[error(
        "the manuscript {shown:?} is not UTF-8 text: invalid byte at line {line}, column {column}; save it as UTF-8"
    )]
    NotUtf8 {
        /// The path as given.
        shown: String,
        /// The line of the first invalid byte (1-based).
        line: usize,
        /// Its column (1-based, in characters).
        column: usize,
    },
    /// The OS refused to let the server read it.
    #[error("the server may not read the manuscript {shown:?} (permission denied)")]
    PermissionDenied {
        /// The path as given.
        shown: String,
    },
    /// Any other I/O failure (the details are logged).
    #[error("the manuscript {shown:?} could not be read ({kind}); check the file and try again")]
    Io {
        /// The path as given.
        shown: String,
        /// The kind of failure.
        kind: std::io::ErrorKind,
    },
}

/// A manuscript read from disk.
#[derive(Debug, Clone)]
pub struct Manuscript {
    /// The path as the caller gave it (prefix stripped).
    pub shown: String,
    /// Its `source_id`.
    pub source_id: String,
    /// Its file name without the extension.
    pub stem: Option<String>,
    /// Its text.
    pub text: String,
}

/// `source` without a leading `FILE:`.
pub fn strip_file_prefix(source: &str) -> &str {
    source.strip_prefix(FILE_PREFIX).unwrap_or(source)
}

/// The `source_id` of a manuscript at `canonical` (an absolute path with symlinks, `.` and `..`
/// resolved): the first [`SOURCE_ID_HEX_DIGITS`] hex digits of the SHA-256 of its bytes.
pub fn source_id(canonical: &Path) -> String {
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let mut hex = String::with_capacity(SOURCE_ID_HEX_DIGITS);
    for byte in digest.iter().take(SOURCE_ID_HEX_DIGITS / 2) {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

fn io_error(error: std::io::Error, shown: &str) -> SourceError {
    tracing::debug!(%error, path = shown, "cannot read the manuscript");
    let shown = shown.to_owned();
    match error.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => SourceError::NotFound { shown },
        std::io::ErrorKind::IsADirectory => SourceError::IsADirectory { shown },
        std::io::ErrorKind::PermissionDenied => SourceError::PermissionDenied { shown },
        kind => SourceError::Io { shown, kind },
    }
}

/// Line and column (1-based, in characters) of byte offset `at` in `bytes` (valid UTF-8 up to
/// `at`).
fn line_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line, column)
}

/// The canonical form of the absolute path `path` the way POSIX `realpath` would give it if
/// every missing component were a plain directory (Python's non-strict `os.path.realpath`):
/// symlinks of the components that exist are resolved, `.` is dropped and `..` removes the
/// component before it, whether that one exists or not.
fn lenient_realpath(path: &Path) -> std::io::Result<PathBuf> {
    use std::path::Component;
    let mut resolved = PathBuf::from("/");
    // Components still to walk, the next one last.
    let mut pending: Vec<std::ffi::OsString> = Vec::new();
    let push = |pending: &mut Vec<std::ffi::OsString>, p: &Path| {
        for c in p.components().rev() {
            match c {
                Component::Normal(name) => pending.push(name.to_owned()),
                Component::ParentDir => pending.push("..".into()),
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
    };
    push(&mut pending, path);
    let mut links = 0;
    while let Some(name) = pending.pop() {
        if name == ".." {
            resolved.pop();
            continue;
        }
        let next = resolved.join(&name);
        match std::fs::symlink_metadata(&next) {
            Ok(md) if md.file_type().is_symlink() => {
                links += 1;
                if links > 40 {
                    return Err(std::io::Error::from(std::io::ErrorKind::NotFound));
                }
                let target = std::fs::read_link(&next)?;
                if target.is_absolute() {
                    resolved = PathBuf::from("/");
                }
                push(&mut pending, &target);
            }
            _ => resolved = next,
        }
    }
    Ok(resolved)
}

/// Whether `file` lives on a kernel pseudo file system (`/proc`, `/sys`): such files look
/// regular but are views of the system (`/proc/self/environ` is the server's environment), never
/// a manuscript, and must not be copied into the repository.
fn is_pseudo_file(file: &std::fs::File) -> bool {
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

/// Reads the manuscript `source` (a `FILE:` prefix stripped; a relative path resolved against
/// `base`, the server's working directory).
pub fn read_manuscript(base: &Path, source: &str) -> Result<Manuscript, SourceError> {
    let shown = strip_file_prefix(source);
    if shown.is_empty() {
        return Err(SourceError::Empty);
    }
    if shown.contains('\0') {
        return Err(SourceError::NotFound { shown: shown.replace('\0', "\\0") });
    }
    let given = Path::new(shown);
    let joined: PathBuf = if given.is_absolute() { given.to_path_buf() } else { base.join(given) };
    let canonical = match std::fs::canonicalize(&joined) {
        Ok(canonical) => canonical,
        // `a/../seed.md` where `a` does not exist (or is a file): the kernel refuses the path,
        // but it names `seed.md` all the same, as Python's `os.path.realpath` says.
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            lenient_realpath(&joined).map_err(|e| io_error(e, shown))?
        }
        Err(e) => return Err(io_error(e, shown)),
    };
    // Non-blocking, so that a FIFO passed as the manuscript is refused, not waited on.
    let mut file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&canonical)
            .map_err(|e| io_error(e, shown))?
    };
    let metadata = file.metadata().map_err(|e| io_error(e, shown))?;
    if metadata.is_dir() {
        return Err(SourceError::IsADirectory { shown: shown.to_owned() });
    }
    if !metadata.is_file() || is_pseudo_file(&file) {
        return Err(SourceError::NotAFile { shown: shown.to_owned() });
    }
    if metadata.len() > MAX_MANUSCRIPT_BYTES {
        return Err(SourceError::TooLarge { shown: shown.to_owned(), len: metadata.len(), max: MAX_MANUSCRIPT_BYTES });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    (&mut file).take(MAX_MANUSCRIPT_BYTES + 1).read_to_end(&mut bytes).map_err(|e| io_error(e, shown))?;
    if bytes.len() as u64 > MAX_MANUSCRIPT_BYTES {
        return Err(SourceError::TooLarge {
            shown: shown.to_owned(),
            len: bytes.len() as u64,
            max: MAX_MANUSCRIPT_BYTES,
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let (line, column) = line_column(e.as_bytes(), at);
        SourceError::NotUtf8 { shown: shown.to_owned(), line, column }
    })?;
    let stem = canonical.file_stem().and_then(|s| s.to_str()).map(str::to_owned);
    Ok(Manuscript { shown: shown.to_owned(), source_id: source_id(&canonical), stem, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_id_is_16_hex_digits_of_sha256_of_the_path() {
        // Computed independently: `printf %s /tmp/seed.md | sha256sum` = 1263c99634eee2ee5aee….
        let id = source_id(Path::new("/tmp/seed.md"));
        assert_eq!(id, "1263c99634eee2ee");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        let full = Sha256::digest(b"/tmp/seed.md");
        let expected: String = full.iter().take(8).map(|b| format!("{b:02x}")).collect();
        assert_eq!(id, expected);
        assert_ne!(source_id(Path::new("/tmp/seed2.md")), id);
    }

    #[test]
    fn the_same_file_by_any_spelling_has_one_id() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("seed.md"), "# hi\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("seed.md"), dir.path().join("link.md")).unwrap();
        let plain = read_manuscript(dir.path(), "seed.md").unwrap();
        let dotted = read_manuscript(dir.path(), "./a/../seed.md").unwrap();
        let prefixed = read_manuscript(dir.path(), "FILE:seed.md").unwrap();
        let linked = read_manuscript(dir.path(), "link.md").unwrap();
        let absolute = read_manuscript(Path::new("/"), dir.path().join("seed.md").to_str().unwrap()).unwrap();
        // Through a directory that does not exist, or a file: still `seed.md` (as realpath says).
        let ghost = read_manuscript(dir.path(), "./ghost/../seed.md").unwrap();
        let through_file = read_manuscript(dir.path(), "seed.md/../seed.md").unwrap();
        let through_link = read_manuscript(dir.path(), "link.md/../../ghost/../seed.md");
        assert!(matches!(through_link, Err(SourceError::NotFound { .. })), "{through_link:?}");
        for m in [&dotted, &prefixed, &linked, &absolute, &ghost, &through_file] {
            assert_eq!(m.source_id, plain.source_id);
        }
        assert_eq!(plain.stem.as_deref(), Some("seed"));
        assert_eq!(prefixed.shown, "seed.md");
    }

    #[test]
    fn bad_sources_are_classified() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("latin1.md"), b"ok\ncaf\xe9\n").unwrap();
        assert!(matches!(read_manuscript(dir.path(), ""), Err(SourceError::Empty)));
        assert!(matches!(read_manuscript(dir.path(), "FILE:"), Err(SourceError::Empty)));
        assert!(matches!(read_manuscript(dir.path(), "nope.md"), Err(SourceError::NotFound { .. })));
        assert!(matches!(read_manuscript(dir.path(), "."), Err(SourceError::IsADirectory { .. })));
        assert!(std::process::Command::new("mkfifo").arg(dir.path().join("fifo.md")).status().unwrap().success());
        assert!(matches!(read_manuscript(dir.path(), "fifo.md"), Err(SourceError::NotAFile { .. })));
        // Regular-looking views of the system are not manuscripts.
        for pseudo in ["/proc/self/environ", "/proc/self/status", "/sys/kernel/mm/transparent_hugepage/enabled"] {
            if Path::new(pseudo).exists() {
                let got = read_manuscript(dir.path(), pseudo);
                assert!(matches!(got, Err(SourceError::NotAFile { .. })), "{pseudo}: {got:?}");
            }
        }
        match read_manuscript(dir.path(), "latin1.md") {
            Err(SourceError::NotUtf8 { line, column, .. }) => assert_eq!((line, column), (2, 4)),
            other => panic!("{other:?}"),
        }
        let message = read_manuscript(dir.path(), "nope.md").unwrap_err().to_string();
        assert!(message.contains("\"nope.md\"") && !message.contains(dir.path().to_str().unwrap()), "{message}");
    }
}
