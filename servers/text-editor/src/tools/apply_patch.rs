//! `apply_patch` (the `codex` profile's editing tool): Codex's JSON `apply_patch` tool, one
//! required string `input`, the whole patch, applied as codex-cli 0.171.0's program applies it
//! and answered with its texts (the editor's `apply_patch`, see `editor/apply_patch.rs`), all
//! or nothing, as one change of the journal.

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{Tool, ToolContext, ToolOutput, ToolResult, blocking, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{editor::Editor, workspace::EditorRoots};

/// The tool's input, as Codex's JSON tool takes it. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct ApplyPatchInput {
    /// The entire contents of the apply_patch command
    pub input: String,
}

/// The tool.
pub struct ApplyPatch {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
}

impl ApplyPatch {
    /// The tool, on the editor and its workspace.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>) -> ApplyPatch {
        ApplyPatch { editor, workspace }
    }
}

/// The tool's name.
pub const NAME: &str = "apply_patch";

/// The tool's description: the patch language, essentials first (within 2,048 bytes).
pub const DESCRIPTION: &str = "Use the `apply_patch` tool to edit files. `input` is the whole patch:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Each section starts with one of three headers:
*** Add File: <path> - create a file; every following line is a + line (its contents).
*** Delete File: <path> - delete a file; nothing follows.
*** Update File: <path> - patch a file in place; optionally followed by *** Move to: <new path> to rename it.
Then one or more hunks, each introduced by @@ (optionally followed by a line such as a class or function definition that narrows where the hunk is). In a hunk, each line starts with ' ' (context), '-' (removed) or '+' (added). Show 3 lines of context above and below each change; use @@ lines when 3 lines are not unique. *** End of File marks a hunk that ends the file.

Example:
*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print(\"Hi\")
+print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch

Paths are relative to the workspace's first root (never absolute outside it). The patch is applied whole or not at all, as one change that list_changes shows and revert_changes takes back.";

impl Tool for ApplyPatch {
    type Params = ApplyPatchInput;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`apply_patch` edits files with a patch in Codex's format (`*** Begin Patch` … `*** End Patch`), all or nothing.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn always_load(&self) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Apply patch").read_only(false).destructive(true).idempotent(false).open_world(false)
    }

    async fn run(&self, input: ApplyPatchInput, ctx: ToolContext) -> ToolResult {
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let editor = Arc::clone(&self.editor);
        let origin = crate::editor::Origin::of(NAME, &ctx);
        let out = blocking("The patch", move || editor.apply_patch(&sandbox, &input.input, &origin)).await??;
        Ok(ToolOutput::text(out))
    }
}
