//! `list_changes`: the changes the writing tools made to the workspace after a point (a change
//! number; all by default), from the change journal, so across restarts and processes: each
//! change (number, time, tool, session, files), and per file what happened over the span
//! (edited, created, deleted, moved from), its lines added and removed, and one combined diff
//! (bounded, saying what it left out). Shown in the "Changes" view, whose buttons revert them.

use std::{borrow::Cow, path::PathBuf, sync::Arc};

use mcp_shared::{
    Tool, ToolContext, ToolOutput, ToolResult, blocking, reexports::rmcp::model::ToolAnnotations, sandbox::Sandbox,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    editor::changes::{Span, Start},
    editor::{Editor, Origin, session_label},
    workspace::EditorRoots,
};

/// Whose changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Sessions {
    /// This session's.
    This,
    /// Every session's and process's.
    All,
}

/// A point in the journal: a change number, `"session"` (this session's start) or
/// `"session:N"` (the start of session N, as list_changes numbers them). A number written as a
/// string (`"3"`) is taken too; anything else is refused with a message that says what is
/// expected (never the type's name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// After this change.
    Change(u64),
    /// Since this session's start.
    ThisSession,
    /// Since the start of session N.
    Session(u64),
}

/// What a point may be, for messages.
pub const POINT_EXPECTED: &str =
    "a change number (0 or more), \"session\" (this session's start) or \"session:N\" (the start of session N)";

impl Point {
    /// The point `text` names, if it names one.
    pub fn parse(text: &str) -> Option<Point> {
        let text = text.trim();
        if text == "session" {
            return Some(Point::ThisSession);
        }
        if let Some(no) = text.strip_prefix("session:") {
            return no.trim().parse().ok().filter(|n| *n > 0).map(Point::Session);
        }
        text.parse().ok().map(Point::Change)
    }
}

impl JsonSchema for Point {
    fn schema_name() -> Cow<'static, str> {
        "Point".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "^(session(:[1-9][0-9]*)?|[0-9]+)$"}
            ]
        })
    }
}

impl<'de> Deserialize<'de> for Point {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = serde_json::Value::deserialize(deserializer)?;
        let point = match &value {
            serde_json::Value::Number(n) => n.as_u64().map(Point::Change),
            serde_json::Value::String(s) => Point::parse(s),
            _ => None,
        };
        point.ok_or_else(|| {
            let shown = mcp_shared::view::shown_briefly(&value.to_string()).to_string();
            D::Error::custom(format!("expected {POINT_EXPECTED}, not {shown}; list_changes gives the numbers"))
        })
    }
}

/// Paths: a list of strings, or one string taken as a list of one.
pub fn paths<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    use serde::de::Error as _;
    let value = Option::<serde_json::Value>::deserialize(deserializer)?;
    let refuse = |value: &serde_json::Value| {
        let shown = mcp_shared::view::shown_briefly(&value.to_string()).to_string();
        D::Error::custom(format!(
            "expected a list of file paths (absolute, or relative to the first root), e.g. [\"src/main.rs\"], not {shown}"
        ))
    };
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(one)) => Ok(Some(vec![one])),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(|| refuse(item)))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(refuse(&other)),
    }
}

/// A change number (`if_latest`), given as a number or a string of digits.
pub fn change_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    use serde::de::Error as _;
    let value = Option::<serde_json::Value>::deserialize(deserializer)?;
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
        Some(serde_json::Value::String(s)) if s.trim().parse::<u64>().is_ok() => Ok(s.trim().parse().ok()),
        Some(other) => {
            let shown = mcp_shared::view::shown_briefly(&other.to_string()).to_string();
            Err(D::Error::custom(format!("expected a change number (0 or more), as list_changes gives it, not {shown}")))
        }
    }
}

/// Which changes. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct ListChangesInput {
    /// List the changes after this change number (0 or absent: every change the journal holds); `"session"`: since this session's start; `"session:N"`: since the start of session N (list_changes numbers the sessions).
    #[serde(default)]
    pub since: Option<Point>,
    /// `"this"`: this session's changes; `"all"`: every session's. Default: this session's over HTTP (several sessions share a server), all over stdio (a restart is a new process).
    #[serde(default)]
    pub sessions: Option<Sessions>,
    /// Only the changes that touched these files (absolute, or relative to the first root).
    #[serde(default, deserialize_with = "paths")]
    #[schemars(with = "Option<Vec<String>>")]
    pub paths: Option<Vec<String>>,
}

