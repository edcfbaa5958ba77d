//! `find_implementations {path, line, symbol, column?, wait_ms?}`: where an interface, abstract
//! member or method is implemented, from the IDE's language server.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};

use super::lang::{self, LocationsOutput, SymbolParams};
use crate::{
    bridge::Bridge,
    protocol::{LocationsResult, METHOD_IMPLEMENTATIONS},
};

/// The tool's name.
pub const NAME: &str = "find_implementations";

/// `find_implementations`.
#[derive(Debug, Clone)]
pub struct FindImplementations {
    bridge: Bridge,
}

impl FindImplementations {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        FindImplementations { bridge }
    }
}

impl Tool for FindImplementations {
    type Params = SymbolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("find_implementations finds what implements an interface or method.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Go to implementations, through the IDE's language server: every class or method that \
         implements the interface, abstract member or method written on `line` of `path` (named by its \
         text, as find_definition). Returns {symbol, resolved, locations: [{path, line, column, text}]}; \
         external ones named as `external`. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Find implementations")
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
        let result = lang::ask::<_, LocationsResult>(&self.bridge, METHOD_IMPLEMENTATIONS, &wire, wait, NAME).await?;
        lang::locations_answer("implementations", &params.path, &params.symbol, params.column.is_some(), result, wait)
    }
}
