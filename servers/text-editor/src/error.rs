//! The editor's failures: the shared [`ToolError`] (one failure type for every tool of every
//! server), built here with the reference's wording. A message names the thing, the value and
//! the next step; it never carries host paths the caller did not send, nor raw OS errors.

use mcp_shared::{ErrorCode, sandbox::SandboxError};

use crate::{command::Command, render};

pub use mcp_shared::ToolError;

/// `INVALID_ARGS`.
pub fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::invalid_args(message)
}

/// The error for a parameter `command` needs but did not get.
pub fn required(name: &str, command: Command) -> ToolError {
    invalid(render::parameter_required(name, command.as_str()))
}

/// A sandbox failure on `path` (as the caller spelled it) during `command`, in the reference's
/// words where it has some (the shared `From<SandboxError>` would give the sandbox's own).
pub fn from_sandbox(error: SandboxError, path: &str, command: Command) -> ToolError {
    match error {
        SandboxError::OutsideRoot { roots, .. } => ToolError::new(
            ErrorCode::OutsideRoot,
            format!(
                "The path {path} is outside the allowed root(s) of this server ({roots}). Use a path inside one of them."
            ),
        ),
        SandboxError::NotFound { .. } => ToolError::new(ErrorCode::NotFound, render::does_not_exist(path)),
        SandboxError::NotADirectory { .. } if command == Command::Create => invalid(format!(
            "Cannot create {path}: one of its parent paths is a file, not a directory. Choose another path."
        )),
        SandboxError::NotADirectory { .. } => ToolError::new(ErrorCode::NotFound, render::does_not_exist(path)),
        SandboxError::AlreadyExists { .. } => ToolError::new(ErrorCode::AlreadyExists, render::already_exists(path)),
        SandboxError::IsADirectory { .. } => invalid(render::is_a_directory(path)),
        SandboxError::InvalidPath { reason, .. } => invalid(format!("Invalid path {path:?}: {reason}.")),
        SandboxError::PermissionDenied { .. } => ToolError::new(
            ErrorCode::AccessDenied,
            format!("Permission denied: the server may not access {path}. Choose a file it can read and write."),
        ),
        SandboxError::DirectoryNotWritable { .. } => ToolError::new(
            ErrorCode::AccessDenied,
            format!(
                "Permission denied: the directory of {path} does not let the server create files, and every write goes through a new file beside the target that then replaces it; nothing was changed. Ask the user to make that directory writable, or choose a path in a writable directory."
            ),
        ),
        SandboxError::Changed { .. } => ToolError::new(
            ErrorCode::Conflict,
            format!(
                "{path} was changed by another program while this edit was being made, so nothing was written (that program's change is kept). View the file again and redo the edit on its current content."
            ),
        ),
        SandboxError::Io { kind, source, .. } => {
            tracing::warn!(path, %kind, error = %source, "file operation failed");
            ToolError::new(
                ErrorCode::InternalError,
                format!(
                    "The {} command could not access {path} ({kind}); nothing was changed. The server logged the details; retry, or use another path.",
                    command.as_str()
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_that_refuses_new_files_is_named_as_the_cause() {
        let error =
            from_sandbox(SandboxError::DirectoryNotWritable { path: "d/f.txt".into() }, "d/f.txt", Command::StrReplace);
        assert_eq!(error.code, ErrorCode::AccessDenied);
        assert!(
            error.message.contains("the directory of d/f.txt")
                && !error.message.contains("Choose a file it can read and write"),
            "{}",
            error.message
        );
        let error = from_sandbox(SandboxError::Changed { path: "f.txt".into() }, "f.txt", Command::Insert);
        assert_eq!(error.code, ErrorCode::Conflict);
        assert!(
            error.message.contains("nothing was written") && error.message.contains("View the file again"),
            "{}",
            error.message
        );
    }
}
