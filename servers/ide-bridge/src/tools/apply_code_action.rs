//! `apply_code_action {path, line, end_line?, diagnostic?, id, apply?, save?, wait_ms?}`: one
//! code action of `code_actions`, previewed as a diff per file, or applied in the IDE.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolOutput, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::{code_actions::range_params, lang};
use crate::{
    bridge::Bridge,
    protocol::{ApplyCodeActionParams, EditResult, METHOD_APPLY_CODE_ACTION},
};

/// The tool's name.
pub const NAME: &str = "apply_code_action";

range_params! {
    /// The input of `apply_code_action`: the range (and `diagnostic`) code_actions was asked for,
    /// and the action's id.
    pub struct ApplyCodeActionInput {
        /// The action's id, from code_actions.
        #[garde(length(min = 1, max = 200))]
        pub id: String,
        /// `true`: apply it. Default `false`: show the diff per file, changing nothing.
        #[garde(skip)]
        #[serde(default)]
        pub apply: bool,
        /// Save the files it changes too (default: left unsaved).
        #[garde(skip)]
        #[serde(default)]
        pub save: bool,
    }
}

/// The structured result of `apply_code_action` and `format`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EditOutput {
    /// The code action's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The change was made.
    pub applied: bool,
    /// The files were saved.
    pub saved: bool,
    /// The action runs an IDE command, whose effect is not in `files`.
    pub command: bool,
    /// The command was run.
    pub ran: bool,
    /// The command the action runs (its id), when the IDE names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_name: Option<String>,
    /// The files, with their number of edits and diff.
    pub files: Vec<lang::ChangedFile>,
    /// The edits in all files.
    pub total_edits: u64,
    /// Files outside the workspace the IDE named (never changed through the bridge).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// How the IDE's apply differs from the preview it gave, a line per difference.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<String>,
}

/// The answer of an edit previewed or applied (`what`: "Applying `title`", "Formatting a.ts").
pub fn edit_answer(what: &str, result: EditResult, notes: lang::Notes) -> ToolOutput {
    let files = lang::changed_files(result.files);
    let edits = lang::total_edits(&files);
    // The command, as the answer names it: its id when the IDE gives it.
    let command = match result.command_name.as_deref().filter(|c| !c.is_empty()) {
        Some(name) => format!("the IDE command `{name}`"),
        None => "an IDE command".to_owned(),
    };
    let mut text = match (files.is_empty(), result.applied) {
        (true, _) if result.ran => format!("{what}: the IDE ran {command} after its user confirmed it (its effect cannot be shown here: check the files with read_file)."),
        (true, _) if result.command => format!(
            "{what} runs {command}, whose effect cannot be shown here (it may change any file); nothing was run. With apply: true the IDE asks its user to confirm the command before it runs it (never in a read-only workspace)."
        ),
        (true, _) => format!("{what} changes nothing."),
        (false, false) => format!(
            "{what} would make {edits} edit(s) in {} file(s); nothing was changed. Call again with apply: true to make it.",
            files.len()
        ),
        (false, true) => format!(
            "{what}: done, {edits} edit(s) in {} file(s), {} (one undo in the IDE reverts it).",
            files.len(),
            if result.saved { "saved" } else { "left unsaved in the IDE (save_file saves them)" }
        ),
    };
    if result.command && !files.is_empty() {
        text.push_str(&match (result.applied, result.ran) {
            (_, true) => format!(" The IDE also ran {command} after its user confirmed it; its effect is not shown here."),
            (true, false) => format!(" Its {command} was not run."),
            (false, _) => format!(
                " It then runs {command}, whose effect cannot be shown here; the IDE asks its user to confirm it before it runs."
            ),
        });
    }
    lang::push_files(&mut text, &files, result.applied, &notes);
    if let Some(warning) = notes.warning() {
        text.insert_str(0, &warning);
    }
    let output = EditOutput {
        title: result.title,
        applied: result.applied,
        saved: result.saved,
        command: result.command,
        ran: result.ran,
        command_name: result.command_name,
        files,
        total_edits: edits,
        refused: notes.refused,
        differences: notes.differences,
    };
    ToolOutput::text_and_json(text, json!(output))
}

/// `apply_code_action`.
#[derive(Debug, Clone)]
pub struct ApplyCodeAction {
    bridge: Bridge,
}

impl ApplyCodeAction {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        ApplyCodeAction { bridge }
    }
}

impl Tool for ApplyCodeAction {
    type Params = ApplyCodeActionInput;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn description(&self) -> Cow<'static, str> {
        "Apply a code action that code_actions listed (same `path`, `line`, `end_line`, `diagnostic`, \
         and its `id`). Without `apply`: its diff per file, nothing changed. `apply: true`: one edit in \
         the IDE, files left unsaved unless `save: true`. An action's IDE command runs on apply only \
         after the IDE's user confirms it. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Apply code action")
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(false)
    }

    fn call_writes(&self, arguments: Option<&JsonObject>) -> bool {
        lang::applies(arguments)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<EditOutput>())
    }

    async fn run(&self, input: ApplyCodeActionInput, _ctx: ToolContext) -> ToolResult {
        let (range, wait) = input.range(&self.bridge).await;
        let wire = ApplyCodeActionParams { range, id: input.id.clone(), apply: input.apply, save: input.save };
        let (result, notes): (EditResult, _) = lang::ask_change(
            &self.bridge,
            METHOD_APPLY_CODE_ACTION,
            &wire,
            input.apply,
            wait,
            NAME,
            "the files it edits",
        )
        .await?;
        if result.loading {
            return Err(lang::still_loading(None, None, &input.shown(), wait));
        }
        let title = result.title.clone().unwrap_or_else(|| mcp_shared::escape::one_line(&input.id).into_owned());
        Ok(edit_answer(&format!("Applying `{title}`"), result, notes))
    }
}
