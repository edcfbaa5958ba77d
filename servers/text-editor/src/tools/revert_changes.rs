//! `revert_changes`: every change after a point, across every file, undone newest first as one
//! operation and one change of the journal (so it can be reverted in turn): a dry run shows the
//! combined diff; the real call checks every file first and refuses (`CONFLICT`, naming each
//! file changed by someone else since, changing nothing) unless `force`d, which reverts the
//! others and leaves those as they are. `paths` limits it to some files; `if_sha256` and
//! `if_latest` hold it to what a view showed.

use std::{borrow::Cow, collections::BTreeMap, sync::Arc};

use mcp_shared::{Tool, ToolContext, ToolOutput, ToolResult, blocking, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

use super::list_changes::{Point, Sessions, span_of};
use crate::{
    editor::changes::{Guards, RevertMode},
    editor::{Editor, Origin},
    workspace::EditorRoots,
};

/// What to revert. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct RevertChangesInput {
    /// Revert every change after this change number (0: every change the journal holds), so that the files are as they were right after it; `"session"`: every change since this session's start; `"session:N"`: every change since the start of session N. list_changes gives the numbers.
    pub to: Point,
    /// Only say what the revert would do, with the combined diff; change nothing. Default false.
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Revert the files that can be, and leave those changed by someone else since as they are (without it, such a file refuses the whole revert). Default false.
    #[serde(default)]
    pub force: Option<bool>,
    /// Only the changes to these files (absolute, or relative to the first root). A move counts for both its paths.
    #[serde(default, deserialize_with = "super::list_changes::paths")]
    #[schemars(with = "Option<Vec<String>>")]
    pub paths: Option<Vec<String>>,
    /// `"this"`: this session's changes; `"all"`: every session's. Default: this session's over HTTP, all over stdio.
    #[serde(default)]
    pub sessions: Option<Sessions>,
    /// Optional: per file (as named in list_changes), the SHA-256 (hex) it must have now, or null for a file that must be absent; otherwise nothing is changed (CONFLICT).
    #[serde(default)]
    pub if_sha256: Option<BTreeMap<String, Option<String>>>,
    /// Optional: the latest change number the caller was shown; a later change in the span refuses the revert (CONFLICT).
    #[serde(default, deserialize_with = "super::list_changes::change_number")]
    #[schemars(with = "Option<u64>")]
    pub if_latest: Option<u64>,
}

/// The tool.
pub struct RevertChanges {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
}

impl RevertChanges {
    /// The tool, on the text editor's journal.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>) -> RevertChanges {
        RevertChanges { editor, workspace }
    }
}

/// The tool's description.
pub const DESCRIPTION: &str = "Revert every change made with this server's writing tools after change `to` (from list_changes), across every file, as one step: edits undone, created files removed, deleted files restored byte for byte, moved files moved back. Run it with `dry_run: true` first to see the combined diff. If a file was changed by someone else since, nothing is changed and the error names it; `force: true` reverts the others and leaves it as it is. `paths` limits it to some files. The revert is itself a change: revert_changes to the number before it takes it back.";

impl Tool for RevertChanges {
    type Params = RevertChangesInput;

    fn name(&self) -> Cow<'static, str> {
        "revert_changes".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`revert_changes` takes every file back to how it was after a change number, as one step (`dry_run` first).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&crate::view::changes::VIEW)
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Revert changes").read_only(false).destructive(true).idempotent(false).open_world(false)
    }

    fn call_writes(&self, arguments: Option<&mcp_shared::reexports::rmcp::model::JsonObject>) -> bool {
        // A dry run changes nothing.
        arguments.and_then(|a| a.get("dry_run")).and_then(serde_json::Value::as_bool) != Some(true)
    }

    async fn run(&self, input: RevertChangesInput, ctx: ToolContext) -> ToolResult {
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let span = span_of(&sandbox, input.to, input.sessions, input.paths, &ctx);
        let guards = Guards {
            sha256: input
                .if_sha256
                .unwrap_or_default()
                .into_iter()
                .map(|(path, sha)| {
                    let absolute = span_of(&sandbox, Point::Change(0), None, Some(vec![path.clone()]), &ctx)
                        .paths
                        .and_then(|p| p.into_iter().next())
                        .unwrap_or_default();
                    (absolute, path, sha)
                })
                .collect(),
            latest: input.if_latest,
        };
        let mode = RevertMode { dry_run: input.dry_run.unwrap_or(false), force: input.force.unwrap_or(false) };
        let origin = Origin::of("revert_changes", &ctx);
        let editor = Arc::clone(&self.editor);
        let view_span = span.clone();
        let (text, data) =
            blocking("Reverting the changes", move || editor.revert_changes(&sandbox, &span, &guards, mode, &origin))
                .await??;
        let view = crate::view::changes::data(&data, &view_span, Some("revert_changes"));
        Ok(ToolOutput::text_and_json(text, data).with_view(view))
    }
}
