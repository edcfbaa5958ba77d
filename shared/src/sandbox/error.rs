//! The one error type of the sandbox.

use std::io;

use crate::error::ErrorCode;

/// Why a sandboxed file operation was refused or failed.
///
/// Every `path` is the string the caller passed (or one derived from it by
/// [`SandboxPath::join`](super::SandboxPath::join) /
/// [`SandboxPath::parent`](super::SandboxPath::parent)): a message never names
/// a host path the caller did not send, nor where a symlink points.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The path, or a symlink on the way to it, leads outside every root.
    ///
    /// The same error whether the outside target exists or not.
    #[error("{path} is outside the allowed root(s): {roots}; use a path inside one of them")]
    OutsideRoot {
        /// The path as the caller passed it.
        path: String,
        /// The server's configured roots, comma-separated.
        roots: String,
    },
    /// Nothing exists at the path (or a symlink inside the root dangles).
    #[error("{path} does not exist{}", path_hint(path))]
    NotFound {
        /// The path as the caller passed it.
        path: String,
    },
    /// Something already exists at the path (`create_dir`, `create_new`).
    #[error("{path} already exists")]
    AlreadyExists {
        /// The path as the caller passed it.
        path: String,
    },
    /// A file was expected but the path is a directory.
    #[error("{path} is a directory, not a file")]
    IsADirectory {
        /// The path as the caller passed it.
        path: String,
    },
    /// A directory was expected (or a component on the way is not one).
    #[error("{path} is not a directory")]
    NotADirectory {
        /// The path as the caller passed it.
        path: String,
    },
    /// The path is malformed: empty, contains a NUL byte, a symlink loop, ...
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath {
        /// The path as the caller passed it.
        path: String,
        /// What is wrong with it, for a model to act on.
        reason: String,
    },
    /// The operating system refused access (file permissions), inside the root.
    #[error("permission denied on {path}")]
    PermissionDenied {
        /// The path as the caller passed it.
        path: String,
    },
    /// The directory a file is written in refuses new files (its permissions): the atomic
    /// write creates its temporary file there, so the file itself may well be writable.
    #[error("permission denied: cannot create a file in the directory of {path} (the directory is not writable)")]
    DirectoryNotWritable {
        /// The path as the caller passed it.
        path: String,
    },
    /// The file changed (another program wrote it) after it was read for this write: nothing
    /// was written, so that change is not lost.
    #[error("{path} was changed by another program while it was being edited; nothing was written")]
    Changed {
        /// The path as the caller passed it.
        path: String,
    },
    /// Any other I/O failure; the OS text goes to the log, not the message.
    #[error("I/O error on {path}: {kind}")]
    Io {
        /// The path as the caller passed it.
        path: String,
        /// The kind of the underlying error.
        kind: io::ErrorKind,
        /// The underlying error (for logs; not part of the message).
        #[source]
        source: io::Error,
    },
}

/// What a path that does not exist may have meant, for a message: `~` is not expanded (no
/// shell reads a tool's arguments), and `\` is no separator on Unix. Empty for any other path.
pub fn path_hint(path: &str) -> &'static str {
    let tilde = path.starts_with('~') || path.contains("/~/") || path.ends_with("/~");
    if tilde {
        " (`~` is not expanded here: no shell reads the path; write the home directory out, or use a path relative to the root)"
    } else if cfg!(unix) && path.contains('\\') {
        " (`\\` is not a path separator here: use `/`, e.g. `src/main.rs`)"
    } else {
        ""
    }
}

impl SandboxError {
    /// The error code a tool reports for this error: one typed mapping for every server.
    pub fn code(&self) -> ErrorCode {
        match self {
            SandboxError::OutsideRoot { .. } => ErrorCode::OutsideRoot,
            SandboxError::NotFound { .. } => ErrorCode::NotFound,
            SandboxError::AlreadyExists { .. } => ErrorCode::AlreadyExists,
            SandboxError::IsADirectory { .. }
            | SandboxError::NotADirectory { .. }
            | SandboxError::InvalidPath { .. } => ErrorCode::InvalidArgs,
            SandboxError::PermissionDenied { .. } | SandboxError::DirectoryNotWritable { .. } => {
                ErrorCode::AccessDenied
            }
            SandboxError::Changed { .. } => ErrorCode::Conflict,
            SandboxError::Io { .. } => ErrorCode::InternalError,
        }
    }

