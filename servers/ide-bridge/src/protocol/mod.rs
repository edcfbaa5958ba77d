//! The wire protocol between the bridge and a workspace host (`docs/ide-bridge-protocol.md`).
//!
//! JSON-RPC 2.0 over WebSocket text frames. Both sides use these types, so what the headless host
//! answers and what the bridge expects cannot drift apart; an IDE extension implements the same
//! messages from the document.
//!
//! - this file: the methods, the JSON-RPC codes, the params and results, the error object;
//! - [`limits`]: the defaults and limits (port, sizes, requests in flight);
//! - [`ide`]: the IDE's live state (version 2): diagnostics, open editors, selection, open file;
//! - [`lang`]: the language servers and the user's approval (version 3): definition, references,
//!   hover, symbols, rename, diffs, saving;
//! - [`code`]: the rest of the language server (version 4): implementations, call and type
//!   hierarchies, code actions, formatting, signature help;
//! - [`untrusted`]: what the bridge takes from a host, held to those limits on its own side.

mod code;
mod ide;
mod lang;
mod limits;
mod untrusted;

pub use code::*;
pub use ide::*;
pub use lang::*;
pub use limits::*;
pub use untrusted::{Untrusted, is_workspace_path};

use mcp_shared::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The protocol version a host reports in `host/info`: 2 adds the `ide/*` methods, the unsaved
/// buffer in `fs/read` and `folder-name/…` paths in multi-root workspaces; 3 adds the `lang/*`
/// methods, `ide/openDiff`, `ide/closeDiffs` and `ide/saveFile`; 4 adds `lang/implementations`,
/// `lang/callHierarchy`, `lang/typeHierarchy`, `lang/codeActions`, `lang/applyCodeAction`,
/// `lang/format` and `lang/signatureHelp`, and diagnostics that have seen the file's current content.
pub const PROTOCOL_VERSION: u32 = 4;

/// `host/info`: who the host is and its limits.
pub const METHOD_INFO: &str = "host/info";
/// `fs/list`: the workspace's files.
pub const METHOD_LIST: &str = "fs/list";
/// `fs/read`: one file's text.
pub const METHOD_READ: &str = "fs/read";
/// `fs/write`: create or replace one file.
pub const METHOD_WRITE: &str = "fs/write";
/// `$/cancelRequest`: a notification asking the host to abandon a request.
pub const METHOD_CANCEL: &str = "$/cancelRequest";

/// JSON-RPC: the message is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the message is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the params are wrong.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the host failed.
pub const INTERNAL_ERROR: i64 = -32603;

/// The `Authorization` scheme of the WebSocket upgrade.
pub const BEARER: &str = "Bearer";

/// The environment variable both binaries read the token from.
pub const TOKEN_ENV: &str = "IDE_BRIDGE_TOKEN";

/// `fs/list` params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListParams {
    /// List the whole tree (files only) instead of one directory's entries.
    #[serde(default)]
    pub recursive: bool,
    /// The directory to list, relative to the workspace root (default: the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `fs/list` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListResult {
    /// Paths relative to the workspace root, `/`-separated, sorted. Without `recursive`,
    /// directories are included with a trailing `/`.
    pub files: Vec<String>,
    /// Whether the listing was cut at the host's entry cap.
    #[serde(default)]
    pub truncated: bool,
}

/// `fs/read` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadParams {
    /// The file, relative to the workspace root (or absolute inside it).
    pub path: String,
}

/// `fs/read` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadResult {
    /// The file's text, exactly as stored (UTF-8), or the editor's unsaved buffer of it.
    pub content: String,
    /// `content` is the editor's buffer with changes not saved to disk (version 2).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsaved: bool,
    /// `content` is the file on disk, and the editor's buffer of it has unsaved edits that it
    /// does not show (an IDE whose protocol cannot read its buffers: the Claude Code IDE
    /// protocol's). Set by the bridge, never sent by a host.
    #[serde(default, skip_serializing_if = "std::ops::Not::not", rename = "editorDirty")]
    pub editor_dirty: bool,
}

/// `fs/write` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteParams {
    /// The file, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// The complete new text of the file.
    pub content: String,
}

