//! The "Changes" view (MCP Apps) of `list_changes` and `revert_changes`: the files changed since
//! the point, each with its combined diff, and the calls behind its buttons. **Revert all**
//! (`revert_changes` to the point, over the span's sessions) and **Revert this file** (the same
//! with `paths`) are held to what the view shows, as the change view's Undo is: `if_latest`, the
//! latest change shown (a later change refuses), and `if_sha256`, each file's content as shown
//! (a file changed since refuses). After a revert, **Undo the revert** takes that one change
//! back. The text the model reads is not touched.

use mcp_shared::view::View;
use serde_json::{Map, Value, json};

use crate::editor::changes::Span;

/// The view.
pub static VIEW: View = View {
    uri: "ui://text-editor/changes",
    title: "Changes to the workspace",
    body: include_str!("../../views/changes.html"),
};

/// A call the view makes through the host.
fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// The view's data, from an answer's `data`, for `span`; `revert_tool`: the tool its buttons
/// call (`None`: no buttons, and the view says why).
pub fn data(answer: &Value, span: &Span, revert_tool: Option<&str>) -> Value {
    let mut view = answer.clone();
    // The point as the answer resolved it ("this session's start" made a number).
    let span = &Span { after: answer.get("since").and_then(Value::as_u64).unwrap_or(span.after), ..span.clone() };
    let sessions = if span.session.is_some() { "this" } else { "all" };
    view["kind"] = json!(match (
        answer.get("dry_run").and_then(Value::as_bool),
        answer.get("reverted").and_then(Value::as_bool)
    ) {
        (_, Some(true)) => "reverted",
        (Some(true), _) => "dry_run",
        _ => "list",
    });
    let Some(tool) = revert_tool else {
        view["revertUnavailable"] = json!(
            "Revert is not offered: this server does not offer revert_changes (it is read-only, or started without it)."
        );
        return view;
    };
    let latest = answer.get("latest").cloned().unwrap_or(Value::Null);
    if view["kind"] == "reverted" {
        if let Some(change) = answer.get("change").and_then(Value::as_u64) {
            view["undoRevert"] = call(tool, json!({"to": change - 1, "sessions": "all", "if_latest": change}));
        }
        return view;
    }
    let shown_state = |file: &Value| {
        let mut held = Map::new();
        if let Some(path) = file["path"].as_str() {
            held.insert(path.to_owned(), file["sha256"].clone());
        }
        if let Some(from) = file["from"].as_str() {
            held.insert(from.to_owned(), Value::Null);
        }
        held
    };
    let mut all = Map::new();
    // Revert all takes back exactly the files shown (never one the view left out, past the
    // files an answer describes, or outside the `paths` it was asked for).
    let mut shown_paths = Vec::new();
    if let Some(files) = view["files"].as_array_mut() {
        for file in files.iter_mut() {
            let held = shown_state(file);
            all.extend(held.clone());
            if file["status"] == "unchanged" {
                continue;
            }
            let mut paths = vec![file["path"].clone()];
            if let Some(from) = file.get("from") {
                paths.push(from.clone());
            }
            shown_paths.extend(paths.iter().cloned());
            file["revert"] = call(
                tool,
                json!({"to": span.after, "sessions": sessions, "paths": paths, "if_latest": latest, "if_sha256": held}),
            );
        }
    }
    let changed = view["files"].as_array().is_some_and(|f| f.iter().any(|f| f["status"] != "unchanged"));
    if changed {
        view["revertAll"] = call(
            tool,
            json!({"to": span.after, "sessions": sessions, "paths": shown_paths, "if_latest": latest, "if_sha256": all}),
        );
    }
    view
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buttons_are_held_to_what_the_view_shows() {
        let answer = json!({
            "latest": 7,
            "files": [
                {"path": "a.txt", "status": "edited", "sha256": "aa"},
                {"path": "new.txt", "status": "moved", "from": "old.txt", "sha256": "bb"},
                {"path": "same.txt", "status": "unchanged", "sha256": "cc"},
            ],
        });
        let span = Span { after: 3, start: None, session: None, paths: None };
        let view = data(&answer, &span, Some("revert_changes"));
        assert_eq!(view["kind"], "list");
        assert_eq!(
            view["revertAll"]["arguments"],
            json!({"to": 3, "sessions": "all", "paths": ["a.txt", "new.txt", "old.txt"], "if_latest": 7, "if_sha256": {"a.txt": "aa", "new.txt": "bb", "old.txt": null, "same.txt": "cc"}})
        );
        assert_eq!(
            view["files"][1]["revert"]["arguments"],
            json!({"to": 3, "sessions": "all", "paths": ["new.txt", "old.txt"], "if_latest": 7, "if_sha256": {"new.txt": "bb", "old.txt": null}})
        );
        assert!(view["files"][2].get("revert").is_none());
        let none = data(&answer, &span, None);
        assert!(none.get("revertAll").is_none() && none["revertUnavailable"].is_string());
        let reverted = data(&json!({"reverted": true, "change": 9, "files": []}), &span, Some("revert_changes"));
        assert_eq!(reverted["undoRevert"]["arguments"], json!({"to": 8, "sessions": "all", "if_latest": 9}));
    }
}
