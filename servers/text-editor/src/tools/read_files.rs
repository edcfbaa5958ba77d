//! `read_files`: several files in one call, each as the text editor's `view` shows it (numbered
//! lines, an optional `view_range` for all of them, counted from the end when negative), or its
//! own error; one failure does not stop the rest. The whole reply is bounded by
//! `--max-output-chars`, and says which files were left out.

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{Tool, ToolContext, ToolOutput, ToolResult, blocking, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::{
    Command, Request, editor::Editor, error::ToolError, tools::search_text::MAX_OUTPUT_CHARS_UNBOUNDED,
    workspace::EditorRoots,
};

/// The most files one call reads.
pub const MAX_PATHS: usize = 50;

/// The files to read. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct ReadFilesInput {
    /// The files (absolute, or relative to the first root), 1 to 50, shown in this order.
    pub paths: Vec<String>,
    /// Lines to show of each file, as the text editor's `view_range`: `[11, 20]`, `[100, -1]` to the end, `[-20, -1]` for the last 20 lines. Default: whole files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "[i64; 2]")]
    pub view_range: Option<Value>,
}

/// The tool.
pub struct ReadFiles {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
}

impl ReadFiles {
    /// The tool, viewing with `editor` inside `workspace`.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>) -> ReadFiles {
        ReadFiles { editor, workspace }
    }
}

/// The tool's description.
pub const DESCRIPTION: &str = "Read several files in one call: each is shown as the text editor's `view` shows it (`cat -n` numbered lines), in the order given, or with its own error (one failure does not stop the rest). `view_range` applies to every file (`[-20, -1]`: the last 20 lines). The whole reply is bounded; files left out are named at the end.";

/// Reads `paths` in order (blocking), within `budget` characters.
fn read_all(
    editor: &Editor,
    sandbox: &mcp_shared::sandbox::Sandbox,
    paths: &[String],
    view_range: Option<&Value>,
    budget: usize,
) -> String {
    let mut out = String::new();
    let mut chars = 0usize;
    let mut left: Vec<&str> = Vec::new();
    for raw in paths {
        if !left.is_empty() {
            left.push(raw);
            continue;
        }
        let request = Request { view_range: view_range.cloned(), ..Request::default() };
        let mut part = match editor.run(sandbox, Command::View, raw, request) {
            Ok(reply) => reply.text,
            Err(error) => format!("Error reading {raw} ({}): {}\n", error.code.as_str(), error.message),
        };
        let mut cost = part.chars().count() + 1;
        if chars + cost > budget && !out.is_empty() {
            left.push(raw);
            continue;
        }
        if cost > budget {
            // The first file alone passes the bound (`--max-output-chars 0` shows views whole):
            // it is cut to the bound, and says so.
            if let Some((at, _)) = part.char_indices().nth(budget) {
                let at = part[..at].rfind('\n').map_or(at, |nl| nl + 1);
                part.truncate(at);
                part.push_str(&format!(
                    "[{raw} cut at {budget} characters, the bound of a read_files reply; view the rest with `view_range`]\n"
                ));
            }
            cost = part.chars().count() + 1;
        }
        chars += cost;
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&part);
    }
    if !left.is_empty() {
        out.push_str(&format!(
            "\n[{} files not shown: the reply reached its bound of {budget} characters (--max-output-chars). Read them in another call: {}]\n",
            left.len(),
            left.join(", ")
        ));
    }
    out
}

impl Tool for ReadFiles {
    type Params = ReadFilesInput;

    fn name(&self) -> Cow<'static, str> {
        "read_files".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`read_files` reads several files at once.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Read files").read_only(true).destructive(false).idempotent(true).open_world(false)
    }

    async fn run(&self, input: ReadFilesInput, ctx: ToolContext) -> ToolResult {
        if input.paths.is_empty() || input.paths.len() > MAX_PATHS {
            return Err(ToolError::invalid_args(format!(
                "`paths` has {} entries; give 1 to {MAX_PATHS} files.",
                input.paths.len()
            )));
        }
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let editor = Arc::clone(&self.editor);
        let budget = match editor.limits().max_output_chars {
            0 => MAX_OUTPUT_CHARS_UNBOUNDED,
            n => n,
        };
        let text = blocking("Reading", move || {
            read_all(&editor, &sandbox, &input.paths, input.view_range.as_ref(), budget)
        })
        .await?;
        Ok(ToolOutput::text(text))
    }
}
