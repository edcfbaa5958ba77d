//! What the language-server tools share: a symbol named by its text on a line (models get
//! columns wrong, so the host finds the column), the wait for a language server that is still
//! starting, and how locations read.

use std::time::Duration;

use mcp_shared::{ErrorCode, ToolError, ToolOutput, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use crate::{
    bridge::{
        Bridge,
        error::Op,
        previews::{self, Described},
    },
    protocol::{
        DEFAULT_LANG_WAIT_MS, HierarchyItem, HierarchyResult, Location, LocationsResult, MAX_LANG_WAIT_MS,
        MAX_SYMBOL_CHARS, RenameFile, Resolved, Untrusted,
    },
};

/// The structured result of `find_definition`, `find_implementations` and `find_references`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LocationsOutput {
    /// The symbol looked up.
    pub symbol: String,
    /// Where it was found on the line (and the document's language).
    pub resolved: Resolved,
    /// The locations: `{path, line, column, endLine, endColumn, text}` in the workspace, or
    /// `{external, line, …}` for a file outside it (a library's declarations; not readable).
    pub locations: Vec<Location>,
    /// How many more there were beyond the first 500.
    pub truncated: u64,
}

/// The answer of `find_definition` (`what` = "definition"), `find_implementations`
/// ("implementations") or `find_references`.
pub fn locations_answer(
    what: &str,
    path: &str,
    symbol: &str,
    column_given: bool,
    result: LocationsResult,
    wait_ms: u64,
) -> ToolResult {
    if result.loading {
        return Err(still_loading(Some(&result.resolved), None, &format!("`{symbol}` in {path}"), wait_ms));
    }
    let at = resolved_note(path, symbol, &result.resolved, column_given);
    let mut text = match (what, result.locations.len()) {
        ("definition", 0) => format!(
            "No definition found for {at}: the language server knows of none (a keyword, a literal, or a name it cannot resolve)."
        ),
        ("definition", _) => format!("The definition of {at}:"),
        ("implementations", 0) => format!(
            "No implementations of {at}: the language server knows of none (it is not an interface, abstract member or overridable method, or nothing implements it)."
        ),
        ("implementations", n) => {
            format!("{n}{} implementation(s) of {at}:", if result.truncated > 0 { "+" } else { "" })
        }
        (_, 0) => format!("No references to {at}."),
        (_, n) => format!("{n}{} reference(s) to {at}:", if result.truncated > 0 { "+" } else { "" }),
    };
    for location in &result.locations {
        text.push('\n');
        text.push_str(&location_line(location));
    }
    if result.truncated > 0 {
        text.push_str(&format!("\n… and {} more, not listed.", result.truncated));
    }
    let output = LocationsOutput {
        symbol: symbol.to_owned(),
        resolved: result.resolved,
        locations: result.locations,
        truncated: result.truncated,
    };
    Ok(ToolOutput::text_and_json(text, json!(output)))
}

/// Declares a tool's input that names a symbol at a position: `path`, `line`, `symbol`,
/// `column?`, then the tool's own fields, then `wait_ms?`, with the methods that turn it into the
/// wire's [`SymbolAt`]. The position's fields, their documentation and their checks are written
/// here once; a tool that needs nothing more uses [`SymbolParams`].
///
/// serde's `flatten` would let one struct be embedded instead, but it cannot be combined with
/// `deny_unknown_fields` (every bridge tool refuses unknown fields, and its schema says so).
macro_rules! symbol_params {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The file, relative to the workspace (`folder/path` if it has several folders).
            #[garde(length(min = 1))]
            pub path: String,
            /// The line the symbol is on, from 1.
            #[garde(range(min = 1))]
            pub line: u32,
            /// The symbol's text on that line (`parseConfig`; for `cfg.port`, `port`).
            #[garde(custom($crate::tools::lang::symbol_text))]
            pub symbol: String,
            /// Only if it occurs more than once on the line: a column (from 1) in or before the one
            /// wanted (default: the first).
            #[garde(inner(range(min = 1)))]
            #[serde(default)]
            pub column: Option<u32>,
            $($(#[$field_meta])* pub $field: $ty,)*
            /// Wait for a starting language server, in ms (default 10000, at most 20000).
            #[garde(inner(range(max = $crate::protocol::MAX_LANG_WAIT_MS)))]
            #[serde(default)]
            pub wait_ms: Option<u64>,
        }

        impl $name {
            /// The wire's symbol (the path made the host's) and how long to wait for it.
            pub async fn at(&self, bridge: &$crate::bridge::Bridge) -> ($crate::protocol::SymbolAt, u64) {
                let wait = $crate::tools::lang::wait_ms(bridge, self.wait_ms);
                let at = $crate::protocol::SymbolAt {
                    path: $crate::tools::host_path(bridge, &self.path).await,
                    line: self.line,
                    symbol: self.symbol.clone(),
                    column: self.column,
                    wait_ms: Some(wait),
                };
                (at, wait)
            }
        }
    };
}

