//! Resources (`file:///{path}`) and the state-dependent `tools/list`, as a [`ServerExtension`]:
//! the server-level glue over the [`bridge`](crate::bridge) and the [`tools`](crate::tools)
//! (neither of which knows the other's this way round).
//!
//! - `resources/templates/list`: `file:///{path}` (text/plain).
//! - `resources/list`: the workspace's files (`fs/list` recursive), a page at a time; the cursor
//!   is the offset of the next page.
//! - `resources/read`: `fs/read` of the URI's path; `/` may be raw or `%2F`, and an absolute path
//!   inside the workspace is accepted too.
//! - `tools/list`: waits for the first connection attempt (bounded), so that `write_file` can say
//!   when the host is read-only; answered from the registry even when the host is down.
//! - `ide://selection` and `ide://diagnostics` (JSON, the `get_selection` and `get_diagnostics`
//!   answers): listed first, readable, and subscribable: the host's debounced
//!   `ide/selectionChanged` / `ide/diagnosticsChanged` become `notifications/resources/updated`.
//! - Changes: when the host connects or goes away, `notifications/tools/list_changed` and
//!   `notifications/resources/list_changed` (to a session, and to a 2026-07-28
//!   `subscriptions/listen`).

use std::time::Duration;

use futures::future::BoxFuture;
use mcp_shared::{
    ErrorCode, ServerExtension,
    reexports::rmcp::{
        ErrorData as McpError,
        model::{
            ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource, ResourceContents,
            ResourceTemplate, Tool,
        },
    },
};
use serde_json::json;

use crate::{
    bridge::{Bridge, BridgeError, error::Op},
    paths::{FILE_TEMPLATE, file_uri, parse_file_uri, to_host_path},
    protocol::{
        DiagnosticsParams, ListParams, ListResult, METHOD_DIAGNOSTICS, METHOD_LIST, METHOD_READ, METHOD_SELECTION,
        NOTIFY_DIAGNOSTICS_CHANGED, NOTIFY_SELECTION_CHANGED, ReadParams, ReadResult,
    },
    tools::{get_diagnostics, get_selection, write_file},
};

/// The active editor's selection, as JSON (subscribable).
pub const SELECTION_URI: &str = "ide://selection";
/// Every file's diagnostics, as JSON (subscribable).
pub const DIAGNOSTICS_URI: &str = "ide://diagnostics";

/// The resource a host notification updates.
fn updated_uri(method: &str) -> Option<&'static str> {
    match method {
        NOTIFY_SELECTION_CHANGED => Some(SELECTION_URI),
        NOTIFY_DIAGNOSTICS_CHANGED => Some(DIAGNOSTICS_URI),
        _ => None,
    }
}

/// Resources per `resources/list` page.
pub const PAGE_SIZE: usize = 200;

/// How long `tools/list` waits for the first connection attempt.
const SETTLE_WAIT: Duration = Duration::from_secs(2);

/// The bridge's [`ServerExtension`].
#[derive(Debug, Clone)]
pub struct BridgeExtension {
    bridge: Bridge,
}

impl BridgeExtension {
    /// The extension over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        BridgeExtension { bridge }
    }
}

/// A failed bridge call as the JSON-RPC error of a resources request.
fn mcp_error(error: &BridgeError, op: Op<'_>) -> McpError {
    let (code, message) = error.describe(op);
    let data = Some(json!({"code": code.as_str()}));
    match code {
        ErrorCode::NotFound => McpError::resource_not_found(message, data),
        ErrorCode::Unavailable | ErrorCode::Timeout | ErrorCode::InternalError | ErrorCode::Cancelled => {
            McpError::internal_error(message, data)
        }
        _ => McpError::invalid_params(message, data),
    }
}

impl ServerExtension for BridgeExtension {
    fn has_resources(&self) -> bool {
        true
    }

    fn lists_change(&self) -> bool {
        true
    }