/// The span a call names: its point, its sessions and its files.
pub(crate) fn span_of(
    sandbox: &Sandbox,
    point: Point,
    sessions: Option<Sessions>,
    paths: Option<Vec<String>>,
    ctx: &ToolContext,
) -> Span {
    let own = match sessions {
        Some(Sessions::This) => true,
        Some(Sessions::All) => false,
        None => ctx.session().is_some(),
    };
    span_for(sandbox, point, own.then(|| session_label(ctx.session())), paths)
}

/// The span of `point`, of the session `own` (every session's: `None`), on `paths` (all: `None`).
pub(crate) fn span_for(sandbox: &Sandbox, point: Point, own: Option<String>, paths: Option<Vec<String>>) -> Span {
    let paths = paths.map(|paths| paths.iter().map(|p| absolute(sandbox, p)).collect());
    let (after, start) = match point {
        Point::Change(after) => (after, None),
        Point::ThisSession => (0, Some(Start::This)),
        Point::Session(no) => (0, Some(Start::Session(no))),
    };
    Span { after, start, session: own, paths }
}

/// A path the caller named, absolute: resolved in the sandbox when it can be, else (a file that
/// is gone, in a directory that is gone) taken lexically against the first root. It only picks
/// changes of the journal; every file is read and written through the sandbox.
pub(crate) fn absolute(sandbox: &Sandbox, path: &str) -> PathBuf {
    if let Ok(resolved) = sandbox.resolve(path) {
        return resolved.absolute();
    }
    let path = std::path::Path::new(path);
    match sandbox.roots().first() {
        Some(root) if path.is_relative() => root.join(path),
        _ => path.to_path_buf(),
    }
}

/// The tool.
pub struct ListChanges {
    editor: Arc<Editor>,
    workspace: Arc<EditorRoots>,
    revert_tool: Option<String>,
}

impl ListChanges {
    /// The tool, on the text editor's journal.
    pub fn new(editor: Arc<Editor>, workspace: Arc<EditorRoots>) -> ListChanges {
        ListChanges { editor, workspace, revert_tool: None }
    }

    /// The tool the view's Revert buttons call (none: `--read-only`, or not offered).
    pub fn revert_via(mut self, revert_tool: Option<String>) -> Self {
        self.revert_tool = revert_tool;
        self
    }
}

/// The tool's section of the guide.
const GUIDE: &str = r##"
## Reviewing and reverting changes: `list_changes`, `revert_changes`

Every change made with the writing tools is kept in a journal (outside the workspace) that
survives restarts. `list_changes` shows them, numbered, by session (each with its number, client
and start; a session is a process over stdio, an MCP session over HTTP) and by file with one
combined diff per file; `since: N` shows those after change N, `since: "session:3"` those since
session 3 began. `revert_changes` with `to: N` (or `"session:3"`) takes every file back to
how it was after change N, as one step: run it with `dry_run: true` first and show the user the
diff. A file changed by someone else since is never overwritten: the call is refused naming it,
and `force: true` reverts the others and leaves that one as it is. The revert is itself a change:
`revert_changes` to the number before it takes it back.
"##;

/// The tool's description.
pub const DESCRIPTION: &str = "List the changes made to the workspace's files with this server's writing tools (text_editor's create, str_replace, insert, undo_edit; edit_file, move_file, delete_file; revert_changes), kept in a journal that survives restarts: by session (its number, the client that made it, when it started, its change numbers, files and lines), then per file what happened since the point (edited, created, deleted, moved from), lines added and removed, and one combined diff. `since`: only the changes after that change number (\"session\": since this session's start; \"session:N\": since session N's). Use the numbers with revert_changes.";

impl Tool for ListChanges {
    type Params = ListChangesInput;

    fn name(&self) -> Cow<'static, str> {
        "list_changes".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`list_changes` lists the changes made with the writing tools (numbered, across restarts), per file with a combined diff.".into())
    }

    fn guide(&self) -> Option<Cow<'static, str>> {
        Some(GUIDE.into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&crate::view::changes::VIEW)
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("List changes").read_only(true).destructive(false).idempotent(true).open_world(false)
    }

    async fn run(&self, input: ListChangesInput, ctx: ToolContext) -> ToolResult {
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let span = span_of(&sandbox, input.since.unwrap_or(Point::Change(0)), input.sessions, input.paths, &ctx);
        let origin = Origin::of("list_changes", &ctx);
        let editor = Arc::clone(&self.editor);
        let view_span = span.clone();
        let (text, data) = blocking("Listing the changes", move || editor.list_changes(&sandbox, &span, &origin)).await??;
        let view = crate::view::changes::data(&data, &view_span, self.revert_tool.as_deref());
        Ok(ToolOutput::text_and_json(text, data).with_view(view))
    }
}