pub(crate) use symbol_params;

symbol_params! {
    /// A symbol at a position: the input of `find_definition` and `describe_symbol`.
    pub struct SymbolParams {}
}

/// The structured result of `call_hierarchy` and `type_hierarchy`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HierarchyOutput {
    /// The symbol looked up.
    pub symbol: String,
    /// Where it was found on the line (and the document's language).
    pub resolved: Resolved,
    /// Whether the language server has a hierarchy for it.
    pub found: bool,
    /// The callers or callees (where each call is), or the supertypes and subtypes, level by
    /// level: `{relation, name, kind, path, line, column, text, depth, of}`.
    pub items: Vec<HierarchyItem>,
    /// How many more there were beyond the first 200.
    pub truncated: u64,
}

/// The answer of `call_hierarchy` (`what`: "calls") or `type_hierarchy` ("types").
pub fn hierarchy_answer(
    what: &str,
    path: &str,
    symbol: &str,
    column_given: bool,
    result: HierarchyResult,
    wait_ms: u64,
) -> ToolResult {
    if result.loading {
        return Err(still_loading(Some(&result.resolved), None, &format!("`{symbol}` in {path}"), wait_ms));
    }
    let at = resolved_note(path, symbol, &result.resolved, column_given);
    let server = server_name(result.resolved.language.as_deref());
    let mut text = match (what, result.found, result.items.len()) {
        ("calls", false, _) => format!(
            "{server} has no call hierarchy for {at}: it is not a function or method the language server knows (name the function where it is declared or called)."
        ),
        (_, false, _) => format!(
            "{server} gives no type hierarchy for {at}: the language server offers none for this language, or it is not a class or interface. find_implementations and find_references find the implementations and uses instead."
        ),
        ("calls", true, 0) => format!("No calls found for {at}."),
        (_, true, 0) => format!("No supertypes or subtypes of {at}."),
        (_, true, n) => format!(
            "{n}{} item(s) for {at} (path:line: who, and the line):",
            if result.truncated > 0 { "+" } else { "" }
        ),
    };
    for item in &result.items {
        let place = match (&item.path, &item.external) {
            (Some(path), _) => format!("{path}:{}", item.line),
            (None, Some(name)) => format!("{name}:{} (outside the workspace)", item.line),
            (None, None) => format!("?:{}", item.line),
        };
        let of = item.of.as_deref().map(|of| format!(", of {of}")).unwrap_or_default();
        let line = item.text.as_deref().map(|t| format!(": {}", t.trim())).unwrap_or_default();
        text.push_str(&format!(
            "\n{}{} {place}: {} ({}{of}){line}",
            "  ".repeat(item.depth.clamp(1, crate::protocol::MAX_HIERARCHY_DEPTH) as usize - 1),
            item.relation,
            item.name,
            item.kind
        ));
    }
    if result.truncated > 0 {
        text.push_str(&format!("\n… and {} more, not listed.", result.truncated));
    }
    let output = HierarchyOutput {
        symbol: symbol.to_owned(),
        resolved: result.resolved,
        found: result.found,
        items: result.items,
        truncated: result.truncated,
    };
    Ok(ToolOutput::text_and_json(text, json!(output)))
}

