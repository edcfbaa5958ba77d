//! The editor's one error type: an [`ErrorCode`] and a message a model can act on.

use mcp_shared::{ErrorCode, ToolOutput, sandbox::SandboxError};

use crate::{Command, render};

/// A command that ran and failed. The message names the thing, the value and the next step; it
/// never carries host paths the caller did not send, nor raw OS errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EditError {
    /// The machine-readable code (`structuredContent.error.code`).
    pub code: ErrorCode,
    /// The text the model reads.
    pub message: String,
}

impl EditError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> EditError {
        EditError { code, message: message.into() }
    }

    /// `INVALID_ARGS`.
    pub fn invalid(message: impl Into<String>) -> EditError {
        EditError::new(ErrorCode::InvalidArgs, message)
    }

    /// The error for a parameter `command` needs but did not get.
    pub fn required(name: &str, command: Command) -> EditError {
        EditError::invalid(render::parameter_required(name, command.as_str()))
    }

    /// A sandbox failure on `path` (as the caller spelled it) during `command`.
    pub fn from_sandbox(error: SandboxError, path: &str, command: Command) -> EditError {
        match error {
            SandboxError::OutsideRoot { roots, .. } => EditError::new(
                ErrorCode::OutsideRoot,
                format!(
                    "The path {path} is outside the allowed root(s) of this server ({roots}). Use a path inside one of them."
                ),
            ),
            SandboxError::NotFound { .. } => EditError::new(ErrorCode::NotFound, render::does_not_exist(path)),
            SandboxError::NotADirectory { .. } if command == Command::Create => EditError::invalid(format!(
                "Cannot create {path}: one of its parent paths is a file, not a directory. Choose another path."
            )),
            SandboxError::NotADirectory { .. } => EditError::new(ErrorCode::NotFound, render::does_not_exist(path)),
            SandboxError::AlreadyExists { .. } => {
                EditError::new(ErrorCode::AlreadyExists, render::already_exists(path))
            }
            SandboxError::IsADirectory { .. } => EditError::invalid(render::is_a_directory(path)),
            SandboxError::InvalidPath { reason, .. } => EditError::invalid(format!("Invalid path {path:?}: {reason}.")),
            SandboxError::PermissionDenied { .. } => EditError::new(
                ErrorCode::AccessDenied,
                format!("Permission denied: the server may not access {path}. Choose a file it can read and write."),
            ),
            SandboxError::Io { kind, source, .. } => {
                tracing::warn!(path, %kind, error = %source, "file operation failed");
                EditError::new(
                    ErrorCode::InternalError,
                    format!(
                        "The {} command could not access {path} ({kind}); nothing was changed. The server logged the details; retry, or use another path.",
                        command.as_str()
                    ),
                )
            }
        }
    }

    /// The error as a tool result.
    pub fn into_output(self) -> ToolOutput {
        ToolOutput::error(self.code, self.message)
    }
}
