//! `open_file {path, line?, end_line?, preview?}`: show a file to the user in the IDE.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{METHOD_OPEN_FILE, OpenFileParams, OpenFileResult, Selection},
};

/// The tool's name.
pub const NAME: &str = "open_file";

/// The input of `open_file`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct OpenFileToolParams {
    /// The file, relative to the workspace root (`folder-name/path` in a multi-root workspace).
    #[garde(length(min = 1))]
    pub path: String,
    /// The line to reveal and put the cursor on (from 1).
    #[garde(inner(range(min = 1)))]
    #[serde(default)]
    pub line: Option<u32>,
    /// With `line`: select from `line` through the end of this line.
    #[garde(inner(range(min = 1)), custom(end_after_start(&self.line)))]
    #[serde(default)]
    pub end_line: Option<u32>,
    /// Open as a preview tab that the next preview replaces (default false: a regular tab).
    #[garde(skip)]
    #[serde(default)]
    pub preview: bool,
}

fn end_after_start(line: &Option<u32>) -> impl FnOnce(&Option<u32>, &()) -> garde::Result + '_ {
    move |end_line, ()| match (line, end_line) {
        (None, Some(_)) => Err(garde::Error::new("end_line needs line")),
        (Some(line), Some(end)) if end < line => Err(garde::Error::new("end_line must not be before line")),
        _ => Ok(()),
    }
}

/// The structured result of `open_file`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OpenFileOutput {
    /// The file now shown to the user.
    pub path: String,
    /// The lines selected, when `line` was given (clamped to the file's length).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
}

/// `open_file`.
#[derive(Debug, Clone)]
pub struct OpenFile {
    bridge: Bridge,
}

impl OpenFile {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        OpenFile { bridge }
    }
}

impl Tool for OpenFile {
    type Params = OpenFileToolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("open_file shows the user a file at a line.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Open a workspace file in the IDE and show it to the user, optionally at `line` (from 1) with \
         lines `line`..`end_line` selected. Use it to point the user at code you are talking about. \
         Returns {path, selection}. Changes nothing on disk."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Open file in the IDE")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<OpenFileOutput>())
    }

    async fn run(&self, params: OpenFileToolParams, _ctx: ToolContext) -> ToolResult {
        let wire = OpenFileParams {
            path: super::host_path(&self.bridge, &params.path).await,
            line: params.line,
            end_line: params.end_line,
            preview: params.preview,
        };
        match super::call::<_, OpenFileResult>(&self.bridge, METHOD_OPEN_FILE, &wire, Op::Ide(NAME)).await {
            Ok(result) => Ok(ToolOutput::structured(&OpenFileOutput { path: result.path, selection: result.selection })),
            Err(error) => Err(error),
        }
    }
}