/// The largest diff shown per file.
pub const MAX_FILE_DIFF_BYTES: usize = 8 * 1024;

/// The most diff text one answer shows, all files together: the files past it are listed
/// without their diff.
pub const MAX_DIFFS_BYTES: usize = 32 * 1024;

/// One file an edit changes (a rename, a code action, formatting).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedFile {
    /// The file.
    pub path: String,
    /// How many places in it change.
    pub edits: u32,
    /// The unified diff (at most 8 KiB; absent when the file is over the host's size limit, or
    /// past the answer's bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Its diff was left out to keep the answer within its bound (read the file instead).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diff_left_out: bool,
}

/// The files a host says an edit changes, each with its diff, the diffs within
/// [`MAX_DIFFS_BYTES`] in all.
pub fn changed_files(files: Vec<RenameFile>) -> Vec<ChangedFile> {
    let mut room = MAX_DIFFS_BYTES;
    files
        .into_iter()
        .map(|file| {
            let mut diff_left_out = false;
            let diff = match (&file.before, &file.after) {
                (Some(before), Some(after)) if room > 0 => {
                    let name = file.path.as_str();
                    let (old, new) = (format!("a/{name}"), format!("b/{name}"));
                    let text = mcp_shared::diff::unified(before, after, &old, &new, MAX_FILE_DIFF_BYTES.min(room)).text;
                    room = room.saturating_sub(text.len());
                    Some(text)
                }
                (Some(_), Some(_)) => {
                    diff_left_out = true;
                    None
                }
                _ => None,
            };
            ChangedFile { path: file.path, edits: file.edits, diff, diff_left_out }
        })
        .collect()
}

/// The edits of all `files`, counted without wrapping.
pub fn total_edits(files: &[ChangedFile]) -> u64 {
    files.iter().map(|f| u64::from(f.edits)).sum()
}

/// What a change's answer says besides its files: the files outside the workspace the host
/// named, the workspace files left out, and how an apply differs from its preview.
#[derive(Debug, Default)]
pub struct Notes {
    /// Files outside the workspace the host named (escaped).
    pub refused: Vec<String>,
    /// Workspace files left out of the answer (its bound).
    pub files_left_out: u64,
    /// How the apply differs from the preview it followed, a line each.
    pub differences: Vec<String>,
}

impl Notes {
    /// The warning that starts an apply's answer when it differs from its preview.
    pub fn warning(&self) -> Option<String> {
        if self.differences.is_empty() {
            return None;
        }
        let mut text = String::from(
            "Warning: what the IDE applied differs from the preview it gave (the IDE made the change; check these files with read_file, and undo it in the IDE if it is not wanted):",
        );
        for difference in &self.differences {
            text.push_str("\n  - ");
            text.push_str(difference);
        }
        text.push('\n');
        Some(text)
    }
}

