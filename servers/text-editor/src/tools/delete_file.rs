//! `delete_file`: deletes one regular file inside the workspace; `undo_edit` on its path writes
//! it back byte for byte with its permission bits (see `editor/files.rs`).

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{Tool, ToolContext, ToolOutput, ToolResult, blocking, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
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
}

/// The tool.
pub struct DeleteFile {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
    locks: Arc<FileLocks>,
}

impl DeleteFile {
    /// The tool, sharing the text editor's undo history and per-file locks.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>, locks: Arc<FileLocks>) -> DeleteFile {
        DeleteFile { editor, workspace, locks }
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
        let reply = blocking("The deletion", move || editor.delete_file(&sandbox, &path)).await??;
        Ok(ToolOutput::text(reply.text))
    }
}
