//! `get_open_editors {}`: the IDE's open tabs.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{METHOD_OPEN_EDITORS, OpenEditor, OpenEditorsResult},
};

/// The tool's name.
pub const NAME: &str = "get_open_editors";

/// The input of `get_open_editors` (none).
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct GetOpenEditorsParams {}

/// The structured result of `get_open_editors`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GetOpenEditorsOutput {
    /// The tabs showing workspace files, in the IDE's order.
    pub editors: Vec<OpenEditor>,
    /// Tabs showing something outside the workspace (not listed).
    pub outside: u64,
}

/// `get_open_editors`.
#[derive(Debug, Clone)]
pub struct GetOpenEditors {
    bridge: Bridge,
}

impl GetOpenEditors {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        GetOpenEditors { bridge }
    }
}

impl Tool for GetOpenEditors {
    type Params = GetOpenEditorsParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("get_open_editors lists the files open in the IDE.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "List the files open in the IDE's editor tabs: {editors: [{path, active, dirty, language}], \
         outside}. `active` is the tab the user is looking at; `dirty` means unsaved changes (read_file \
         returns that unsaved text). The headless host has no editor and returns none."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Get open editors")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<GetOpenEditorsOutput>())
    }

    async fn run(&self, _params: GetOpenEditorsParams, _ctx: ToolContext) -> ToolResult {
        let result = super::call::<_, OpenEditorsResult>(
            &self.bridge,
            METHOD_OPEN_EDITORS,
            &serde_json::json!({}),
            Op::Ide(NAME),
        )
        .await
        .map(crate::protocol::Untrusted::bounded)?;
        Ok(ToolOutput::structured(&GetOpenEditorsOutput { editors: result.editors, outside: result.outside }))
    }
}
