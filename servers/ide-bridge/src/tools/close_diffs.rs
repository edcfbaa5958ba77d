//! `close_diffs {}`: close the diff views `open_diff` opened; their proposals count as rejected.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{CloseDiffsResult, METHOD_CLOSE_DIFFS},
};

/// The tool's name.
pub const NAME: &str = "close_diffs";

/// The input of `close_diffs` (none).
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct CloseDiffsParams {}

/// The structured result of `close_diffs`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CloseDiffsOutput {
    /// The files whose proposed changes were withdrawn (nothing was written to them).
    pub closed: Vec<String>,
}

/// `close_diffs`.
#[derive(Debug, Clone)]
pub struct CloseDiffs {
    bridge: Bridge,
}

impl CloseDiffs {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        CloseDiffs { bridge }
    }
}

impl Tool for CloseDiffs {
    type Params = CloseDiffsParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("close_diffs withdraws the proposed changes the user has not decided on.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Withdraw every proposed change open_diff showed that the user has not decided on: their diff \
         views close and nothing is written. Returns {closed: [path]}."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Close diffs")
            .read_only(false)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<CloseDiffsOutput>())
    }

    async fn run(&self, _params: CloseDiffsParams, _ctx: ToolContext) -> ToolResult {
        let result: CloseDiffsResult =
            super::call(&self.bridge, METHOD_CLOSE_DIFFS, &json!({}), Op::Ide(NAME)).await?;
        let text = if result.closed.is_empty() {
            "No proposed change was open: nothing to close.".to_owned()
        } else {
            format!("Closed {} proposed change(s), nothing written: {}", result.closed.len(), result.closed.join(", "))
        };
        Ok(ToolOutput::text_and_json(text, json!(CloseDiffsOutput { closed: result.closed })))
    }
}
