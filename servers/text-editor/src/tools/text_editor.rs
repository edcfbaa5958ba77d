//! The `text_editor` tool (name configurable with `--tool-name`): its input schema (bhouston's
//! `mcp-server-text-editor`, so existing clients and prompts work, plus `insert_text`), its
//! description, and the dispatch to the [`Editor`] on a blocking thread, one call per file at a
//! time.

use std::{
    borrow::Cow,
    sync::{Arc, atomic::AtomicBool},
};

use mcp_shared::{ErrorCode, Tool, ToolContext, ToolOutput, ToolResult, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::AbandonOnDrop;
use crate::{
    view::change::Shown,
    editor::{self, Command, Editor, Request},
    error::ToolError,
    locks::FileLocks,
    workspace::EditorRoots,
};

/// The tool's input. Unknown fields are ignored; `null` counts as absent.
// (A doc comment here would become the schema's description.) Each command checks the fields it
// needs itself, with the reference's messages, so garde validates none.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct TextEditorInput {
    /// The commands to run. Allowed options are: `view`, `create`, `str_replace`, `insert`, `undo_edit`.
    #[schemars(extend("enum" = ["view", "create", "str_replace", "insert", "undo_edit"]))]
    pub command: String,
    /// Absolute path to file or directory, e.g. `/repo/file.py` or `/repo`. It must lie inside the server's root(s); a relative path is taken relative to the first root.
    pub path: String,
    /// Required parameter of `create` command, with the content of the file to be created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub file_text: Option<String>,
    /// Required parameter of `insert` command. The `new_str` will be inserted AFTER the line `insert_line` of `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub insert_line: Option<Value>,
    /// Optional parameter of `str_replace` command containing the new string (if not given, no string will be added). Required parameter of `insert` command containing the string to insert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub new_str: Option<String>,
    /// Alias of `new_str` for the `insert` command (the name newer Claude models use). The text is inserted as whole lines: a trailing newline ends its last line and adds no empty line (`"HELLO"` and `"HELLO\n"` both insert the one line `HELLO`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub insert_text: Option<String>,
    /// Required parameter of `str_replace` command containing the string in `path` to replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub old_str: Option<String>,
    /// Optional, for every command: the SHA-256 (hex) the file's content must have; when it has another (it changed since it was read), the call is refused with CONFLICT and nothing is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub if_sha256: Option<String>,
    /// Optional, for `undo_edit` (and `view`, which then only checks it): the id of the change to undo, as the change view names it; refused with CONFLICT unless that change is the file's latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub if_change: Option<String>,
    /// Optional parameter of `view` command when `path` points to a file. If none is given, the full file is shown. If provided, the file will be shown in the indicated line number range, e.g. [11, 12] will show lines 11 and 12. Indexing at 1 to start. Setting `[start_line, -1]` shows all lines from `start_line` to the end of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "[i64; 2]")]
    pub view_range: Option<Value>,
    /// Optional parameter of `str_replace` command: `true` replaces every occurrence of `old_str` (the result says how many) instead of requiring it to be unique.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub replace_all: Option<Value>,
    /// The reason you are using the text editor (max 80 chars). Optional; accepted and ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    #[allow(dead_code, reason = "in the schema (the reference tool has it); never read")]
    pub description: Option<String>,
}

/// The tool's description, as Anthropic's and SWE-agent's `str_replace_editor` word it.
pub const DESCRIPTION: &str = "Custom editing tool for viewing, creating and editing files
* State is persistent across command calls and discussions with the user
* If `path` is a file, `view` displays the result of applying `cat -n`. If `path` is a directory, `view` lists non-hidden files and directories up to 2 levels deep
* The `create` command cannot be used if the specified `path` already exists as a file
* If a `command` generates a long output, it will be truncated and marked with `<response clipped>`
* The `undo_edit` command will revert the last edit made to the file at `path`

Notes for using the `str_replace` command:
* The `old_str` parameter should match EXACTLY one or more consecutive lines from the original file. Be mindful of whitespaces!
* If the `old_str` parameter is not unique in the file, the replacement will not be performed. Make sure to include enough context in `old_str` to make it unique
* The `new_str` parameter should contain the edited lines that should replace the `old_str`
* With `replace_all: true`, every occurrence of `old_str` is replaced (the result says how many, and on which lines)

Notes for using the `insert` command:
* The text is inserted as whole lines after line `insert_line` (0: before the first line), with the file's line endings
* A trailing newline ends the last inserted line and adds no empty line: `\"HELLO\"` and `\"HELLO\\n\"` both insert the one line `HELLO`; `\"HELLO\\n\\n\"` inserts `HELLO` and one empty line

Paths must lie inside the server's root(s). Files keep their encoding (UTF-8, UTF-16, Shift_JIS, EUC-JP, Latin-1, ...), line endings and final newline; binary files are refused.";

/// The tool.
pub struct TextEditor {
    name: String,
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
    locks: Arc<FileLocks>,
    read_only: bool,
    undo_tool: Option<String>,
}

impl TextEditor {
    /// The tool named `name`, editing with `editor` inside `workspace`, sharing `locks` with the
    /// other tools that write (`move_file`, `delete_file`).
    pub fn with_locks(
        name: impl Into<String>,
        editor: Arc<Editor>,
        workspace: Arc<EditorRoots>,
        locks: Arc<FileLocks>,
    ) -> TextEditor {
        TextEditor { name: name.into(), editor, workspace, locks, read_only: false, undo_tool: None }
    }