/// Each file of an edit on a line of its own (`path (n edit(s))`), the files left out and those
/// outside the workspace that the host named, then, when the edit was only previewed, each
/// file's diff.
pub fn push_files(text: &mut String, files: &[ChangedFile], applied: bool, notes: &Notes) {
    for file in files {
        text.push_str(&format!("\n{} ({} edit(s))", file.path, file.edits));
    }
    if notes.files_left_out > 0 {
        text.push_str(&format!("\n… and {} more file(s), not listed (the answer's size bound).", notes.files_left_out));
    }
    if !notes.refused.is_empty() {
        let names: Vec<String> = notes.refused.iter().take(10).map(|n| format!("`{n}`")).collect();
        let more = notes.refused.len().saturating_sub(10);
        text.push_str(&format!(
            "\n{} {} file(s) outside the workspace, not counted above: {}{}.",
            if applied {
                "Warning: the IDE says its edit also changed"
            } else {
                "Refused: the IDE's edit would also change"
            },
            notes.refused.len(),
            names.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
        if !applied {
            text.push_str(" The bridge does not apply an edit that reaches outside the workspace.");
        }
    }
    if !applied {
        for diff in files.iter().filter_map(|f| f.diff.as_deref()) {
            text.push('\n');
            text.push_str(diff);
        }
        let left_out = files.iter().filter(|f| f.diff_left_out).count();
        if left_out > 0 {
            text.push_str(&format!(
                "\n(The diffs of {left_out} more file(s) are left out: the answer shows at most {} KiB of diffs. read_file shows a file.)",
                MAX_DIFFS_BYTES / 1024
            ));
        }
    }
}

/// A host's answer that describes a change: its files, the files it named outside the
/// workspace, the command it runs.
pub trait DescribesChange {
    /// The change as the bridge shows it.
    fn described(&self) -> Described;
    /// Its notes, before any comparison with a preview.
    fn notes(&self) -> Notes;
    /// The language server was still starting (the answer describes nothing).
    fn loading(&self) -> bool;
}

impl DescribesChange for crate::protocol::RenameResult {
    fn described(&self) -> Described {
        Described::of(&self.files, &self.refused, None)
    }

    fn notes(&self) -> Notes {
        Notes { refused: self.refused.clone(), files_left_out: self.files_left_out, differences: Vec::new() }
    }

    fn loading(&self) -> bool {
        self.loading
    }
}

impl DescribesChange for crate::protocol::EditResult {
    fn described(&self) -> Described {
        let command = self.command.then(|| self.command_name.clone().unwrap_or_default());
        Described::of(&self.files, &self.refused, command)
    }

    fn notes(&self) -> Notes {
        Notes { refused: self.refused.clone(), files_left_out: self.files_left_out, differences: Vec::new() }
    }

    fn loading(&self) -> bool {
        self.loading
    }
}

/// Asks the host for a change (`lang/rename`, `lang/applyCodeAction`, `lang/format`), previewed
/// or applied, held to its preview: a preview is remembered; an apply whose preview named files
/// outside the workspace is refused before it is sent; before an apply is sent, the change is
/// previewed again and refused (`CONFLICT`) when it moved since the preview (the files' texts
/// before or after, the files, the command); an apply is compared with the preview it follows,
/// and the answer's notes say how it differs.
pub async fn ask_change<P, T>(
    bridge: &Bridge,
    method: &str,
    params: &P,
    apply: bool,
    wait_ms: u64,
    tool: &'static str,
    changes: &str,
) -> Result<(T, Notes), ToolError>
where
    P: serde::Serialize,
    T: serde::de::DeserializeOwned + Untrusted + DescribesChange,
{
    let key = previews::key_of(tool, params);
    let preview = if apply { bridge.previews().recall(&key) } else { None };
    if let Some(outside) = preview.as_ref().map(|p| &p.refused).filter(|r| !r.is_empty()) {
        let names: Vec<String> = outside.iter().take(10).map(|n| format!("`{n}`")).collect();
        return Err(ToolError::new(
            ErrorCode::AccessDenied,
            format!(
                "Nothing was applied: the IDE's preview of this change also changes {} file(s) outside the workspace ({}), and the bridge never applies an edit that reaches outside it. Make that change in the IDE itself if it is wanted.",
                outside.len(),
                names.join(", ")
            ),
        ));
    }
    if let Some(preview) = &preview {
        // The change as it would be made now, held to the one the preview showed.
        let mut again = serde_json::to_value(params).map_err(|e| {
            ToolError::new(ErrorCode::InternalError, format!("the preview's params could not be written: {e}"))
        })?;
        again["apply"] = json!(false);
        if again.get("save").is_some() {
            again["save"] = json!(false);
        }
        let now: T = ask(bridge, method, &again, wait_ms, tool).await?;
        let moved = if now.loading() { Vec::new() } else { now.described().differences(preview) };
        if !moved.is_empty() {
            return Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "Nothing was applied: the change is not the one its preview showed any more ({}). Preview it again, then decide.",
                    moved.join("; ")
                ),
            ));
        }
    }
    let result: T = ask_or_change(bridge, method, params, wait_ms, tool, apply.then_some(changes)).await?;
    if result.loading() {
        return Ok((result, Notes::default()));
    }
    let described = result.described();
    let mut notes = result.notes();
    match preview {
        Some(preview) => notes.differences = described.differences(&preview),
        None if !apply => bridge.previews().remember(key, described),
        None => {}
    }
    Ok((result, notes))
}

