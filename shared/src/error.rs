//! Error codes shared by every server (the template's upper-case strings plus what the servers need).

use serde::{Deserialize, Serialize};

/// A machine-readable error code, serialised as upper-case strings (`INVALID_ARGS`).
///
/// Tools put one in [`crate::ContentItem::Error`]; clients read it from
/// `structuredContent.error.code` of an `isError` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The input is not what the tool takes at all (e.g. not an object).
    InvalidInput,
    /// The input has the right shape but a field is missing or wrong.
    InvalidArgs,
    /// The `action` (or command) is not one the tool knows.
    UnknownAction,
    /// Something went wrong inside the server; details are in its log.
    InternalError,
    /// The call took longer than the server's per-call timeout.
    Timeout,
    /// The client cancelled the call.
    Cancelled,
    /// The file or directory does not exist.
    NotFound,
    /// The file already exists and the command does not overwrite.
    AlreadyExists,
    /// The path lies outside the server's configured root(s).
    OutsideRoot,
    /// The file is larger than the configured limit.
    FileTooLarge,
    /// The workspace or server is read-only.
    ReadOnly,
    /// The file is binary (or in an encoding that cannot be decoded).
    BinaryFile,
    /// `old_str` (or a look-up) matched nothing.
    NoMatch,
    /// `old_str` matched more than once.
    MultipleMatches,
    /// Someone else changed the state since we last saw it.
    Conflict,
    /// Authentication or authorisation failed.
    AccessDenied,
    /// A backend the tool needs is not reachable right now.
    Unavailable,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 17] = [
        ErrorCode::InvalidInput,
        ErrorCode::InvalidArgs,
        ErrorCode::UnknownAction,
        ErrorCode::InternalError,
        ErrorCode::Timeout,
        ErrorCode::Cancelled,
        ErrorCode::NotFound,
        ErrorCode::AlreadyExists,
        ErrorCode::OutsideRoot,
        ErrorCode::FileTooLarge,
        ErrorCode::ReadOnly,
        ErrorCode::BinaryFile,
        ErrorCode::NoMatch,
        ErrorCode::MultipleMatches,
        ErrorCode::Conflict,
        ErrorCode::AccessDenied,
        ErrorCode::Unavailable,
    ];

    /// The wire string, e.g. `"INVALID_ARGS"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::InvalidArgs => "INVALID_ARGS",
            ErrorCode::UnknownAction => "UNKNOWN_ACTION",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::AlreadyExists => "ALREADY_EXISTS",
            ErrorCode::OutsideRoot => "OUTSIDE_ROOT",
            ErrorCode::FileTooLarge => "FILE_TOO_LARGE",
            ErrorCode::ReadOnly => "READ_ONLY",
            ErrorCode::BinaryFile => "BINARY_FILE",
            ErrorCode::NoMatch => "NO_MATCH",
            ErrorCode::MultipleMatches => "MULTIPLE_MATCHES",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::AccessDenied => "ACCESS_DENIED",
            ErrorCode::Unavailable => "UNAVAILABLE",
        }
    }

    /// The IDE bridge's JSON-RPC wire code for this error (`servers/ide-bridge/docs/ide-bridge-protocol.md`), where it has one.
    ///
    /// `-32001` access denied, `-32002` file too large, `-32003` not found, `-32004` read-only;
    /// bad arguments use JSON-RPC's `-32602` and everything else `-32603`.
    pub fn bridge_wire_code(self) -> i32 {
        match self {
            ErrorCode::AccessDenied | ErrorCode::OutsideRoot => -32001,
            ErrorCode::FileTooLarge => -32002,
            ErrorCode::NotFound => -32003,
            ErrorCode::ReadOnly => -32004,
            ErrorCode::InvalidInput | ErrorCode::InvalidArgs | ErrorCode::UnknownAction => -32602,
            ErrorCode::BinaryFile => -32005,
            ErrorCode::AlreadyExists => -32006,
            ErrorCode::Conflict => -32007,
            ErrorCode::Timeout => -32008,
            ErrorCode::Cancelled => -32009,
            ErrorCode::Unavailable => -32010,
            ErrorCode::NoMatch | ErrorCode::MultipleMatches | ErrorCode::InternalError => -32603,
        }
    }

    /// The code for an IDE bridge JSON-RPC wire code (the inverse of [`Self::bridge_wire_code`]).
    pub fn from_bridge_wire_code(code: i64) -> ErrorCode {
        match code {
            -32001 => ErrorCode::AccessDenied,
            -32002 => ErrorCode::FileTooLarge,
            -32003 => ErrorCode::NotFound,
            -32004 => ErrorCode::ReadOnly,
            -32005 => ErrorCode::BinaryFile,
            -32006 => ErrorCode::AlreadyExists,
            -32007 => ErrorCode::Conflict,
            -32008 => ErrorCode::Timeout,
            -32009 => ErrorCode::Cancelled,
            -32010 => ErrorCode::Unavailable,
            -32602 | -32600 => ErrorCode::InvalidArgs,
            _ => ErrorCode::InternalError,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_upper_case_strings() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, serde_json::Value::String(code.as_str().into()));
            let back: ErrorCode = serde_json::from_value(json).unwrap();
            assert_eq!(back, code);
        }
        assert_eq!(ErrorCode::InvalidArgs.as_str(), "INVALID_ARGS");
        assert!(serde_json::from_value::<ErrorCode>(serde_json::json!("nope")).is_err());
    }

    #[test]
    fn bridge_codes_round_trip() {
        for code in [
            ErrorCode::AccessDenied,
            ErrorCode::FileTooLarge,
            ErrorCode::NotFound,
            ErrorCode::ReadOnly,
            ErrorCode::BinaryFile,
            ErrorCode::Conflict,
            ErrorCode::Unavailable,
        ] {
            assert_eq!(ErrorCode::from_bridge_wire_code(code.bridge_wire_code().into()), code);
        }
        assert_eq!(ErrorCode::NotFound.bridge_wire_code(), -32003);
        assert_eq!(ErrorCode::ReadOnly.bridge_wire_code(), -32004);
    }
}
