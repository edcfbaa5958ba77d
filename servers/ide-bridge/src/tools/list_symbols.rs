//! `list_symbols {path} | {query}`: a file's outline, or the workspace's symbols matching a
//! query, from the IDE's language servers.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolError, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::lang;
use crate::{
    bridge::Bridge,
    protocol::{MAX_LANG_WAIT_MS, METHOD_SYMBOLS, Symbol, SymbolsParams, SymbolsResult},
};

/// The tool's name.
pub const NAME: &str = "list_symbols";

/// The input of `list_symbols`: exactly one of `path` and `query`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct ListSymbolsParams {
    /// A file, relative to the workspace root: its outline (classes, functions, methods, … nested
    /// as in the code, with their line ranges).
    #[garde(inner(length(min = 1)))]
    #[serde(default)]
    pub path: Option<String>,
    /// Instead of `path`: search the whole workspace's symbols by name (the language servers'
    /// fuzzy match, e.g. `parseConf`).
    #[garde(inner(length(min = 1, max = 256)))]
    #[serde(default)]
    pub query: Option<String>,
    /// How long to wait for a language server that is still starting, in milliseconds (default
    /// 10000, at most 20000).
    #[garde(inner(range(max = MAX_LANG_WAIT_MS)))]
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// The structured result of `list_symbols`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListSymbolsOutput {
    /// The outline, nested (`children`), or the search's matches in the workspace, flat, each with
    /// its `path`. Lines from 1; `line`..`endLine` is the whole symbol, body included.
    pub symbols: Vec<Symbol>,
    /// How many more there were beyond the first 500.
    pub truncated: u64,
}

/// `list_symbols`.
#[derive(Debug, Clone)]
pub struct ListSymbols {
    bridge: Bridge,
}

impl ListSymbols {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        ListSymbols { bridge }
    }
}

fn outline(symbols: &[Symbol], depth: usize, out: &mut String) {
    for symbol in symbols {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
        out.push_str(&format!("{} {}", symbol.kind, symbol.name));
        if let Some(detail) = symbol.detail.as_deref().filter(|d| !d.is_empty()) {
            out.push_str(&format!(" {detail}"));
        }
        match &symbol.path {
            Some(path) => out.push_str(&format!("  {path}:{}-{}", symbol.line, symbol.end_line)),
            None => out.push_str(&format!("  lines {}-{}", symbol.line, symbol.end_line)),
        }
        if let Some(container) = &symbol.container {
            out.push_str(&format!(" (in {container})"));
        }
        outline(&symbol.children, depth + 1, out);
    }
}

impl Tool for ListSymbols {
    type Params = ListSymbolsParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("list_symbols gives a file's outline or searches the workspace's symbols.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Symbols from the IDE's language servers. With `path`: the file's outline (kind, name, line \
         range, nesting). With `query`: the workspace's symbols whose names match (fuzzy), with their \
         path and lines. Returns {symbols: [{name, kind, detail, container, path, line, endLine, \
         children}], truncated}. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("List symbols")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<ListSymbolsOutput>())
    }

    async fn run(&self, params: ListSymbolsParams, _ctx: ToolContext) -> ToolResult {
        if params.path.is_some() == params.query.is_some() {
            return Err(ToolError::invalid_args(
                "Give exactly one of `path` (a file's outline) and `query` (a workspace symbol search).",
            ));
        }
        let wait = lang::wait_ms(&self.bridge, params.wait_ms);
        let wire = SymbolsParams {
            path: super::host_path_opt(&self.bridge, params.path.as_deref()).await,
            query: params.query.clone(),
            wait_ms: Some(wait),
        };
        let result: SymbolsResult = lang::ask(&self.bridge, METHOD_SYMBOLS, &wire, wait, NAME).await?;
        let what = match (&params.path, &params.query) {
            (Some(path), _) => format!("the outline of {path}"),
            (None, query) => format!("symbols matching `{}`", query.as_deref().unwrap_or_default()),
        };
        if result.loading {
            return Err(lang::still_loading(None, result.language.as_deref(), &what, wait));
        }
        let mut text = match result.symbols.len() {
            0 if params.path.is_some() => format!("No symbols in {what}: the language server found no declarations."),
            0 => format!("No {what} in the workspace."),
            _ => format!("{}{}:", what[..1].to_uppercase(), &what[1..]),
        };
        outline(&result.symbols, 0, &mut text);
        if result.truncated > 0 {
            text.push_str(&format!("\n… and {} more, not listed.", result.truncated));
        }
        Ok(ToolOutput::text_and_json(
            text,
            json!(ListSymbolsOutput { symbols: result.symbols, truncated: result.truncated }),
        ))
    }
}
