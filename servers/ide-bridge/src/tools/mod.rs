//! The bridge's tools, one file each: `list_files`, `read_file`, `write_file` (the files);
//! `get_diagnostics`, `get_open_editors`, `get_selection`, `open_file` (the IDE's live state);
//! `find_definition`, `find_references`, `describe_symbol`, `list_symbols`, `rename_symbol` (the
//! IDE's language servers; what they share is in `lang`); `open_diff`, `close_diffs`, `save_file`
//! (changes the user approves, and the editor's buffers).
//!
//! Each forwards to the host's `fs/*` or `ide/*` method through the [`Bridge`](crate::bridge::Bridge) and
//! turns a failure into an `isError` result with the shared code and a next step.

pub mod close_diffs;
pub mod describe_symbol;
pub mod find_definition;
pub mod find_references;
pub mod get_diagnostics;
pub mod get_open_editors;
pub mod get_selection;
pub mod lang;
pub mod list_files;
pub mod list_symbols;
pub mod open_diff;
pub mod open_file;
pub mod read_file;
pub mod rename_symbol;
pub mod save_file;
pub mod write_file;

use crate::bridge::{Bridge, error::Op};
use mcp_shared::ToolOutput;

/// Calls `method` with the typed `params` of the protocol module and decodes its result as `T`,
/// or gives the error result for `op`: both sides of the wire use the same structs.
pub(crate) async fn call<P: serde::Serialize, T: serde::de::DeserializeOwned>(
    bridge: &Bridge,
    method: &str,
    params: &P,
    op: Op<'_>,
) -> Result<T, ToolOutput> {
    bridge.request(method, params).await.map_err(|e| {
        let raw = match op {
            Op::Read(raw) | Op::Write(raw) => raw,
            _ => return e.to_output(op),
        };
        let outside = crate::paths::outside_reading(raw, &bridge.workspace_folders());
        match outside.and_then(|outside| e.outside_workspace(raw, &outside)) {
            Some((code, message)) => ToolOutput::error(code, message),
            None => e.to_output(op),
        }
    })
}

/// `path` as the host takes it: a `file:///` URI (as `resources/list` gives them, or an IDE's
/// absolute form) read as the resource of that URI, and absolute paths inside the workspace made
/// relative. Anything else goes as it is, so the host's refusal names what the caller sent.
/// The first call of a session connects first: folders are only known once connected.
pub(crate) async fn host_path(bridge: &Bridge, path: &str) -> String {
    bridge.ready().await;
    let folders = bridge.workspace_folders();
    let path = match crate::paths::parse_file_uri(path, &folders) {
        Ok(decoded) => decoded,
        Err(_) => path.to_owned(),
    };
    crate::paths::to_host_path(&folders, &bridge.folder_names(), &path)
}

/// [`host_path`] of an optional path.
pub(crate) async fn host_path_opt(bridge: &Bridge, path: Option<&str>) -> Option<String> {
    match path {
        Some(path) => Some(host_path(bridge, path).await),
        None => None,
    }
}
