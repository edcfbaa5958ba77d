//! Version 3 (`docs/ide-bridge-protocol.md` §4.11–§4.17): the IDE's language servers, and changes
//! the user approves.
//!
//! - `lang/definition`, `lang/references`, `lang/hover`: a symbol at a position, found by its
//!   text on a line (the host finds the column: models get columns wrong);
//! - `lang/symbols`: a file's outline, or the workspace's symbols matching a query;
//! - `lang/rename`: a rename previewed (per-file old and new text) or applied as one edit;
//! - `ide/openDiff`, `ide/closeDiffs`: a proposed change shown in the diff view, and the user's
//!   decision on it;
//! - `ide/saveFile`: save an editor's unsaved changes.
//!
//! Lines and columns are 1-based, columns counted in UTF-16 code units as editors count them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `lang/definition`: where the symbol is defined.
pub const METHOD_DEFINITION: &str = "lang/definition";
/// `lang/references`: where the symbol is used.
pub const METHOD_REFERENCES: &str = "lang/references";
/// `lang/hover`: the symbol's type and documentation.
pub const METHOD_HOVER: &str = "lang/hover";
/// `lang/symbols`: a file's outline, or a workspace symbol search.
pub const METHOD_SYMBOLS: &str = "lang/symbols";
/// `lang/rename`: rename a symbol everywhere, previewed or applied.
pub const METHOD_RENAME: &str = "lang/rename";
/// `ide/openDiff`: show a proposed change and wait for the user's decision.
pub const METHOD_OPEN_DIFF: &str = "ide/openDiff";
/// `ide/closeDiffs`: close the diff views the host opened.
pub const METHOD_CLOSE_DIFFS: &str = "ide/closeDiffs";
/// `ide/saveFile`: save a file's unsaved editor changes.
pub const METHOD_SAVE_FILE: &str = "ide/saveFile";

/// How long a host waits by default for a language server that is still starting.
pub const DEFAULT_LANG_WAIT_MS: u64 = 10_000;
/// The longest language-server wait a bridge may ask for.
pub const MAX_LANG_WAIT_MS: u64 = 20_000;
/// The most locations or symbols one answer carries (the rest is counted in `truncated`).
pub const MAX_LOCATIONS: usize = 500;
/// The longest symbol text a position names.
pub const MAX_SYMBOL_CHARS: usize = 256;
/// How long `open_diff` waits for the user by default.
pub const DEFAULT_DIFF_WAIT_MS: u64 = 25_000;
/// The longest wait for the user a bridge may ask for.
pub const MAX_DIFF_WAIT_MS: u64 = 600_000;

/// A symbol at a position: `lang/definition`, `lang/hover` params (and the start of the others').
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolAt {
    /// The file (relative, or `folder-name/…`).
    pub path: String,
    /// The line the symbol is on, from 1.
    pub line: u32,
    /// The symbol's text, exactly as on the line (an identifier: `answer`, `Foo.bar` is `bar`).
    pub symbol: String,
    /// Which occurrence on the line (a column from 1 inside it, or the nearest after it); absent:
    /// the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// How long to wait for a language server that is still starting (milliseconds; the host's
    /// default when absent, at most [`MAX_LANG_WAIT_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// `lang/references` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferencesParams {
    /// The symbol.
    #[serde(flatten)]
    pub at: SymbolAt,
    /// Count the declaration itself among the references (default true).
    #[serde(default = "yes")]
    pub include_declaration: bool,
}

/// Where the host found the symbol, and who answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resolved {
    /// The line, from 1.
    pub line: u32,
    /// The symbol's first column, from 1 (UTF-16 code units).
    pub column: u32,
    /// How many times the symbol occurs on the line (pass `column` to pick another).
    #[serde(default = "one")]
    pub occurrences: u32,
    /// The document's language id (`typescript`, `rust`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// A place in a file: a workspace file with its line's text, or a file outside the workspace
/// (a library's declarations) named only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// The workspace file (absent for an external one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A file outside the workspace folders: its name only (e.g. `lib.es5.d.ts`); its content is
    /// never returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<String>,
    /// The first line, from 1.
    pub line: u32,
    /// The first column, from 1.
    pub column: u32,
    /// The last line.
    pub end_line: u32,
    /// The column after the range.
    pub end_column: u32,
    /// The text of `line` (workspace files only; at most 400 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `lang/definition` and `lang/references` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocationsResult {
    /// The symbol the host looked up.
    pub resolved: Resolved,
    /// The locations, workspace files first, by path then position.
    pub locations: Vec<Location>,
    /// How many more there were beyond [`MAX_LOCATIONS`].
    #[serde(default)]
    pub truncated: u64,
    /// The language server was still starting when the wait ran out: `locations` means nothing.
    #[serde(default)]
    pub loading: bool,
}

/// `lang/hover` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoverResult {
    /// The symbol the host looked up.
    pub resolved: Resolved,
    /// The hover's parts as Markdown (a type signature in a code block, then documentation).
    pub contents: Vec<String>,
    /// The language server was still starting when the wait ran out.
    #[serde(default)]
    pub loading: bool,
}

/// `lang/symbols` params: exactly one of `path` and `query`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolsParams {
    /// The file whose outline is wanted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A workspace symbol search (the language servers' fuzzy match on names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// How long to wait for a language server that is still starting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// One symbol: of an outline (with its children), or found by a workspace search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// Its kind, in lower case: `class`, `function`, `method`, `variable`, `interface`, …
    pub kind: String,
    /// What the language server adds (a signature, a type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The symbol that contains it (workspace search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Its file (workspace search; an outline's symbols are all in the file asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The first line of its whole range (body included), from 1.
    pub line: u32,
    /// The last line of its range.
    pub end_line: u32,
    /// The symbols nested in it (an outline).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<serde_json::Value>")]
    pub children: Vec<Symbol>,
}

