//! `delete_file`: deletes one regular file inside the workspace; `undo_edit` on its path writes
//! it back byte for byte with its permission bits (see `editor/files.rs`).

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{Tool, ToolContext, ToolOutput, ToolResult, blocking, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    view::change::Shown,
    editor::{Editor, history_key},
    locks::FileLocks,
    workspace::EditorRoots,
};

/// The file to delete. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct DeleteFileInput {
    /// The file to delete (absolute, or relative to the first root). Directories and symbolic links are refused.
    pub path: String,
    /// Optional: the SHA-256 (hex) the file's content must have; when it has another (it changed since it was read), nothing is changed and the call is refused with CONFLICT.
    #[serde(default)]
    pub if_sha256: Option<String>,
}

/// The tool.
pub struct DeleteFile {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
    locks: Arc<FileLocks>,
    undo_tool: Option<String>,
}

impl DeleteFile {
    /// The tool, sharing the text editor's change journal and per-file locks.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>, locks: Arc<FileLocks>) -> DeleteFile {
        DeleteFile { editor, workspace, locks, undo_tool: None }
    }

    /// The tool whose `undo_edit` the change view's Undo calls (none: no Undo).
    pub fn undo_via(mut self, undo_tool: Option<String>) -> Self {
        self.undo_tool = undo_tool;
        self
    }
}

/// The tool's section of the guide, with `{tool}` and `{root}` to fill in.
const GUIDE: &str = r##"
## Deleting files: `delete_file`

`delete_file` deletes one file (`path`); not a directory, not a symbolic link. `{tool}`'s
`undo_edit` on the path restores it exactly.
"##;

/// The tool's description.
pub const DESCRIPTION: &str = "Delete one file inside the workspace (not a directory, not a symbolic link). `undo_edit` on the same path (the text editor's command) restores it byte for byte, with its permissions.";

impl Tool for DeleteFile {
    type Params = DeleteFileInput;

    fn name(&self) -> Cow<'static, str> {
        "delete_file".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`delete_file` deletes a file (`undo_edit` on its path restores it).".into())
    }

    fn guide(&self) -> Option<Cow<'static, str>> {
        Some(GUIDE.into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&crate::view::change::VIEW)
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Delete file")
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(false)
    }

    async fn run(&self, input: DeleteFileInput, ctx: ToolContext) -> ToolResult {
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let path = sandbox.resolve(&input.path)?;
        let _guard = self.locks.lock(&history_key(&path)).await;
        let editor = Arc::clone(&self.editor);
        let if_sha256 = input.if_sha256;
        let origin = crate::editor::Origin::of("delete_file", &ctx);
        let reply =
            blocking("The deletion", move || editor.delete_file(&sandbox, &path, if_sha256.as_deref(), &origin))
                .await??;
        let shown =
            Shown { tool: "delete_file".into(), action: "deleted", path: input.path, from: None, undo_tool: self.undo_tool.clone() };
        shown.attach(ToolOutput::text(reply.text), reply.seen, None).await
    }
}