/// Whether a call of a tool that previews unless told `apply: true` changes anything: a preview
/// only reads (with OAuth, the read scope is enough for it).
pub fn applies(arguments: Option<&mcp_shared::reexports::rmcp::model::JsonObject>) -> bool {
    arguments.and_then(|a| a.get("apply")).and_then(serde_json::Value::as_bool) == Some(true)
}

/// A `symbol` (or `new_name`): one line of text without surrounding spaces, at most 256
/// characters.
pub fn symbol_text(value: &str, _: &()) -> garde::Result {
    if value.is_empty() {
        return Err(garde::Error::new("must not be empty"));
    }
    if value.chars().count() > MAX_SYMBOL_CHARS {
        return Err(garde::Error::new(format!("must be at most {MAX_SYMBOL_CHARS} characters")));
    }
    if value.contains(['\n', '\r']) {
        return Err(garde::Error::new("must be one line (the text of the symbol, not a snippet)"));
    }
    if value.trim() != value {
        return Err(garde::Error::new("must not start or end with spaces"));
    }
    Ok(())
}

/// The host-side wait for a language server: `asked` (or the default), kept within the tool
/// timeout.
pub fn wait_ms(bridge: &Bridge, asked: Option<u64>) -> u64 {
    let limit = u64::try_from(bridge.max_wait().as_millis()).unwrap_or(u64::MAX);
    asked.unwrap_or(DEFAULT_LANG_WAIT_MS).min(MAX_LANG_WAIT_MS).min(limit)
}

/// Calls a `lang/*` method whose host waits up to `wait_ms` for the language server.
pub async fn ask<P: serde::Serialize, T: serde::de::DeserializeOwned + Untrusted>(
    bridge: &Bridge,
    method: &str,
    params: &P,
    wait_ms: u64,
    tool: &'static str,
) -> Result<T, ToolError> {
    bridge
        .request_waiting(method, params, Duration::from_millis(wait_ms))
        .await
        .map(Untrusted::bounded)
        .map_err(|e| e.to_error(Op::Ide(tool)))
}

/// [`ask`] for a method that changes files when `changes` names them (an applied rename, code
/// action or formatting): the IDE completes such a change even when its answer is lost, and the
/// error says so.
pub async fn ask_or_change<P: serde::Serialize, T: serde::de::DeserializeOwned + Untrusted>(
    bridge: &Bridge,
    method: &str,
    params: &P,
    wait_ms: u64,
    tool: &'static str,
    changes: Option<&str>,
) -> Result<T, ToolError> {
    let Some(what) = changes else {
        return ask(bridge, method, params, wait_ms, tool).await;
    };
    bridge
        .request_waiting(method, params, Duration::from_millis(wait_ms))
        .await
        .map(Untrusted::bounded)
        .map_err(|e| e.to_error(Op::Change(tool, what)))
}

/// Who answers for a language id, as a user would name it.
pub fn server_name(language: Option<&str>) -> String {
    match language {
        Some("typescript" | "typescriptreact" | "javascript" | "javascriptreact") => "TypeScript".into(),
        Some("rust") => "rust-analyzer".into(),
        Some("python") => "The Python language server".into(),
        Some("go") => "gopls".into(),
        Some(other) => format!("The {other} language server"),
        None => "The language server".into(),
    }
}

