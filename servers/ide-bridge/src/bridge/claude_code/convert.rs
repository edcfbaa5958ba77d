//! The Claude Code IDE protocol's answers, read into the bridge's protocol types: absolute paths
//! and `file://` URIs made workspace paths (anything outside the workspace dropped and counted),
//! 0-based lines and characters made 1-based, every list and text bounded. An answer that is
//! not what the protocol says is an error naming the tool, never a guess.

use serde_json::Value;

use crate::{
    bridge::adapter::Paths,
    protocol::{
        Diagnostic, DiagnosticsResult, MAX_DIAGNOSTICS, MAX_SELECTION_TEXT, OpenEditor, OpenEditorsResult, Position,
        Selection, SelectionResult, Severity,
    },
};

/// The most items of any list read from an IDE answer (files, tabs, diagnostics of a file).
const MAX_ITEMS: usize = 10_000;

/// The JSON object an IDE tool answered with, as text in its first content item.
pub fn json_text(tool: &str, texts: &[String]) -> Result<Value, String> {
    let text = texts.first().ok_or_else(|| format!("{tool} answered with no text"))?;
    serde_json::from_str(text).map_err(|e| format!("{tool} answered with text that is not JSON ({e})"))
}

fn position(value: &Value) -> Option<Position> {
    let line = u32::try_from(value.get("line")?.as_u64()?).ok()?;
    let character = u32::try_from(value.get("character")?.as_u64()?).ok()?;
    Some(Position { line: line.saturating_add(1), column: character.saturating_add(1) })
}

fn severity(value: Option<&Value>) -> Severity {
    match value {
        // VS Code's DiagnosticSeverity numbers (0 = Error … 3 = Hint); LSP's are 1-based, but
        // an IDE that sends numbers sends VS Code's.
        Some(Value::Number(n)) => match n.as_u64() {
            Some(0) => Severity::Error,
            Some(1) => Severity::Warning,
            Some(2) => Severity::Info,
            _ => Severity::Hint,
        },
        Some(Value::String(s)) => match s.to_ascii_lowercase().as_str() {
            "error" => Severity::Error,
            "warning" | "warn" => Severity::Warning,
            "info" | "information" => Severity::Info,
            _ => Severity::Hint,
        },
        _ => Severity::Error,
    }
}

