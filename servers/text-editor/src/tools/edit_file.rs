//! `edit_file`: several edits to one file in one call, all or nothing, with a dry run (the
//! editor's `edit_file`, see `editor/edit_file.rs`): one write and one `undo_edit` step.

use std::{
    borrow::Cow,
    sync::{Arc, atomic::AtomicBool},
};

use mcp_shared::{Tool, ToolContext, ToolOutput, ToolResult, blocking, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::AbandonOnDrop;
use crate::{
    Command,
    view::change::{self as change_view, Shown},
    editor::{self, Edit, Editor, Expected, history_key},
    locks::FileLocks,
    workspace::EditorRoots,
};

/// One edit: as `str_replace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// The exact text to replace (as `str_replace`'s `old_str`: whitespace and line breaks included; unique unless `replace_all`).
    pub old_str: String,
    /// What replaces it; empty or absent deletes it.
    #[serde(default)]
    pub new_str: Option<String>,
    /// Replace every occurrence of `old_str`, not exactly one. Default false.
    #[serde(default)]
    pub replace_all: Option<bool>,
}

/// The edits to make. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct EditFileInput {
    /// The file to edit (absolute, or relative to the first root).
    pub path: String,
    /// The edits, applied in order, each to the text the previous ones left: `[{"old_str": "a", "new_str": "b"}, ...]`.
    pub edits: Vec<EditInput>,
    /// Show the diff the edits would make, and write nothing. Default false.
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Optional: the SHA-256 (hex) the file's content must have; when it has another (it changed since it was read), nothing is changed and the call is refused with CONFLICT.
    #[serde(default)]
    pub if_sha256: Option<String>,
    /// Optional: the SHA-256 (hex) the file must have after the edits (what a dry run showed); otherwise nothing is changed and the call is refused with CONFLICT.
    #[serde(default)]
    pub if_result_sha256: Option<String>,
}

/// The tool.
pub struct EditFile {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
    locks: Arc<FileLocks>,
    undo_tool: Option<String>,
}

impl EditFile {
    /// The tool, sharing the text editor's change journal and per-file locks.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>, locks: Arc<FileLocks>) -> EditFile {
        EditFile { editor, workspace, locks, undo_tool: None }
    }

    /// The tool whose `undo_edit` the change view's Undo calls (none: no Undo).
    pub fn undo_via(mut self, undo_tool: Option<String>) -> Self {
        self.undo_tool = undo_tool;
        self
    }
}

/// The tool's name.
pub const NAME: &str = "edit_file";

/// The tool's description.
pub const DESCRIPTION: &str = "Make several edits to one text file in one call, all or nothing. Each edit is {old_str, new_str, replace_all?} and matches exactly as the text editor's str_replace does (old_str must be unique unless replace_all; line endings and the file's encoding are kept); the edits apply in order, each to the result of the previous ones. If any edit fails, none is made and the error names the edit (edits[i]) and why. One write: a single `undo_edit` reverts them all. The result is the unified diff; with `dry_run: true`, the diff and nothing written.";

impl Tool for EditFile {
    type Params = EditFileInput;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`edit_file` makes several str_replace edits to one file in one call, all or nothing (`dry_run` shows the diff), one undo step.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&crate::view::change::VIEW)
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Edit file (several edits)")
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(false)
    }

    fn call_writes(&self, arguments: Option<&mcp_shared::reexports::rmcp::model::JsonObject>) -> bool {
        // A dry run changes nothing.
        arguments.and_then(|a| a.get("dry_run")).and_then(serde_json::Value::as_bool) != Some(true)
    }

    async fn run(&self, input: EditFileInput, ctx: ToolContext) -> ToolResult {
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let path = editor::resolve(&sandbox, &input.path, Command::StrReplace)?;
        let edits: Vec<Edit> = input
            .edits
            .into_iter()
            .map(|e| Edit {
                old_str: e.old_str,
                new_str: e.new_str.unwrap_or_default(),
                replace_all: e.replace_all.unwrap_or(false),
            })
            .collect();
        let dry_run = input.dry_run.unwrap_or(false);
        let guard = self.locks.lock(&history_key(&path)).await;
        let editor = Arc::clone(&self.editor);
        let abandoned = AbandonOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = Arc::clone(&abandoned.0);
        let (if_sha256, if_result_sha256) = (input.if_sha256, input.if_result_sha256);
        let origin = crate::editor::Origin::of(NAME, &ctx);
        let (reply, edits) = blocking("The edit", move || {
            let _guard = guard;
            let expected = Expected { sha256: if_sha256.as_deref(), result_sha256: if_result_sha256.as_deref() };
            let caller = editor::Caller { abandoned: Some(&flag), origin: &origin };
            let reply = editor.edit_file(&sandbox, &path, &edits, dry_run, expected, caller);
            (reply, edits)
        })
        .await?;
        let reply = reply?;
        let Some(seen) = reply.seen else {
            return Ok(ToolOutput::text(reply.text));
        };
        let (action, apply) = if dry_run {
            let edits: Vec<serde_json::Value> = edits
                .iter()
                .map(|e| json!({"old_str": e.old_str, "new_str": e.new_str, "replace_all": e.replace_all}))
                .collect();
            let arguments = json!({"path": input.path, "edits": edits, "if_sha256": seen.sha256, "if_result_sha256": seen.result_sha256});
            ("preview", Some(change_view::call(NAME, arguments)))
        } else {
            ("edited", None)
        };
        let shown = Shown { tool: NAME.into(), action, path: input.path, from: None, undo_tool: self.undo_tool.clone() };
        shown.attach(ToolOutput::text(reply.text), Some(seen), apply).await
    }
}
