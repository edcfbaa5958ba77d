//! `find_references {path, line, symbol, column?, include_declaration?, wait_ms?}`: where a symbol
//! is used, across the workspace, from the IDE's language server.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};

use super::lang::{self, LocationsOutput, symbol_params};
use crate::{
    bridge::Bridge,
    protocol::{LocationsResult, METHOD_REFERENCES, ReferencesParams},
};

/// The tool's name.
pub const NAME: &str = "find_references";

symbol_params! {
    /// The input of `find_references`.
    pub struct FindReferencesParams {
        /// Count the declaration itself among the references (default true).
        #[garde(skip)]
        #[serde(default = "yes")]
        pub include_declaration: bool,
    }
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
        "Find all references, through the IDE's language server: every place in the workspace that uses \
         the symbol on `line` of `path` (named by its text, as find_definition). Unlike a text search it \
         follows the language: no same-named strangers, no comments. Returns {symbol, resolved, \
         locations: [{path, line, column, text}], truncated}, at most 500. `include_declaration: false` \
         leaves the declaration out. Needs the VS Code extension."
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
        let (at, wait) = params.at(&self.bridge).await;
        let wire = ReferencesParams {
            at,
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