    /// The message a client may read: the `Display` text, except that an escape does not list
    /// the server's roots (host paths the caller did not send).
    pub fn public_message(&self) -> String {
        match self {
            SandboxError::OutsideRoot { path, .. } => {
                format!("{path} is outside the allowed root(s); use a path inside one of them")
            }
            other => other.to_string(),
        }
    }

    /// The path (as the caller passed it) this error is about.
    pub fn path(&self) -> &str {
        match self {
            SandboxError::OutsideRoot { path, .. }
            | SandboxError::NotFound { path }
            | SandboxError::AlreadyExists { path }
            | SandboxError::IsADirectory { path }
            | SandboxError::NotADirectory { path }
            | SandboxError::InvalidPath { path, .. }
            | SandboxError::PermissionDenied { path }
            | SandboxError::DirectoryNotWritable { path }
            | SandboxError::Changed { path }
            | SandboxError::Io { path, .. } => path,
        }
    }

    pub(crate) fn invalid(path: &str, reason: impl Into<String>) -> SandboxError {
        SandboxError::InvalidPath { path: path.to_owned(), reason: reason.into() }
    }

    pub(crate) fn not_found(path: &str) -> SandboxError {
        SandboxError::NotFound { path: path.to_owned() }
    }

    pub(crate) fn loop_detected(path: &str) -> SandboxError {
        SandboxError::invalid(
            path,
            "too many levels of symbolic links (a symlink loop?); pass the path of the real file",
        )
    }

    /// Maps an I/O error of an operation on `path` (the caller's string).
    ///
    /// cap-std reports an escape attempt (openat2 `EXDEV`, or its own check) as
    /// `PermissionDenied` without an OS error code; a real `EACCES` carries one.
    pub(crate) fn from_io(err: io::Error, path: &str, roots: &str) -> SandboxError {
        tracing::debug!(error = %err, path, "sandboxed file operation failed");
        let path = path.to_owned();
        const EXDEV: i32 = 18;
        const ENOTDIR: i32 = 20;
        const EISDIR: i32 = 21;
        #[cfg(not(any(target_os = "macos", target_os = "ios", target_os = "freebsd")))]
        const ENAMETOOLONG: i32 = 36;
        #[cfg(not(any(target_os = "macos", target_os = "ios", target_os = "freebsd")))]
        const ELOOP: i32 = 40;
        #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
        const ENAMETOOLONG: i32 = 63;
        #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
        const ELOOP: i32 = 62;
        match (err.kind(), err.raw_os_error()) {
            (io::ErrorKind::PermissionDenied, None) | (_, Some(EXDEV)) => {
                SandboxError::OutsideRoot { path, roots: roots.to_owned() }
            }
            (io::ErrorKind::NotFound, _) => SandboxError::NotFound { path },
            (io::ErrorKind::AlreadyExists, _) => SandboxError::AlreadyExists { path },
            (io::ErrorKind::IsADirectory, _) | (_, Some(EISDIR)) => SandboxError::IsADirectory { path },
            (io::ErrorKind::NotADirectory, _) | (_, Some(ENOTDIR)) => SandboxError::NotADirectory { path },
            (io::ErrorKind::PermissionDenied, Some(_)) => SandboxError::PermissionDenied { path },
            (io::ErrorKind::InvalidFilename, _) | (_, Some(ENAMETOOLONG)) => {
                SandboxError::invalid(&path, "a file name is too long or not allowed by the file system")
            }
            (_, Some(ELOOP)) => SandboxError::loop_detected(&path),
            (kind, _) => SandboxError::Io { path, kind, source: err },
        }
    }
}