/// `fs/write` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteResult {
    /// Bytes written.
    pub bytes: u64,
    /// Whether the file did not exist before.
    pub created: bool,
    /// The text the write replaced, when the file existed and was UTF-8 text within
    /// `maxFileSize`: the bridge shows the model what changed (a bounded unified diff). Hosts
    /// that leave it out are still correct; the result then has no diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// `host/info` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostInfo {
    /// The protocol version ([`PROTOCOL_VERSION`]).
    pub protocol_version: u32,
    /// The host's name (`ide-bridge-host`, or the extension's).
    pub name: String,
    /// The host's version.
    pub version: String,
    /// The absolute paths of the workspace folders; relative paths resolve against the first.
    pub workspace_folders: Vec<String>,
    /// The folders' names (version 2; a multi-root workspace addresses folder `n` as
    /// `name/relative/path`). Absent: each folder's last path component.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folder_names: Vec<String>,
    /// Whether `fs/write` is refused.
    pub read_only: bool,
    /// The largest file read or written, in bytes.
    pub max_file_size: u64,
    /// The largest message the host accepts, in bytes.
    pub max_message_size: u64,
}

/// `$/cancelRequest` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelParams {
    /// The id of the request to abandon.
    pub id: Value,
}

/// A JSON-RPC error object as it travels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
pub struct WireError {
    /// The numeric code (the IDE bridge's -32001..-32010, JSON-RPC's: the table of docs/ide-bridge-protocol.md §8).
    pub code: i64,
    /// A human-readable message.
    pub message: String,
    /// `{"code": "NOT_FOUND"}`: the shared code as a string, for readers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl WireError {
    /// An error for a shared code, with its wire number ([`ErrorCode::bridge_wire_code`]).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        WireError {
            code: code.bridge_wire_code().into(),
            message: message.into(),
            data: Some(json!({"code": code.as_str()})),
        }
    }

    /// An error with a plain JSON-RPC code.
    pub fn rpc(code: i64, message: impl Into<String>) -> Self {
        WireError { code, message: message.into(), data: None }
    }

    /// The shared code this error maps to ([`ErrorCode::from_bridge_wire_code`]).
    pub fn error_code(&self) -> ErrorCode {
        match self.code {
            METHOD_NOT_FOUND | PARSE_ERROR => ErrorCode::InternalError,
            code => ErrorCode::from_bridge_wire_code(code),
        }
    }
}

/// A request, as the bridge writes it.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A response, as the host writes it.
pub fn response(id: Value, outcome: Result<Value, WireError>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_codes_map_both_ways() {
        assert_eq!(WireError::new(ErrorCode::AccessDenied, "x").code, -32001);
        assert_eq!(WireError::new(ErrorCode::FileTooLarge, "x").code, -32002);
        assert_eq!(WireError::new(ErrorCode::NotFound, "x").code, -32003);
        assert_eq!(WireError::new(ErrorCode::ReadOnly, "x").code, -32004);
        for code in [ErrorCode::AccessDenied, ErrorCode::FileTooLarge, ErrorCode::NotFound, ErrorCode::ReadOnly] {
            assert_eq!(WireError::new(code, "m").error_code(), code);
        }
        assert_eq!(WireError::rpc(METHOD_NOT_FOUND, "m").error_code(), ErrorCode::InternalError);
        assert_eq!(WireError::rpc(INVALID_PARAMS, "m").error_code(), ErrorCode::InvalidArgs);
    }

    #[test]
    fn messages_have_the_documented_shape() {
        let e = WireError::new(ErrorCode::NotFound, "a.txt does not exist");
        assert_eq!(
            response(json!(7), Err(e)),
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32003, "message": "a.txt does not exist", "data": {"code": "NOT_FOUND"}}})
        );
        assert_eq!(
            request(3, METHOD_READ, json!({"path": "a"})),
            json!({"jsonrpc": "2.0", "id": 3, "method": "fs/read", "params": {"path": "a"}})
        );
        let info = HostInfo {
            protocol_version: 1,
            name: "h".into(),
            version: "1".into(),
            workspace_folders: vec!["/w".into()],
            folder_names: Vec::new(),
            read_only: true,
            max_file_size: 10,
            max_message_size: 20,
        };
        let v = serde_json::to_value(&info).unwrap();
        assert_eq!(v["workspaceFolders"], json!(["/w"]));
        assert_eq!(v["readOnly"], true);
        assert_eq!(v["maxFileSize"], 10);
    }

    #[test]
    fn params_ignore_unknown_fields_and_default_recursive() {
        let p: ListParams = serde_json::from_value(json!({})).unwrap();
        assert!(!p.recursive);
        let r: ReadParams = serde_json::from_value(json!({"path": "a", "future": 1})).unwrap();
        assert_eq!(r.path, "a");
        assert!(serde_json::from_value::<WriteParams>(json!({"path": "a"})).is_err());
    }
}
