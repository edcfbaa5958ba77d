//! The failures a model reads: what went wrong, that nothing was written, and what to do next.
//! No host path beyond what the caller sent, no OS text (it goes to the log).

use std::io;

use mcp_shared::{ErrorCode, ToolError, sandbox::SandboxError};

use crate::source::SourceError;

/// A message for a sandbox failure on a path (our relative path: no host path is revealed).
pub(super) fn sandbox_failure(error: &SandboxError, doing: &str) -> ToolError {
    tracing::warn!(%error, doing, "repository operation failed");
    let path = error.path();
    let code = error.code();
    let message = match error {
        SandboxError::OutsideRoot { .. } => format!(
            "Cannot {doing}: {path} leads outside the repository (a symlink pointing out of it?). Nothing was \
             written; remove that symlink, or file the article in another project."
        ),
        SandboxError::NotFound { .. } => {
            format!("Cannot {doing}: {path} disappeared meanwhile. Nothing was written; call draft_post again.")
        }
        SandboxError::AlreadyExists { .. } => format!("Cannot {doing}: {path} already exists. Call draft_post again."),
        SandboxError::IsADirectory { .. } => {
            format!("Cannot {doing}: {path} is a directory. Remove or rename it, then call again.")
        }
        SandboxError::NotADirectory { .. } => format!(
            "Cannot {doing}: something on the way to {path} is a file, not a directory. Remove or rename it, then \
             call again."
        ),
        SandboxError::PermissionDenied { .. } => format!(
            "Cannot {doing}: permission denied on {path}. Nothing was written; check the repository's permissions."
        ),
        SandboxError::DirectoryNotWritable { .. } => format!(
            "Cannot {doing}: the directory of {path} does not let the server create files. Nothing more was \
             written; check the repository's permissions."
        ),
        SandboxError::Changed { .. } => {
            format!("Cannot {doing}: {path} was changed by another program meanwhile. Call draft_post again.")
        }
        SandboxError::InvalidPath { reason, .. } => format!("Cannot {doing}: {path}: {reason}."),
        SandboxError::Io { kind, .. } => format!(
            "Cannot {doing}: {path}: {kind}. Nothing was written; check free space and permissions, then call again."
        ),
    };
    ToolError::new(code, message)
}

/// A message for a failure to scan `what` (relative to the repository).
pub(super) fn scan_failure(error: &io::Error, what: &str) -> ToolError {
    tracing::warn!(%error, what, "cannot scan the repository");
    let code = if error.kind() == io::ErrorKind::PermissionDenied {
        ErrorCode::AccessDenied
    } else {
        ErrorCode::InternalError
    };
    ToolError::new(
        code,
        format!(
            "Cannot read {what} ({}): the articles cannot be looked up, so nothing was written. Check the \
             repository's permissions, then call again.",
            error.kind()
        ),
    )
}

/// Why an article could not be read, in words (never the OS text: it may name host paths).
pub(super) fn describe_read_error(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::IsADirectory => "`article.md` is a directory".to_owned(),
        io::ErrorKind::PermissionDenied => {
            "it cannot be read (permission denied, or a symlink leading out of the repository)".to_owned()
        }
        io::ErrorKind::InvalidInput => "it is not a regular file".to_owned(),
        kind => format!("it cannot be read ({kind})"),
    }
}

pub(super) fn cancelled_failure() -> ToolError {
    ToolError::new(ErrorCode::Cancelled, "draft_post was cancelled before it wrote anything; nothing was changed.")
}

/// The failure for a manuscript that was refused or could not be read.
pub fn source_failure(error: SourceError) -> ToolError {
    let code = error.code();
    let mut message = error.to_string();
    if let Some(first) = message.get(..1) {
        let upper = first.to_uppercase();
        message.replace_range(..1, &upper);
    }
    ToolError::new(code, format!("{message}. Nothing was written."))
}
