//! `find_references {path, line, symbol, column?, include_declaration?, wait_ms?}`: where a symbol
//! is used, across the workspace, from the IDE's language server.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Deserialize;

use super::lang::{self, LocationsOutput, symbol_text};
use crate::{
    bridge::Bridge,
    protocol::{LocationsResult, MAX_LANG_WAIT_MS, METHOD_REFERENCES, ReferencesParams},
};

/// The tool's name.
pub const NAME: &str = "find_references";

/// The input of `find_references`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct FindReferencesParams {
    /// The file, relative to the workspace root (`folder-name/path` in a multi-root workspace).
    #[garde(length(min = 1))]
    pub path: String,
    /// The line the symbol is on, from 1.
    #[garde(range(min = 1))]
    pub line: u32,
    /// The symbol exactly as written on that line (e.g. `parseConfig`). The tool finds its column.
    #[garde(custom(symbol_text))]
    pub symbol: String,
    /// Only when the symbol occurs more than once on the line: a column (from 1) within, or
    /// before, the occurrence wanted. Default: the first occurrence.
    #[garde(inner(range(min = 1)))]
    #[serde(default)]
    pub column: Option<u32>,
    /// Count the declaration itself among the references (default true).
    #[garde(skip)]
    #[serde(default = "yes")]
    pub include_declaration: bool,
    /// How long to wait for a language server that is still starting, in milliseconds (default
    /// 10000, at most 20000).
    #[garde(inner(range(max = MAX_LANG_WAIT_MS)))]
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

fn yes() -> bool {
    true
}

/// `find_references`.
#[derive(Debug, Clone)]
pub struct FindReferences {
    bridge: Bridge,
}

impl FindReferences {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        FindReferences { bridge }
    }
}

impl Tool for FindReferences {
    type Params = FindReferencesParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("find_references finds where a symbol is used.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Find all references, through the language server of the user's IDE: every place in the \
         workspace that uses the symbol written on `line` of `path` (name it by its text, e.g. `symbol: \
         \"parseConfig\"`; the tool finds the column). Unlike a text search it follows the language: \
         no same-named strangers, no comments. Returns {symbol, resolved, locations: [{path, line, \
         column, endLine, endColumn, text}], truncated}, by file then line, at most 500. \
         `include_declaration: false` leaves the declaration out. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Find references")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<LocationsOutput>())
    }

    async fn run(&self, params: FindReferencesParams, _ctx: ToolContext) -> ToolResult {
        let wait = lang::wait_ms(&self.bridge, params.wait_ms);
        let wire = ReferencesParams {
            at: lang::symbol_at(&self.bridge, &params.path, params.line, &params.symbol, params.column, wait).await,
            include_declaration: params.include_declaration,
        };
        let result = lang::ask::<_, LocationsResult>(&self.bridge, METHOD_REFERENCES, &wire, wait, NAME).await?;
        lang::locations_answer(
            "references",
            &params.path,
            &params.symbol,
            params.column.is_some(),
            result,
            wait,
        )
    }
}
