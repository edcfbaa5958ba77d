//! The bridge's tools, one file each and one line each below: the workspace's files, the IDE's
//! live state, its language servers (what those tools share is in `lang`), and changes the user
//! approves.
//!
//! Each forwards to the host's `fs/*` or `ide/*` method through the [`Bridge`](crate::bridge::Bridge) and
//! turns a failure into an `isError` result with the shared code and a next step.

pub mod lang;

mcp_shared::tools! {
    /// The bridge's tools that `offer` accepts, in `tools/list` order.
    pub fn all(bridge: &Bridge) {
        list_files => list_files::ListFiles::new(bridge.clone()),
        read_file => read_file::ReadFile::new(bridge.clone()),
        write_file => write_file::WriteFile::new(bridge.clone()),
        get_diagnostics => get_diagnostics::GetDiagnostics::new(bridge.clone()),
        get_open_editors => get_open_editors::GetOpenEditors::new(bridge.clone()),
        get_selection => get_selection::GetSelection::new(bridge.clone()),
        open_file => open_file::OpenFile::new(bridge.clone()),
        save_file => save_file::SaveFile::new(bridge.clone()),
        find_definition => find_definition::FindDefinition::new(bridge.clone()),
        find_references => find_references::FindReferences::new(bridge.clone()),
        describe_symbol => describe_symbol::DescribeSymbol::new(bridge.clone()),
        list_symbols => list_symbols::ListSymbols::new(bridge.clone()),
        rename_symbol => rename_symbol::RenameSymbol::new(bridge.clone()),
        find_implementations => find_implementations::FindImplementations::new(bridge.clone()),
        call_hierarchy => call_hierarchy::CallHierarchy::new(bridge.clone()),
        type_hierarchy => type_hierarchy::TypeHierarchy::new(bridge.clone()),
        signature_help => signature_help::SignatureHelp::new(bridge.clone()),
        code_actions => code_actions::CodeActions::new(bridge.clone()),
        apply_code_action => apply_code_action::ApplyCodeAction::new(bridge.clone()),
        format => format::Format::new(bridge.clone()),
        open_diff => open_diff::OpenDiff::new(bridge.clone()),
        close_diffs => close_diffs::CloseDiffs::new(bridge.clone()),
        ide_status => ide_status::IdeStatus::new(bridge.clone()),
    }
}

use crate::bridge::{Bridge, error::Op};
use mcp_shared::ToolError;

/// Calls `method` with the typed `params` of the protocol module and decodes its result as `T`,
/// or gives the error result for `op`: both sides of the wire use the same structs.
pub(crate) async fn call<P: serde::Serialize, T: serde::de::DeserializeOwned>(
    bridge: &Bridge,
    method: &str,
    params: &P,
    op: Op<'_>,
) -> Result<T, ToolError> {
    bridge.request(method, params).await.map_err(|e| {
        let raw = match op {
            Op::Read(raw) | Op::Write(raw) => raw,
            _ => return e.to_error(op),
        };
        let outside = crate::paths::outside_reading(raw, &bridge.workspace_folders());
        match outside.and_then(|outside| e.outside_workspace(raw, &outside)) {
            Some((code, message)) => ToolError::new(code, message),
            None => e.to_error(op),
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
