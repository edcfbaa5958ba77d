//! The IDE's live state (protocol version 2, `docs/ide-bridge-protocol.md` §4.6–§4.10): what only
//! an editor knows, as opposed to the files on disk.
//!
//! - `ide/diagnostics`: the language servers' errors and warnings;
//! - `ide/openEditors`: the open tabs;
//! - `ide/selection`: the active editor's selection;
//! - `ide/openFile`: show a file to the user;
//! - host → bridge notifications `ide/selectionChanged` and `ide/diagnosticsChanged`.
//!
//! Lines and columns are 1-based, columns counted in UTF-16 code units as editors count them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `ide/diagnostics`: errors and warnings the editor's language servers computed.
pub const METHOD_DIAGNOSTICS: &str = "ide/diagnostics";
/// `ide/openEditors`: the open tabs.
pub const METHOD_OPEN_EDITORS: &str = "ide/openEditors";
/// `ide/selection`: the active editor's selection.
pub const METHOD_SELECTION: &str = "ide/selection";
/// `ide/openFile`: open and reveal a file for the user.
pub const METHOD_OPEN_FILE: &str = "ide/openFile";
/// Host → bridge notification: the selection or the active editor changed (debounced).
pub const NOTIFY_SELECTION_CHANGED: &str = "ide/selectionChanged";
/// Host → bridge notification: diagnostics changed (debounced).
pub const NOTIFY_DIAGNOSTICS_CHANGED: &str = "ide/diagnosticsChanged";

/// The most diagnostics one answer carries (the rest is counted in `truncated`).
pub const MAX_DIAGNOSTICS: usize = 500;
/// How long a host waits by default for the first diagnostics of a file it had to open.
pub const DEFAULT_DIAGNOSTICS_WAIT_MS: u64 = 5_000;
/// The longest wait a bridge may ask for.
pub const MAX_DIAGNOSTICS_WAIT_MS: u64 = 30_000;
/// The most selected text an answer carries, in UTF-16 code units (longer: cut, `textTruncated`).
pub const MAX_SELECTION_TEXT: usize = 100_000;

/// How severe a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// Information.
    Info,
    /// A hint.
    Hint,
}

/// A position in a document: 1-based line and column (UTF-16 code units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Position {
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
}

/// `ide/diagnostics` params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsParams {
    /// One file (relative, or `folder-name/…` in a multi-root workspace); absent: every file that
    /// has diagnostics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Include `info` and `hint` diagnostics too (default: errors and warnings only).
    #[serde(default)]
    pub include_info: bool,
    /// How long to wait for the language server's first results on a file that was not open
    /// (milliseconds; the host's default when absent, at most [`MAX_DIAGNOSTICS_WAIT_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    /// The file, as the workspace's paths are written.
    pub path: String,
    /// Where it starts.
    pub line: u32,
    /// Its column.
    pub column: u32,
    /// Where it ends (line).
    #[serde(rename = "endLine")]
    pub end_line: u32,
    /// Where it ends (column).
    #[serde(rename = "endColumn")]
    pub end_column: u32,
    /// How severe.
    pub severity: Severity,
    /// Who reported it (`ts`, `eslint`, `rust-analyzer`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its code (`2322`, `no-unused-vars`, …), as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The message.
    pub message: String,
}

/// `ide/diagnostics` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsResult {
    /// The diagnostics, by path, then position.
    pub diagnostics: Vec<Diagnostic>,
    /// How many more there were beyond [`MAX_DIAGNOSTICS`].
    #[serde(default)]
    pub truncated: u64,
    /// With a `path` the editor had not analysed yet: whether its language server reported within
    /// the wait (`false`: the answer may be incomplete; ask again).
    #[serde(default = "yes")]
    pub settled: bool,
    /// The host had to open the file in the background to analyse it.
    #[serde(default)]
    pub opened: bool,
}

fn yes() -> bool {
    true
}

/// One open tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenEditor {
    /// The file.
    pub path: String,
    /// It is the active editor.
    pub active: bool,
    /// It has unsaved changes.
    pub dirty: bool,
    /// Its language id (`typescript`, `rust`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// `ide/openEditors` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenEditorsResult {
    /// The tabs that show a workspace file, in the editor's order.
    pub editors: Vec<OpenEditor>,
    /// Tabs showing something outside the workspace folders (not listed).
    #[serde(default)]
    pub outside: u64,
}

/// The active editor's selection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    /// The file.
    pub path: String,
    /// Where the selection starts.
    pub start: Position,
    /// Where it ends.
    pub end: Position,
    /// The selected text (empty for a bare cursor).
    pub text: String,
    /// `text` was cut at [`MAX_SELECTION_TEXT`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_truncated: bool,
}

/// `ide/selection` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectionResult {
    /// `null`: no editor is active, or it shows something outside the workspace.
    pub selection: Option<Selection>,
}

/// `ide/openFile` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenFileParams {
    /// The file.
    pub path: String,
    /// The line to reveal and put the cursor on (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// With `line`: select through the end of this line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    /// Open as a preview tab (replaced by the next preview), as a single click does.
    #[serde(default)]
    pub preview: bool,
}

/// `ide/openFile` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenFileResult {
    /// The file now shown.
    pub path: String,
    /// The lines selected (when `line` was given), clamped to the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_wire_shapes_are_the_documented_ones() {
        let d: DiagnosticsResult = serde_json::from_value(json!({"diagnostics": [{
            "path": "src/a.ts", "line": 1, "column": 7, "endLine": 1, "endColumn": 8,
            "severity": "error", "source": "ts", "code": "2322", "message": "m"}]}))
        .unwrap();
        assert!(d.settled && !d.opened && d.truncated == 0);
        assert_eq!(d.diagnostics[0].severity, Severity::Error);
        let p = serde_json::to_value(DiagnosticsParams { path: None, include_info: true, wait_ms: Some(5) }).unwrap();
        assert_eq!(p, json!({"includeInfo": true, "waitMs": 5}));
        let s: SelectionResult = serde_json::from_value(json!({"selection": null})).unwrap();
        assert!(s.selection.is_none());
        let o =
            serde_json::to_value(OpenFileParams { path: "a".into(), line: Some(3), end_line: None, preview: false })
                .unwrap();
        assert_eq!(o, json!({"path": "a", "line": 3, "preview": false}));
        assert!(serde_json::from_value::<OpenEditorsResult>(json!({})).is_err());
    }
}
