//! `rename_symbol {path, line, symbol, column?, new_name, apply?, wait_ms?}`: rename a symbol
//! everywhere, through the IDE's language server: previewed as diffs, or applied as one edit.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::lang::{self, ChangedFile, symbol_params, symbol_text};
use crate::{
    bridge::Bridge,
    protocol::{METHOD_RENAME, RenameParams, RenameResult, Resolved},
};

/// The tool's name.
pub const NAME: &str = "rename_symbol";

symbol_params! {
    /// The input of `rename_symbol`.
    pub struct RenameSymbolParams {
        /// The new name.
        #[garde(custom(symbol_text))]
        pub new_name: String,
        /// `true`: make the change (one edit in the IDE, undone with one undo; the files saved).
        /// Default `false`: only show what would change, changing nothing.
        #[garde(skip)]
        #[serde(default)]
        pub apply: bool,
    }
}

/// The structured result of `rename_symbol`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RenameSymbolOutput {
    /// The symbol renamed.
    pub symbol: String,
    /// Its new name.
    pub new_name: String,
    /// Where it was found on the line.
    pub resolved: Resolved,
    /// The change was made and the files saved (false: a preview, nothing changed).
    pub applied: bool,
    /// The files, with their number of edits and diff.
    pub files: Vec<ChangedFile>,
    /// The edits in all files.
    pub total_edits: u64,
    /// Files outside the workspace the IDE named (never changed through the bridge).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// How the IDE's apply differs from the preview it gave, a line per difference.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<String>,
}

/// `rename_symbol`.
#[derive(Debug, Clone)]
pub struct RenameSymbol {
    bridge: Bridge,
}

impl RenameSymbol {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        RenameSymbol { bridge }
    }
}

impl Tool for RenameSymbol {
    type Params = RenameSymbolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("rename_symbol previews a rename (apply: true makes it).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Rename a symbol everywhere, through the IDE's language server (imports and other files \
         included). Name it by its text on `line` of `path`, as find_definition (`new_name: \"loadConfig\"`). \
         Without `apply`: the diff of each file, nothing changed. `apply: true`: one edit in the IDE (one \
         undo reverts it), files saved. Returns {symbol, new_name, applied, files: [{path, edits, diff}], \
         total_edits}. Files outside the workspace are never changed. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Rename symbol")
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(false)
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&crate::views::RENAME)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<RenameSymbolOutput>())
    }

    async fn run(&self, params: RenameSymbolParams, _ctx: ToolContext) -> ToolResult {
        let (at, wait) = params.at(&self.bridge).await;
        let wire = RenameParams {
            at,
            new_name: params.new_name.clone(),
            apply: params.apply,
        };
        let (result, notes): (RenameResult, _) =
            lang::ask_change(&self.bridge, METHOD_RENAME, &wire, params.apply, wait, NAME, "the files that use it").await?;
        if result.loading {
            let what = format!("`{}` in {}", params.symbol, params.path);
            return Err(lang::still_loading(Some(&result.resolved), None, &what, wait));
        }
        let files = lang::changed_files(result.files);
        let total_edits = lang::total_edits(&files);
        let at = lang::resolved_note(&params.path, &params.symbol, &result.resolved, params.column.is_some());
        let mut text = match (files.is_empty(), result.applied) {
            (true, _) => format!("Nothing to rename: the language server found no place to change for {at}."),
            (false, true) => format!(
                "Renamed {at} to `{}`: {total_edits} edit(s) in {} file(s), saved (one undo in the IDE reverts it):",
                params.new_name,
                files.len()
            ),
            (false, false) => format!(
                "Renaming {at} to `{}` would make {total_edits} edit(s) in {} file(s); nothing was changed. Call again with apply: true to make it.",
                params.new_name,
                files.len()
            ),
        };
        lang::push_files(&mut text, &files, result.applied, &notes);
        if let Some(warning) = notes.warning() {
            text.insert_str(0, &warning);
        }
        let output = RenameSymbolOutput {
            symbol: params.symbol,
            new_name: params.new_name,
            resolved: result.resolved,
            applied: result.applied,
            files,
            total_edits,
            refused: notes.refused,
            differences: notes.differences,
        };
        Ok(ToolOutput::text_and_json(text, json!(output)))
    }
}