    /// With `read_only`, every command but `view` is refused (`--read-only`).
    pub fn read_only(mut self, read_only: bool) -> TextEditor {
        self.read_only = read_only;
        self
    }

    /// The tool whose `undo_edit` the change view's Undo calls: this one, when it keeps an undo
    /// history (none: no Undo).
    pub fn undo_via(mut self, undo_tool: Option<String>) -> Self {
        self.undo_tool = undo_tool;
        self
    }

    async fn call(&self, input: TextEditorInput, ctx: &ToolContext) -> Result<editor::Reply, ToolError> {
        let Some(command) = Command::parse(&input.command) else {
            let allowed: Vec<&str> = Command::ALL.iter().map(|c| c.as_str()).collect();
            return Err(ToolError::new(
                ErrorCode::UnknownAction,
                format!(
                    "Unrecognized command {}. The allowed commands for the {} tool are: {}",
                    input.command,
                    self.name,
                    allowed.join(", ")
                ),
            ));
        };
        if self.read_only && command != Command::View {
            return Err(ToolError::new(
                ErrorCode::ReadOnly,
                format!(
                    "This server is read-only (--read-only): the {} command was refused and nothing was changed. Only `view` works here; ask the user to make the change, or to start the server without --read-only.",
                    command.as_str()
                ),
            ));
        }
        let sandbox = self.workspace.sandbox(ctx).await?;
        let path = editor::resolve(&sandbox, &input.path, command)?;
        let request = Request {
            file_text: input.file_text,
            view_range: input.view_range,
            old_str: input.old_str,
            new_str: match command {
                Command::Insert => input.new_str.or(input.insert_text),
                _ => input.new_str,
            },
            insert_line: input.insert_line,
            if_sha256: input.if_sha256,
            if_change: input.if_change,
            origin: editor::Origin::of(&format!("{} {}", self.name, command.as_str()), ctx),
            replace_all: match input.replace_all {
                None | Some(Value::Null) | Some(Value::Bool(false)) => false,
                Some(Value::Bool(true)) => true,
                Some(other) => {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArgs,
                        format!("Parameter `replace_all` must be true or false, not {other}."),
                    ));
                }
            },
        };
        let guard = self.locks.lock(&editor::history_key(&path)).await;
        // Every command runs on a blocking thread: file-system calls never stall the runtime
        // (on stdio its only thread, which also answers `ping` and enforces `--tool-timeout`).
        let editor = Arc::clone(&self.editor);
        // Dropped with this future when the call times out or is cancelled: the blocking work
        // (which cannot be stopped) then writes nothing.
        let abandoned = AbandonOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = Arc::clone(&abandoned.0);
        let work = tokio::task::spawn_blocking(move || {
            let _guard = guard;
            editor.execute_unless_abandoned(&sandbox, command, &path, request, &flag)
        });
        match work.await {
            Ok(result) => result,
            Err(error) => {
                tracing::error!(%error, "editor task failed");
                Err(ToolError::new(
                    ErrorCode::InternalError,
                    "The command failed unexpectedly; nothing more was changed. The server logged the details; retry.",
                ))
            }
        }
    }
}

impl Tool for TextEditor {
    type Params = TextEditorInput;

    fn name(&self) -> Cow<'static, str> {
        self.name.clone().into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some(format!(
            "`{}` (Claude's text editor tool) views, creates and edits text files: \
             `view` shows a file with line numbers (`view_range` [start, end] for part of it; -1 = to the end; [-20, -1] = the last 20 lines) or lists a directory two levels deep; \
             `create` makes a new file (never overwrites); \
             `str_replace` replaces `old_str`, which must match exactly one place (whitespace included; add surrounding lines to make it unique); \
             `insert` adds `new_str` as whole lines after line `insert_line` (0 = top; a trailing newline adds no empty line); \
             `undo_edit` reverts the last edit of a file. \
             View a file before editing it and check the snippet after each edit.",
            self.name
        ).into())
    }

    fn guide(&self) -> Option<Cow<'static, str>> {
        Some(crate::guide::TEXT_EDITOR.into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        // A read-only editor changes nothing: there is no change to show.
        (!self.read_only).then_some(&crate::view::change::VIEW)
    }

    fn always_load(&self) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Text editor")
            .read_only(self.read_only)
            .destructive(!self.read_only)
            .idempotent(self.read_only)
            .open_world(false)
    }

    fn call_writes(&self, arguments: Option<&mcp_shared::reexports::rmcp::model::JsonObject>) -> bool {
        // `view` changes nothing: with OAuth it needs the read scope only.
        !self.read_only && arguments.and_then(|a| a.get("command")).and_then(Value::as_str) != Some("view")
    }

    async fn run(&self, input: TextEditorInput, ctx: ToolContext) -> ToolResult {
        let (command, path) = (input.command.clone(), input.path.clone());
        let reply = self.call(input, &ctx).await?;
        let action = match command.as_str() {
            "create" => "created",
            "str_replace" => "edited",
            "insert" => "inserted",
            "undo_edit" => "undone",
            _ => "",
        };
        // One text block: clients that read only the first block still see the note (it follows
        // the reference's text, which stays a byte-exact prefix).
        let output = ToolOutput::text(match reply.note {
            Some(note) => format!("{}\n{note}", reply.text),
            None => reply.text,
        });
        match reply.seen {
            Some(seen) if !action.is_empty() => {
                let shown = Shown { tool: self.name.clone(), action, path, from: None, undo_tool: self.undo_tool.clone() };
                shown.attach(output, Some(seen), None).await
            }
            _ => Ok(output),
        }
    }
}
