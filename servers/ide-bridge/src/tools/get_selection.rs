//! `get_selection {}`: what the user has selected in the active editor.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{METHOD_SELECTION, Selection, SelectionResult},
};

/// The tool's name.
pub const NAME: &str = "get_selection";

/// The input of `get_selection` (none).
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct GetSelectionParams {}

/// The structured result of `get_selection`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GetSelectionOutput {
    /// Whether a workspace file is active in the IDE (else there is no selection).
    pub active: bool,
    /// The active editor's selection (absent when no workspace file is active).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
}

/// `get_selection`.
#[derive(Debug, Clone)]
pub struct GetSelection {
    bridge: Bridge,
}

impl GetSelection {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        GetSelection { bridge }
    }
}

impl Tool for GetSelection {
    type Params = GetSelectionParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("get_selection gives what the user has selected (\"this code\").".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Get the user's current selection in the IDE's active editor: {active: true, selection: {path, \
         start: {line, column}, end: {line, column}, text}} (lines and columns from 1; `text` is empty for a bare \
         cursor), or {active: false} when no workspace file is active. Use it when the user says \
         \"this\" or \"the selected code\"."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Get selection")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<GetSelectionOutput>())
    }

    async fn run(&self, _params: GetSelectionParams, _ctx: ToolContext) -> ToolResult {
        match super::call::<_, SelectionResult>(&self.bridge, METHOD_SELECTION, &serde_json::json!({}), Op::Ide(NAME))
            .await
            .map(crate::protocol::Untrusted::bounded)
        {
            Ok(SelectionResult { selection: None }) => Ok(ToolOutput::text_and_json(
                "No workspace file is active in the IDE, so there is no selection.",
                serde_json::json!(GetSelectionOutput { active: false, selection: None }),
            )),
            Ok(result) => Ok(ToolOutput::structured(&GetSelectionOutput { active: true, selection: result.selection })),
            Err(error) => Err(error),
        }
    }
}