fn text_of(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `getDiagnostics`: `[{uri, diagnostics: [{message, severity, range, source, code}]}]`.
pub fn diagnostics(value: &Value, paths: &Paths, include_info: bool) -> Result<DiagnosticsResult, String> {
    let files = value.as_array().ok_or("getDiagnostics answered with something that is not a list of files")?;
    let mut out = Vec::new();
    for file in files.iter().take(MAX_ITEMS) {
        let uri = file.get("uri").and_then(Value::as_str).unwrap_or_default();
        let Some(path) = paths.workspace(uri) else { continue };
        let Some(list) = file.get("diagnostics").and_then(Value::as_array) else { continue };
        for d in list.iter().take(MAX_ITEMS) {
            let severity = severity(d.get("severity"));
            if !include_info && matches!(severity, Severity::Info | Severity::Hint) {
                continue;
            }
            let range = d.get("range");
            let Some(start) = range.and_then(|r| r.get("start")).and_then(position) else { continue };
            let end = range.and_then(|r| r.get("end")).and_then(position).unwrap_or(start);
            out.push(Diagnostic {
                path: path.clone(),
                line: start.line,
                column: start.column,
                end_line: end.line,
                end_column: end.column,
                severity,
                source: text_of(d.get("source")),
                code: text_of(d.get("code")),
                message: d.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
            });
        }
    }
    out.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    let truncated = out.len().saturating_sub(MAX_DIAGNOSTICS) as u64;
    out.truncate(MAX_DIAGNOSTICS);
    Ok(DiagnosticsResult { diagnostics: out, truncated, settled: true, opened: false })
}

/// `getOpenEditors`: `{tabs: [{uri, isActive, isDirty, languageId, …}]}`.
pub fn open_editors(value: &Value, paths: &Paths) -> Result<OpenEditorsResult, String> {
    let tabs = value.get("tabs").and_then(Value::as_array).ok_or("getOpenEditors answered without `tabs`")?;
    let mut result = OpenEditorsResult::default();
    for tab in tabs.iter().take(MAX_ITEMS) {
        let uri = tab.get("uri").or_else(|| tab.get("fileName")).and_then(Value::as_str).unwrap_or_default();
        let Some(path) = paths.workspace(uri) else {
            result.outside += 1;
            continue;
        };
        if result.editors.iter().any(|e| e.path == path) {
            continue;
        }
        result.editors.push(OpenEditor {
            path,
            active: tab.get("isActive").and_then(Value::as_bool).unwrap_or(false),
            dirty: tab.get("isDirty").and_then(Value::as_bool).unwrap_or(false),
            language: text_of(tab.get("languageId")).filter(|l| l != "plaintext"),
        });
    }
    Ok(result)
}

/// A selection (`getCurrentSelection`, `getLatestSelection`, `selection_changed`):
/// `{success?, text, filePath, fileUrl, selection: {start, end, isEmpty}}`; `success: false`
/// (no active editor) and a file outside the workspace are no selection.
pub fn selection(value: &Value, paths: &Paths) -> Result<SelectionResult, String> {
    if value.get("success").and_then(Value::as_bool) == Some(false) {
        return Ok(SelectionResult { selection: None });
    }
    let file = value.get("filePath").or_else(|| value.get("fileUrl")).and_then(Value::as_str);
    let Some(file) = file.filter(|f| !f.is_empty()) else { return Ok(SelectionResult { selection: None }) };
    let Some(path) = paths.workspace(file) else { return Ok(SelectionResult { selection: None }) };
    let range = value.get("selection").ok_or("a selection without its `selection` range")?;
    let start = range.get("start").and_then(position).ok_or("a selection without a readable start")?;
    let end = range.get("end").and_then(position).unwrap_or(start);
    let (start, end) = if (end.line, end.column) < (start.line, start.column) { (end, start) } else { (start, end) };
    let mut text = value.get("text").and_then(Value::as_str).unwrap_or_default().to_owned();
    let text_truncated = cut_utf16(&mut text, MAX_SELECTION_TEXT);
    Ok(SelectionResult { selection: Some(Selection { path, start, end, text, text_truncated }) })
}

/// Cuts `text` to `max` UTF-16 code units (at a character boundary); whether it was cut.
fn cut_utf16(text: &mut String, max: usize) -> bool {
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > max {
            text.truncate(at);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::bridge::adapter::file_uri;
    use std::path::Path;

    fn paths() -> Paths {
        Paths::new(Path::new("/w/p"), Path::new("/link/p"))
    }

    #[test]
    fn ide_paths_become_workspace_paths_or_nothing() {
        let p = paths();
        assert_eq!(p.workspace("/w/p/src/a.rs").as_deref(), Some("src/a.rs"));
        assert_eq!(p.workspace("/link/p/a.rs").as_deref(), Some("a.rs"));
        assert_eq!(p.workspace("file:///w/p/dir%20x/%C3%A9.md").as_deref(), Some("dir x/é.md"));
        for outside in ["/w/pq/a", "/w/p", "/etc/passwd", "/w/p/../x", "relative", "file:///w/other", ""] {
            assert_eq!(p.workspace(outside), None, "{outside}");
        }
        // A diff's buffer, named after its file, is no workspace file.
        for diff in [
            "/w/p/src/a.rs (proposed)",
            "/w/p/n.rs (NEW FILE - proposed)",
            "/w/p/src/a.rs (New)",
            "/w/p/\u{273b} [Claude Code] a.rs \u{29c9}",
        ] {
            assert_eq!(p.workspace(diff), None, "{diff}");
        }
        assert_eq!(file_uri(Path::new("/w/p/dir x/é.md")), "file:///w/p/dir%20x/%C3%A9.md");
        assert_eq!(p.workspace(&file_uri(Path::new("/w/p/dir x/é.md"))).as_deref(), Some("dir x/é.md"));
    }

    #[test]
    fn diagnostics_are_one_based_sorted_filtered_and_confined() {
        let answer = json!([
            {"uri": "file:///w/p/b.lua", "diagnostics": [
                {"message": "late", "severity": "Warning", "range": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 3}}},
                {"message": "hint", "severity": "Hint", "range": {"start": {"line": 0, "character": 0}}},
                {"message": "first", "severity": 0, "code": 2322, "source": "ts", "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}}
            ]},
            {"uri": "file:///etc/x", "diagnostics": [{"message": "outside", "severity": "Error", "range": {"start": {"line": 0, "character": 0}}}]},
            {"uri": "file:///w/p/a.lua", "diagnostics": [{"message": "no range"}]}
        ]);
        let r = diagnostics(&answer, &paths(), false).unwrap();
        let got: Vec<_> =
            r.diagnostics.iter().map(|d| (d.path.as_str(), d.line, d.column, d.message.as_str())).collect();
        assert_eq!(got, [("b.lua", 1, 5, "first"), ("b.lua", 10, 1, "late")]);
        assert_eq!((r.diagnostics[0].end_line, r.diagnostics[0].end_column), (1, 6));
        assert_eq!(r.diagnostics[0].code.as_deref(), Some("2322"));
        assert_eq!(r.diagnostics[0].severity, Severity::Error);
        assert_eq!(diagnostics(&answer, &paths(), true).unwrap().diagnostics.len(), 3);
        assert!(diagnostics(&json!({"not": "a list"}), &paths(), false).is_err());
    }

    #[test]
    fn open_editors_keep_workspace_tabs_and_count_the_rest() {
        let answer = json!({"tabs": [
            {"uri": "file:///w/p/a.txt", "isActive": true, "isDirty": false, "languageId": "plaintext"},
            {"uri": "file:///tmp/x", "isActive": false},
            {"uri": "file:///w/p/src/m.rs", "isDirty": true, "languageId": "rust"},
            {"uri": "file:///w/p/src/m.rs"}
        ]});
        let r = open_editors(&answer, &paths()).unwrap();
        assert_eq!(r.outside, 1);
        assert_eq!(r.editors.len(), 2);
        assert!(r.editors[0].active && r.editors[0].language.is_none());
        assert!(r.editors[1].dirty && r.editors[1].language.as_deref() == Some("rust"));
        assert!(open_editors(&json!([]), &paths()).is_err());
    }

    #[test]
    fn selections_are_one_based_ordered_and_bounded() {
        let answer = json!({"success": true, "text": "ab", "filePath": "/w/p/a.txt",
            "selection": {"start": {"line": 2, "character": 4}, "end": {"line": 0, "character": 1}}});
        let s = selection(&answer, &paths()).unwrap().selection.unwrap();
        assert_eq!((s.start, s.end), (Position { line: 1, column: 2 }, Position { line: 3, column: 5 }));
        assert_eq!(
            selection(&json!({"success": false, "message": "No active editor found"}), &paths()).unwrap().selection,
            None
        );
        assert_eq!(selection(&json!({"filePath": "/etc/x", "selection": {}}), &paths()).unwrap().selection, None);
        let long = json!({"text": "é".repeat(MAX_SELECTION_TEXT + 5), "filePath": "/w/p/a",
            "selection": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}});
        let s = selection(&long, &paths()).unwrap().selection.unwrap();
        assert!(s.text_truncated && s.text.chars().count() == MAX_SELECTION_TEXT);
        assert!(selection(&json!({"filePath": "/w/p/a"}), &paths()).is_err());
    }
}
