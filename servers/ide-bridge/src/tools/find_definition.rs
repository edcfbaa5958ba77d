//! `find_definition {path, line, symbol, column?, wait_ms?}`: where a symbol is defined, from the
//! IDE's language server.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};

use super::lang::{self, LocationsOutput, SymbolParams};
use crate::{
    bridge::Bridge,
    protocol::{LocationsResult, METHOD_DEFINITION},
};

/// The tool's name.
pub const NAME: &str = "find_definition";

/// `find_definition`.
#[derive(Debug, Clone)]
pub struct FindDefinition {
    bridge: Bridge,
}

impl FindDefinition {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        FindDefinition { bridge }
    }
}

impl Tool for FindDefinition {
    type Params = SymbolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("find_definition finds where a symbol is defined, the symbol named by `path`, `line` and its text (`symbol`), as the other language tools name it.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Go to definition, through the language server of the user's IDE (TypeScript, rust-analyzer, \
         Pylance, …): where the symbol on `line` of `path` is defined. Name it by its text \
         (`symbol: \"parseConfig\"`); the tool finds the column. Returns {symbol, resolved, locations: \
         [{path, line, column, text}]}, lines from 1; one outside the workspace (a library's .d.ts) is \
         named as `external`, without its content. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Find definition")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<LocationsOutput>())
    }

    async fn run(&self, params: SymbolParams, _ctx: ToolContext) -> ToolResult {
        let (wire, wait) = params.at(&self.bridge).await;
        let result = lang::ask::<_, LocationsResult>(&self.bridge, METHOD_DEFINITION, &wire, wait, NAME).await?;
        lang::locations_answer(
            "definition",
            &params.path,
            &params.symbol,
            params.column.is_some(),
            result,
            wait,
        )
    }
}
