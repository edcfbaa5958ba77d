//! `get_diagnostics {path?, include_info?, wait_ms?}`: the errors and warnings the IDE's language
//! servers computed, for one file or for every file that has some.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{Diagnostic, DiagnosticsParams, DiagnosticsResult, MAX_DIAGNOSTICS_WAIT_MS, METHOD_DIAGNOSTICS},
};

/// The tool's name.
pub const NAME: &str = "get_diagnostics";

/// The input of `get_diagnostics`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct GetDiagnosticsParams {
    /// One file (as find_definition's `path`); omit it for every file that has diagnostics.
    #[garde(inner(length(min = 1)))]
    #[serde(default)]
    pub path: Option<String>,
    /// Also return information and hint diagnostics (default: errors and warnings only).
    #[garde(skip)]
    #[serde(default)]
    pub include_info: bool,
    /// Wait for the file's analysis, in ms (default 5000, at most 30000).
    #[garde(inner(range(max = MAX_DIAGNOSTICS_WAIT_MS)))]
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// The structured result of `get_diagnostics`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GetDiagnosticsOutput {
    /// The diagnostics, by path then position; lines and columns from 1.
    pub diagnostics: Vec<Diagnostic>,
    /// How many more there were beyond the first 500.
    pub truncated: u64,
    /// `false`: the language server had not reported on the file within the wait; ask again.
    pub settled: bool,
}

/// `get_diagnostics`.
#[derive(Debug, Clone)]
pub struct GetDiagnostics {
    bridge: Bridge,
}

impl GetDiagnostics {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        GetDiagnostics { bridge }
    }
}

impl Tool for GetDiagnostics {
    type Params = GetDiagnosticsParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("get_diagnostics gives the language servers' errors and warnings (e.g. after an edit).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "The errors and warnings of the IDE's language servers (TypeScript, ESLint, rust-analyzer, …): \
         {diagnostics: [{path, line, column, severity, source, code, message}], truncated, settled}, \
         lines from 1. With `path`: one file as it is now, on disk or in its unsaved buffer; the answer \
         waits (up to `wait_ms`) until the language server has analysed that content, or says it could \
         not (`settled: false`). Without: every file that has diagnostics. `include_info: true` adds \
         hints."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Get diagnostics")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&crate::views::DIAGNOSTICS)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<GetDiagnosticsOutput>())
    }

    async fn run(&self, params: GetDiagnosticsParams, _ctx: ToolContext) -> ToolResult {
        let wire = DiagnosticsParams {
            path: super::host_path_opt(&self.bridge, params.path.as_deref()).await,
            include_info: params.include_info,
            wait_ms: params.wait_ms,
        };
        let result: DiagnosticsResult = crate::protocol::Untrusted::bounded(super::call(&self.bridge, METHOD_DIAGNOSTICS, &wire, Op::Ide(NAME)).await?);
        let output = GetDiagnosticsOutput {
            diagnostics: result.diagnostics,
            truncated: result.truncated,
            settled: result.settled,
        };
        if !output.settled {
            let note = format!(
                "The language server had not finished analysing `{}` within the wait: these diagnostics may be incomplete. Call again (a longer wait_ms helps).",
                params.path.as_deref().unwrap_or(".")
            );
            return Ok(ToolOutput::text_and_json(note, serde_json::json!(output)));
        }
        Ok(ToolOutput::structured(&output))
    }
}