/// The answer when the language server was still starting: said plainly, never an empty result.
pub fn still_loading(resolved: Option<&Resolved>, language: Option<&str>, what: &str, wait_ms: u64) -> ToolError {
    let language = language.or(resolved.and_then(|r| r.language.as_deref()));
    ToolError::new(
        ErrorCode::Unavailable,
        format!(
            "{} is still loading the project: it had no answer for {what} within {:.1} s. Retry in a few seconds (a longer wait_ms, up to 20000, waits more).",
            server_name(language),
            wait_ms as f64 / 1000.0
        ),
    )
}

/// `path:line: text`, or `external file (name), line N` for a file outside the workspace.
pub fn location_line(location: &Location) -> String {
    match (&location.path, &location.external) {
        (Some(path), _) => match &location.text {
            Some(text) => format!("{path}:{}:{}: {}", location.line, location.column, text.trim()),
            None => format!("{path}:{}:{}", location.line, location.column),
        },
        (None, Some(name)) => format!("{name}:{} (outside the workspace: not readable here)", location.line),
        (None, None) => format!("?:{}", location.line),
    }
}

/// Where the symbol was found, and a note when the line had it more than once.
pub fn resolved_note(path: &str, symbol: &str, resolved: &Resolved, column_given: bool) -> String {
    let mut note = format!("`{symbol}` at {path}:{}:{}", resolved.line, resolved.column);
    if resolved.occurrences > 1 && !column_given {
        note.push_str(&format!(
            " (it occurs {} times on that line; the first was used: pass `column` to pick another)",
            resolved.occurrences
        ));
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symbol_tool_takes_the_position_alike() {
        use super::super::{find_references::FindReferencesParams, rename_symbol::RenameSymbolParams};
        let properties = |schema: schemars::Schema| schema.as_value()["properties"].clone();
        let plain = properties(schemars::schema_for!(SymbolParams));
        for other in [
            properties(schemars::schema_for!(FindReferencesParams)),
            properties(schemars::schema_for!(RenameSymbolParams)),
        ] {
            for field in ["path", "line", "symbol", "column", "wait_ms"] {
                assert_eq!(other[field], plain[field], "{field}");
            }
        }
        let refused: Result<SymbolParams, _> =
            serde_json::from_value(json!({"path": "a.ts", "line": 1, "symbol": "x", "new_name": "y"}));
        assert!(refused.is_err(), "unknown fields are refused");
        let taken: RenameSymbolParams =
            serde_json::from_value(json!({"path": "a.ts", "line": 1, "symbol": "x", "new_name": "y"})).unwrap();
        assert_eq!((taken.line, taken.new_name.as_str(), taken.apply), (1, "y", false));
    }

    #[test]
    fn symbols_are_one_trimmed_line() {
        assert!(symbol_text("answer", &()).is_ok());
        assert!(symbol_text("operator+", &()).is_ok());
        assert!(symbol_text("", &()).is_err());
        assert!(symbol_text(" answer", &()).is_err());
        assert!(symbol_text("a\nb", &()).is_err());
        assert!(symbol_text(&"x".repeat(MAX_SYMBOL_CHARS + 1), &()).is_err());
    }

    #[test]
    fn locations_read_as_path_line_and_text() {
        let inside = Location {
            path: Some("src/a.ts".into()),
            external: None,
            line: 3,
            column: 14,
            end_line: 3,
            end_column: 20,
            text: Some("  export const answer = 42;".into()),
        };
        assert_eq!(location_line(&inside), "src/a.ts:3:14: export const answer = 42;");
        let outside = Location { path: None, external: Some("lib.es5.d.ts".into()), text: None, ..inside };
        assert_eq!(location_line(&outside), "lib.es5.d.ts:3 (outside the workspace: not readable here)");
        assert_eq!(server_name(Some("typescriptreact")), "TypeScript");
        let loading = still_loading(None, Some("rust"), "`x`", 10_000);
        let message = &loading.message;
        assert!(message.starts_with("rust-analyzer is still loading the project") && message.contains("10.0 s"));
    }
}