/// `lang/symbols` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolsResult {
    /// The outline (nested), or the search's matches in the workspace (flat).
    pub symbols: Vec<Symbol>,
    /// How many more there were beyond [`MAX_LOCATIONS`] (matches outside the workspace are not
    /// counted).
    #[serde(default)]
    pub truncated: u64,
    /// The language server was still starting when the wait ran out.
    #[serde(default)]
    pub loading: bool,
    /// The file's language id (an outline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// `lang/rename` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenameParams {
    /// The symbol.
    #[serde(flatten)]
    pub at: SymbolAt,
    /// The new name.
    pub new_name: String,
    /// `false`: only say what would change; `true`: apply it as one workspace edit and save.
    #[serde(default)]
    pub apply: bool,
}

/// One file a rename changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenameFile {
    /// The file.
    pub path: String,
    /// How many places in it change.
    pub edits: u32,
    /// Its text before (what the editor has, unsaved changes included), when within the host's
    /// `maxFileSize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Its text after the rename, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// `lang/rename` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenameResult {
    /// The symbol the host renamed.
    pub resolved: Resolved,
    /// The files the rename changes (or changed), by path.
    pub files: Vec<RenameFile>,
    /// The edit was applied and the files saved.
    #[serde(default)]
    pub applied: bool,
    /// The language server was still starting when the wait ran out (nothing changed).
    #[serde(default)]
    pub loading: bool,
    /// Not on the wire: the files the host named outside the workspace (escaped), taken out of
    /// `files` by [`Untrusted::bounded`](super::Untrusted::bounded).
    #[serde(skip)]
    pub refused: Vec<String>,
    /// Not on the wire: how many workspace files were left out of `files` (the answer's bound).
    #[serde(skip)]
    pub files_left_out: u64,
}

/// `ide/openDiff` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenDiffParams {
    /// The file the change is for (it may not exist yet).
    pub path: String,
    /// The complete proposed text.
    pub new_text: String,
    /// How long to wait for the user's decision (milliseconds, at most [`MAX_DIFF_WAIT_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// What the user decided about a proposed change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DiffStatus {
    /// Accepted: the file was written with the final text.
    Accepted,
    /// Rejected (or the diff was closed): nothing was written.
    Rejected,
    /// No decision within the wait: the diff stays open, nothing was written.
    Pending,
}

/// `ide/openDiff` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenDiffResult {
    /// The file.
    pub path: String,
    /// The decision.
    pub status: DiffStatus,
    /// Accepted: the text written, the user's own edits in the diff included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_text: Option<String>,
    /// Accepted: the user changed the proposed text before accepting.
    #[serde(default)]
    pub user_edited: bool,
    /// The file did not exist before.
    #[serde(default)]
    pub created: bool,
    /// The same proposal was already open (the call waited on it again; no second tab).
    #[serde(default)]
    pub reused: bool,
}

/// `ide/closeDiffs` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloseDiffsResult {
    /// The files whose diff views were closed (their proposals count as rejected).
    pub closed: Vec<String>,
}

/// `ide/saveFile` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveFileParams {
    /// The file.
    pub path: String,
}

/// `ide/saveFile` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SaveFileResult {
    /// The file.
    pub path: String,
    /// It had unsaved changes, now written to disk.
    pub saved: bool,
    /// It is open in the editor.
    pub open: bool,
}

fn yes() -> bool {
    true
}

fn one() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_wire_shapes_are_the_documented_ones() {
        let at = SymbolAt { path: "src/a.ts".into(), line: 3, symbol: "answer".into(), column: None, wait_ms: None };
        let r = ReferencesParams { at: at.clone(), include_declaration: false };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"path": "src/a.ts", "line": 3, "symbol": "answer", "includeDeclaration": false})
        );
        let r: ReferencesParams =
            serde_json::from_value(json!({"path": "a", "line": 1, "symbol": "x", "future": 1})).unwrap();
        assert!(r.include_declaration);
        let rename = RenameParams { at, new_name: "reply".into(), apply: true };
        assert_eq!(serde_json::to_value(&rename).unwrap()["newName"], "reply");
        let l: LocationsResult = serde_json::from_value(json!({
            "resolved": {"line": 3, "column": 14},
            "locations": [{"external": "lib.es5.d.ts", "line": 1, "column": 1, "endLine": 1, "endColumn": 5}]
        }))
        .unwrap();
        assert_eq!(l.resolved.occurrences, 1);
        assert!(!l.loading && l.locations[0].path.is_none());
        let d: OpenDiffResult = serde_json::from_value(json!({"path": "a", "status": "pending"})).unwrap();
        assert_eq!(d.status, DiffStatus::Pending);
        assert!(serde_json::from_value::<OpenDiffResult>(json!({"path": "a", "status": "maybe"})).is_err());
        let s: SymbolsResult = serde_json::from_value(json!({"symbols": [
            {"name": "A", "kind": "class", "line": 1, "endLine": 9, "children": [{"name": "m", "kind": "method", "line": 2, "endLine": 3}]}
        ]}))
        .unwrap();
        assert_eq!(s.symbols[0].children[0].name, "m");
    }
}
