//! `format {path, line?, end_line?, apply?, wait_ms?}`: the IDE's own formatter (the workspace's
//! settings) on a file or a range, previewed as a diff or applied and saved.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    apply_code_action::{EditOutput, edit_answer},
    lang,
};
use crate::{
    bridge::Bridge,
    protocol::{EditResult, FormatParams, MAX_LANG_WAIT_MS, METHOD_FORMAT},
};

/// The tool's name.
pub const NAME: &str = "format";

/// The input of `format`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct FormatInput {
    /// The file, as find_definition's `path`.
    #[garde(length(min = 1))]
    pub path: String,
    /// Only lines `line`..`end_line` (default: the whole file).
    #[garde(inner(range(min = 1)))]
    #[serde(default)]
    pub line: Option<u32>,
    /// The range's last line (default: `line`).
    #[garde(inner(range(min = 1)))]
    #[serde(default)]
    pub end_line: Option<u32>,
    /// `true`: apply and save. Default `false`: show the diff, changing nothing.
    #[garde(skip)]
    #[serde(default)]
    pub apply: bool,
    /// Wait for a starting language server, in ms (default 10000, at most 20000).
    #[garde(inner(range(max = MAX_LANG_WAIT_MS)))]
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// `format`.
#[derive(Debug, Clone)]
pub struct Format {
    bridge: Bridge,
}

impl Format {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        Format { bridge }
    }
}

impl Tool for Format {
    type Params = FormatInput;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("format formats a file as the project does (the IDE's formatter).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Format a file (or lines `line`..`end_line`) with the IDE's own formatter and the workspace's \
         settings. Without `apply`: the diff, nothing changed. `apply: true`: applied and saved. Needs \
         the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Format")
            .read_only(false)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn call_writes(&self, arguments: Option<&JsonObject>) -> bool {
        lang::applies(arguments)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<EditOutput>())
    }

    async fn run(&self, input: FormatInput, _ctx: ToolContext) -> ToolResult {
        let wait = lang::wait_ms(&self.bridge, input.wait_ms);
        let wire = FormatParams {
            path: super::host_path(&self.bridge, &input.path).await,
            line: input.line,
            end_line: input.end_line,
            apply: input.apply,
            wait_ms: Some(wait),
        };
        let (result, notes): (EditResult, _) =
            lang::ask_change(&self.bridge, METHOD_FORMAT, &wire, input.apply, wait, NAME, "the file").await?;
        if result.loading {
            return Err(lang::still_loading(None, None, &input.path, wait));
        }
        Ok(edit_answer(&format!("Formatting {}", mcp_shared::escape::one_line(&input.path)), result, notes))
    }
}