    fn changes(&self) -> futures::stream::BoxStream<'static, ()> {
        self.bridge.link_changes()
    }

    fn subscribable(&self, uri: &str) -> bool {
        uri == SELECTION_URI || uri == DIAGNOSTICS_URI
    }

    fn has_subscriptions(&self) -> bool {
        true
    }

    fn resource_updates(&self) -> futures::stream::BoxStream<'static, String> {
        use futures::StreamExt;
        Box::pin(self.bridge.host_events().filter_map(|method| async move { updated_uri(&method).map(str::to_owned) }))
    }

    fn list_resource_templates(&self) -> ListResourceTemplatesResult {
        let template = ResourceTemplate::new(FILE_TEMPLATE, "workspace-file")
            .with_title("IDE workspace file")
            .with_description(
                "A text file of the IDE workspace: {path} is relative to the workspace root, with `/` \
                 written as is or percent-encoded (%2F).",
            )
            .with_mime_type("text/plain");
        ListResourceTemplatesResult::with_all_items(vec![template])
    }

    fn list_resources(&self, cursor: Option<String>) -> BoxFuture<'_, Result<ListResourcesResult, McpError>> {
        Box::pin(async move {
            let offset = match cursor.as_deref() {
                None | Some("") => 0,
                Some(c) => c.parse::<usize>().map_err(|_| {
                    McpError::invalid_params(
                        format!(
                            "invalid cursor `{c}`: pass back the nextCursor of the previous page, or none to start over"
                        ),
                        None,
                    )
                })?,
            };
            let mut connected = true;
            let listed: ListResult =
                match self.bridge.request(METHOD_LIST, &ListParams { recursive: true, path: None }).await {
                    Ok(listed) => listed,
                    // No IDE yet: an empty list, not an error. A host such as Gemini CLI takes an
                    // error here for a broken server and shows none of its tools; the tools say
                    // what to do when they are called.
                    Err(error @ BridgeError::Connect(_)) => {
                        tracing::debug!(%error, "resources/list without a host: empty");
                        connected = false;
                        ListResult { files: Vec::new(), truncated: false }
                    }
                    Err(error) => return Err(mcp_error(&error, Op::List)),
                };
            let end = offset.saturating_add(PAGE_SIZE).min(listed.files.len());
            let page = listed.files.get(offset..end).unwrap_or_default();
            let mut resources: Vec<Resource> = Vec::with_capacity(page.len() + 2);
            if offset == 0 && connected {
                resources.push(
                    Resource::new(SELECTION_URI, "ide-selection")
                        .with_title("The IDE's selection")
                        .with_description(
                            "The active editor's path, selection range and selected text (subscribe for changes).",
                        )
                        .with_mime_type("application/json"),
                );
                resources.push(
                    Resource::new(DIAGNOSTICS_URI, "ide-diagnostics")
                        .with_title("The IDE's diagnostics")
                        .with_description(
                            "Every file's errors and warnings from the language servers (subscribe for changes).",
                        )
                        .with_mime_type("application/json"),
                );
            }
            resources.extend(
                page.iter().map(|path| Resource::new(file_uri(path), path.clone()).with_mime_type("text/plain")),
            );
            let mut result = ListResourcesResult::with_all_items(resources);
            if end < listed.files.len() {
                result.next_cursor = Some(end.to_string());
            }
            Ok(result)
        })
    }

    fn read_resource(&self, uri: String) -> BoxFuture<'_, Result<ReadResourceResult, McpError>> {
        Box::pin(async move {
            if uri == SELECTION_URI || uri == DIAGNOSTICS_URI {
                let (value, op) = if uri == SELECTION_URI {
                    (self.bridge.call(METHOD_SELECTION, json!({})).await, Op::Ide(get_selection::NAME))
                } else {
                    let params = serde_json::to_value(DiagnosticsParams::default()).unwrap_or_else(|_| json!({}));
                    (self.bridge.call(METHOD_DIAGNOSTICS, params).await, Op::Ide(get_diagnostics::NAME))
                };
                let value = value.map_err(|e| mcp_error(&e, op))?;
                // Held to the protocol's bounds as the tools' answers are (paths outside the
                // workspace, floods, hidden characters).
                let bounded = if uri == SELECTION_URI {
                    bounded_json::<crate::protocol::SelectionResult>(value)
                } else {
                    bounded_json::<crate::protocol::DiagnosticsResult>(value)
                }
                .map_err(|e| McpError::internal_error(format!("the IDE's answer for {uri} is malformed: {e}"), None))?;
                let contents = ResourceContents::text(bounded.to_string(), uri).with_mime_type("application/json");
                return Ok(ReadResourceResult::new(vec![contents]));
            }
            let folders = self.bridge.workspace_folders();
            let path = parse_file_uri(&uri, &folders).map_err(|e| McpError::invalid_params(e.to_string(), None))?;
            let wire = ReadParams { path: to_host_path(&folders, &self.bridge.folder_names(), &path) };
            let read: ReadResult = self.bridge.request(METHOD_READ, &wire).await.map_err(|e| {
                let outside = crate::paths::outside_reading(&uri, &folders);
                match outside.and_then(|outside| e.outside_workspace(&uri, &outside)) {
                    Some((code, message)) => McpError::invalid_params(message, Some(json!({"code": code.as_str()}))),
                    None => mcp_error(&e, Op::Read(&path)),
                }
            })?;
            Ok(ReadResourceResult::new(vec![ResourceContents::text(read.content, uri)]))
        })
    }

    fn list_tools(&self, tools: Vec<Tool>) -> BoxFuture<'_, Vec<Tool>> {
        Box::pin(async move {
            self.bridge.settled(SETTLE_WAIT).await;
            // An IDE reached through another protocol lists only what it can serve.
            let tools: Vec<Tool> = tools.into_iter().filter(|tool| self.bridge.offers(&tool.name)).collect();
            let read_only = self.bridge.host_info().is_some_and(|info| info.read_only);
            if !read_only {
                return tools;
            }
            tools
                .into_iter()
                .map(|mut tool| {
                    if tool.name == write_file::NAME {
                        tool.description =
                            Some(format!("{}{}", write_file::READ_ONLY_NOTE, write_file::DESCRIPTION).into());
                    }
                    tool
                })
                .collect()
        })
    }
}

/// A host's answer decoded as `T`, held to the protocol's bounds, and written again.
fn bounded_json<T: serde::de::DeserializeOwned + serde::Serialize + crate::protocol::Untrusted>(
    value: serde_json::Value,
) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::from_value::<T>(value).map(crate::protocol::Untrusted::bounded).and_then(serde_json::to_value)
}
