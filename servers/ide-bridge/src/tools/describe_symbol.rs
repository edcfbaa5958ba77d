//! `describe_symbol {path, line, symbol, column?, wait_ms?}`: the hover of a symbol (its type or
//! signature and its documentation), from the IDE's language server.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::lang::{self, SymbolParams};
use crate::{
    bridge::Bridge,
    protocol::{HoverResult, METHOD_HOVER, Resolved},
};

/// The tool's name.
pub const NAME: &str = "describe_symbol";

/// The structured result of `describe_symbol`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DescribeSymbolOutput {
    /// The symbol looked up.
    pub symbol: String,
    /// Where it was found on the line (and the document's language).
    pub resolved: Resolved,
    /// The hover's parts, as Markdown: the type or signature (in a code block), then the
    /// documentation. Empty: the language server has nothing on it.
    pub contents: Vec<String>,
}

/// `describe_symbol`.
#[derive(Debug, Clone)]
pub struct DescribeSymbol {
    bridge: Bridge,
}

impl DescribeSymbol {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        DescribeSymbol { bridge }
    }
}

impl Tool for DescribeSymbol {
    type Params = SymbolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("describe_symbol gives a symbol's type and documentation.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "What hovering a symbol shows in the IDE: its type or signature and documentation, from the \
         language server. Name it by its text on `line` of `path`, as find_definition. Returns {symbol, \
         resolved, contents} (Markdown). Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Describe symbol")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<DescribeSymbolOutput>())
    }

    async fn run(&self, params: SymbolParams, _ctx: ToolContext) -> ToolResult {
        let (wire, wait) = params.at(&self.bridge).await;
        let result: HoverResult = lang::ask(&self.bridge, METHOD_HOVER, &wire, wait, NAME).await?;
        if result.loading {
            let what = format!("`{}` in {}", params.symbol, params.path);
            return Err(lang::still_loading(Some(&result.resolved), None, &what, wait));
        }
        let at = lang::resolved_note(&params.path, &params.symbol, &result.resolved, params.column.is_some());
        let text = if result.contents.is_empty() {
            format!(
                "The language server has no description of {at} (a keyword, a literal, or a name it cannot resolve)."
            )
        } else {
            format!("{at}:\n\n{}", result.contents.join("\n\n"))
        };
        let output =
            DescribeSymbolOutput { symbol: params.symbol, resolved: result.resolved, contents: result.contents };
        Ok(ToolOutput::text_and_json(text, json!(output)))
    }
}
