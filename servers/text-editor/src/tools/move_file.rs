//! `move_file`: moves (renames) one regular file inside the workspace, creating the
//! destination's parent directories; an existing destination is replaced only with
//! `overwrite: true`. `undo_edit` on the destination moves it back (see `editor/files.rs`).

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

/// The move to make. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct MoveFileInput {
    /// The file to move (absolute, or relative to the first root). Directories and symbolic links are refused.
    pub source: String,
    /// Its new path, file name included (missing parent directories are created).
    pub destination: String,
    /// Replace a file already at `destination` (undo_edit brings it back). Default false: an existing destination is refused.
    #[serde(default)]
    pub overwrite: Option<bool>,
    /// Optional: the SHA-256 (hex) the source file's content must have; when it has another (it changed since it was read), nothing is changed and the call is refused with CONFLICT.
    #[serde(default)]
    pub if_sha256: Option<String>,
}

/// The tool.
pub struct MoveFile {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
    locks: Arc<FileLocks>,
    undo_tool: Option<String>,
}

impl MoveFile {
    /// The tool, sharing the text editor's change journal and per-file locks.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>, locks: Arc<FileLocks>) -> MoveFile {
        MoveFile { editor, workspace, locks, undo_tool: None }
    }

    /// The tool whose `undo_edit` the change view's Undo calls (none: no Undo).
    pub fn undo_via(mut self, undo_tool: Option<String>) -> Self {
        self.undo_tool = undo_tool;
        self
    }
}

/// The tool's section of the guide, with `{tool}` and `{root}` to fill in.
const GUIDE: &str = r##"
## Moving files: `move_file`

`move_file` moves or renames one file (`source`, `destination` with the file name; parent
directories are created; an existing destination only with `overwrite: true`). It does not work
on directories or symbolic links. `{tool}`'s `undo_edit` on the destination reverts the move
exactly.

**Example:**
```json
{"source": "{root}/src/old_name.py", "destination": "{root}/src/utils/new_name.py"}
```
"##;

/// The tool's description.
pub const DESCRIPTION: &str = "Move or rename one file inside the workspace (not a directory, not a symbolic link); missing parent directories of `destination` are created. An existing file at `destination` is refused unless `overwrite` is true. `undo_edit` on `destination` (the text editor's command) moves the file back and restores what it replaced.";

impl Tool for MoveFile {
    type Params = MoveFileInput;

    fn name(&self) -> Cow<'static, str> {
        "move_file".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`move_file` moves or renames a file (`undo_edit` on its destination reverts it).".into())
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
        ToolAnnotations::with_title("Move file").read_only(false).destructive(true).idempotent(false).open_world(false)
    }

    async fn run(&self, input: MoveFileInput, ctx: ToolContext) -> ToolResult {
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let from = sandbox.resolve(&input.source)?;
        let to = sandbox.resolve(&input.destination)?;
        // Both files' locks, in a fixed order (no deadlock with a move the other way).
        let (a, b) = (history_key(&from), history_key(&to));
        let (first, second) = if a <= b { (a, b) } else { (b, a) };
        let _first = self.locks.lock(&first).await;
        let _second = if first != second { Some(self.locks.lock(&second).await) } else { None };
        let editor = Arc::clone(&self.editor);
        let overwrite = input.overwrite.unwrap_or(false);
        let if_sha256 = input.if_sha256;
        let origin =
            crate::editor::Origin::of("move_file", &ctx);
        let reply = blocking("The move", move || {
            editor.move_file(&sandbox, &from, &to, overwrite, if_sha256.as_deref(), &origin)
        })
        .await??;
        let Some(seen) = reply.seen else {
            return Ok(ToolOutput::text(reply.text));
        };
        let shown = Shown {
            tool: "move_file".into(),
            action: "moved",
            path: input.destination,
            from: Some(input.source),
            undo_tool: self.undo_tool.clone(),
        };
        shown.attach(ToolOutput::text(reply.text), Some(seen), None).await
    }
}
