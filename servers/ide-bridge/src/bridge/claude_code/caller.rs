//! What calls the IDE's tools (`tools/call` over the link), reads their answers, and asks
//! whether a buffer has unsaved edits.

use std::{
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use mcp_shared::ErrorCode;
use serde_json::{Value, json};

use super::convert;
use crate::{
    bridge::{Link, RequestError, adapter},
    protocol::WireError,
};

/// What calls the IDE's tools: cheap to clone into a task that outlives one request (a diff
/// waiting for the user).
#[derive(Debug, Clone)]
pub(super) struct Caller {
    pub(super) link: Arc<Link>,
    pub(super) name: Arc<str>,
    pub(super) next_id: Arc<AtomicU64>,
    /// The IDE's tool that says whether a buffer has unsaved edits (`checkDocumentDirty`, else
    /// `getOpenEditors`), if it has one.
    pub(super) dirty_tool: Option<&'static str>,
    pub(super) paths: adapter::Paths,
}

impl Caller {
    /// Whether the IDE's buffer of `path` (the workspace path; `file`, its absolute path) has
    /// unsaved edits: `false` when it is not open, or when the IDE has no tool that says.
    pub(super) async fn dirty(&self, path: &str, file: &Path) -> Result<bool, RequestError> {
        let timeout = crate::bridge::adapter::DIRTY_CHECK_TIMEOUT;
        match self.dirty_tool {
            Some("checkDocumentDirty") => {
                let answer = self.call_json("checkDocumentDirty", json!({"filePath": file}), timeout).await?;
                // `success: false`: the document is not open.
                Ok(answer.get("success").and_then(Value::as_bool) != Some(false)
                    && answer.get("isDirty").and_then(Value::as_bool).unwrap_or(false))
            }
            Some(_) => {
                let answer = self.call_json("getOpenEditors", json!({}), timeout).await?;
                let editors = convert::open_editors(&answer, &self.paths).map_err(|e| self.unreadable(e))?;
                Ok(editors.editors.iter().any(|e| e.path == path && e.dirty))
            }
            None => Ok(false),
        }
    }

    /// An error the IDE reported, as the bridge's own (the IDE's codes mean other things).
    pub(super) fn ide_error(&self, tool: &str, message: impl std::fmt::Display) -> RequestError {
        RequestError::Host(WireError::new(
            ErrorCode::InternalError,
            format!(
                "{} answered {tool} with an error: {}",
                self.name,
                mcp_shared::escape::one_line(&message.to_string())
            ),
        ))
    }

    pub(super) fn unreadable(&self, message: impl std::fmt::Display) -> RequestError {
        RequestError::Host(WireError::new(
            ErrorCode::InternalError,
            format!("{} sent an answer the bridge cannot read: {message}", self.name),
        ))
    }

    /// Calls the IDE's tool `name`: the texts of its answer, or its error as the bridge's.
    pub(super) async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Vec<String>, RequestError> {
        match self.call_tool_raw(name, arguments, timeout).await? {
            Ok(texts) => Ok(texts),
            Err(wire) => {
                let detail = match &wire.data {
                    Some(Value::String(data)) => format!("{}: {data}", wire.message),
                    _ => wire.message.clone(),
                };
                Err(self.ide_error(name, detail))
            }
        }
    }

    /// [`Self::call_tool`], with the IDE's own JSON-RPC error given back as it is.
    pub(super) async fn call_tool_raw(
        &self,
        name: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Result<Vec<String>, WireError>, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let answer =
            match self.link.request(id, "tools/call", json!({"name": name, "arguments": arguments}), timeout).await {
                Ok(answer) => answer,
                Err(RequestError::Host(wire)) => return Ok(Err(wire)),
                Err(other) => return Err(other),
            };
        let texts: Vec<String> = answer
            .get("content")
            .and_then(Value::as_array)
            .map(|items| {
                items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).map(str::to_owned).collect()
            })
            .unwrap_or_default();
        if answer.get("isError").and_then(Value::as_bool) == Some(true) {
            return Err(self.ide_error(name, texts.join(" ")));
        }
        Ok(Ok(texts))
    }

    /// Calls `tool` and reads the JSON text of its answer.
    pub(super) async fn call_json(
        &self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        let texts = self.call_tool(tool, arguments, timeout).await?;
        convert::json_text(tool, &texts).map_err(|e| self.unreadable(e))
    }
}
