//! `save_file {path}`: save the editor's unsaved changes of a file to disk.

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
    protocol::{METHOD_SAVE_FILE, SaveFileParams, SaveFileResult},
};

/// The tool's name.
pub const NAME: &str = "save_file";

/// The input of `save_file`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct SaveFileToolParams {
    /// The file, relative to the workspace root (`folder-name/path` in a multi-root workspace).
    #[garde(length(min = 1))]
    pub path: String,
}

/// The structured result of `save_file`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SaveFileOutput {
    /// The file.
    pub path: String,
    /// It had unsaved changes, which are now on disk.
    pub saved: bool,
    /// It is open in the editor.
    pub open: bool,
}

/// `save_file`.
#[derive(Debug, Clone)]
pub struct SaveFile {
    bridge: Bridge,
}

impl SaveFile {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        SaveFile { bridge }
    }
}

impl Tool for SaveFile {
    type Params = SaveFileToolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("save_file saves a file's unsaved changes.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Save a file's unsaved changes in the IDE's editor to disk (as Ctrl+S does, format-on-save \
         included), so that builds, tests and other tools see them. get_open_editors tells which files \
         are dirty. Returns {path, saved, open}: `saved` false when there was nothing unsaved. Needs \
         the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Save file")
            .read_only(false)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<SaveFileOutput>())
    }

    async fn run(&self, params: SaveFileToolParams, _ctx: ToolContext) -> ToolResult {
        let wire = SaveFileParams { path: super::host_path(&self.bridge, &params.path).await };
        let result: SaveFileResult = super::call(&self.bridge, METHOD_SAVE_FILE, &wire, Op::Ide(NAME)).await?;
        let text = match (result.saved, result.open) {
            (true, _) => format!("Saved {}: the editor's unsaved changes are on disk now.", params.path),
            (false, true) => format!("{} has no unsaved changes: nothing to save.", params.path),
            (false, false) => {
                format!("{} is not open in the editor, so it has no unsaved changes: nothing to save.", params.path)
            }
        };
        Ok(ToolOutput::text_and_json(
            text,
            json!(SaveFileOutput { path: params.path, saved: result.saved, open: result.open }),
        ))
    }
}
