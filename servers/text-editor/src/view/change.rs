//! The change view (MCP Apps) of every tool that changes a file: `text_editor`'s create,
//! str_replace, insert and undo_edit, `edit_file` (its dry run too), `move_file` and
//! `delete_file`. The result's `_meta` carries what the view shows: the path, a unified diff of
//! the file's own text (its line endings and encoding as they are), the file's SHA-256, and the
//! calls behind its buttons: **Undo** (`undo_edit` with `if_change`, the id of this very change
//! in the undo history, so that it reverts this change and no other, and only while it is the
//! file's latest) and, for a dry run, **Apply** (the same edits, with the SHA-256 the preview was
//! made on and the one it showed as the result; not offered when the change was too large to
//! show). The text the model reads is not touched.

use mcp_shared::{ToolOutput, ToolResult, view::View};
use serde_json::{Value, json};

use crate::{document, editor::Seen};

/// The view.
pub static VIEW: View =
    View { uri: "ui://text-editor/change", title: "Change to a file", body: include_str!("../../views/change.html") };

/// The most bytes of diff the view is sent.
const MAX_VIEW_DIFF_BYTES: usize = 64 * 1024;

/// What a call did, for the view.
pub struct Shown {
    /// The tool called (its listed name).
    pub tool: String,
    /// `created`, `edited`, `inserted`, `undone`, `moved`, `deleted` or `preview`.
    pub action: &'static str,
    /// The file, as the caller named it.
    pub path: String,
    /// Where a moved file was.
    pub from: Option<String>,
    /// The tool whose `undo_edit` reverts the change (none: no Undo, and the view says why).
    pub undo_tool: Option<String>,
}

impl Shown {
    /// The result `output` with the view's data, made on the blocking pool (a diff of a large
    /// file takes time the runtime's threads must not spend).
    pub async fn attach(self, output: ToolOutput, seen: Option<Seen>, apply: Option<Value>) -> ToolResult {
        let view = mcp_shared::blocking("Showing the change", move || data(&self, seen.as_ref(), apply)).await?;
        Ok(output.with_view(view))
    }
}

/// A call the view makes through the host: `{name, arguments}`.
pub fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// The view's data for a call that did `shown`, whose write is `seen`.
pub fn data(shown: &Shown, seen: Option<&Seen>, apply: Option<Value>) -> Value {
    let mut data = json!({
        "tool": shown.tool,
        "action": shown.action,
        "path": shown.path,
    });
    if let Some(from) = &shown.from {
        data["from"] = json!(from);
    }
    if let Some(seen) = seen {
        data["sha256"] = json!(seen.sha256);
        if seen.kept && (seen.before.is_some() || seen.after.is_some()) {
            describe(&mut data, &shown.path, seen);
        } else if !seen.kept {
            data["note"] = json!("The file is too large to show its change here.");
        }
    }
    let undo_path = &shown.path;
    let change = seen.and_then(|s| s.change.clone());
    match (shown.undo_tool.as_deref(), shown.action, change) {
        (_, "preview" | "undone", _) => {}
        (None, ..) => {
            data["undoUnavailable"] = json!(
                "Undo needs the text editor's tool with an undo history (this server was started without it, or with --undo-depth 0)."
            );
        }
        (Some(_), _, None) => {
            data["undoUnavailable"] = json!(
                "Undo is not offered: this change is not in the undo history (the change journal could not record it; the server's log says why)."
            );
        }
        (Some(tool), _, Some(change)) => {
            // Undo reverts this very change (its id in the undo history), only while it is the
            // file's latest and the file is as it left it: the check asks the server first.
            data["change"] = json!(change);
            data["undo"] = call(tool, json!({"command": "undo_edit", "path": undo_path, "if_change": change}));
            data["check"] = json!({"call": call(tool, json!({"command": "view", "path": undo_path, "if_change": change})), "expect": "present"});
        }
    }
    match apply {
        // A change too large to show is not applied from the view: nobody could have seen it.
        Some(_) if seen.is_some_and(|s| !s.kept) => {
            data["applyUnavailable"] = json!(
                "Apply is not offered: this change is too large to show here, so it cannot be reviewed in this view. Ask for it in the chat instead."
            );
        }
        Some(apply) => data["apply"] = apply,
        None => {}
    }
    data
}

/// The diff, encoding and line endings of a change whose contents were kept.
fn describe(data: &mut Value, path: &str, seen: &Seen) {
    let decode = |bytes: &Option<Vec<u8>>| match bytes {
        None => Some((String::new(), None)),
        Some(bytes) => document::decode(bytes.clone()).ok().map(|doc| (doc.text, Some(doc.format))),
    };
    let (Some((before, old_format)), Some((after, new_format))) = (decode(&seen.before), decode(&seen.after)) else {
        data["note"] = json!("The file is not text this view can show.");
        return;
    };
    let name = path.trim_start_matches('/');
    let diff =
        mcp_shared::diff::unified(&before, &after, &format!("a/{name}"), &format!("b/{name}"), MAX_VIEW_DIFF_BYTES);
    data["diff"] = json!(diff.text);
    data["added"] = json!(diff.added);
    data["removed"] = json!(diff.removed);
    data["truncated"] = json!(diff.truncated);
    if let Some(format) = new_format.or(old_format) {
        data["encoding"] = json!(format!("{}{}", format.encoding.name(), if format.bom { " with BOM" } else { "" }));
    }
    let text = if seen.after.is_some() { &after } else { &before };
    data["lineEndings"] = json!(line_endings(text));
}

/// `LF`, `CRLF`, `mixed`, or `none` (a single line).
fn line_endings(text: &str) -> &'static str {
    let crlf = text.matches("\r\n").count();
    let lf = text.matches('\n').count();
    match (crlf, lf) {
        (_, 0) => "none",
        (c, l) if c == l => "CRLF",
        (0, _) => "LF",
        _ => "mixed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(before: Option<&str>, after: Option<&str>) -> Seen {
        Seen::new(before.map(|b| b.as_bytes().to_vec()), after.map(str::as_bytes))
    }

    #[test]
    fn an_edit_shows_its_diff_with_the_files_own_line_endings_and_an_undo_of_exactly_that_change() {
        let shown = Shown {
            tool: "edit_file".into(),
            action: "edited",
            path: "src/a.txt".into(),
            from: None,
            undo_tool: Some("str_replace_based_edit_tool".into()),
        };
        let mut seen = seen(Some("one\r\ntwo\r\n"), Some("one\r\n2\r\n"));
        seen.change = Some("5eed-7".into());
        let data = data(&shown, Some(&seen), None);
        assert_eq!(data["diff"], "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+2\r\n");
        assert_eq!((data["added"].as_u64(), data["removed"].as_u64()), (Some(1), Some(1)));
        assert_eq!(data["lineEndings"], "CRLF");
        assert_eq!(data["encoding"], "UTF-8");
        let sha = mcp_shared::view::sha256_hex(b"one\r\n2\r\n");
        assert_eq!(data["sha256"], sha.as_str());
        assert_eq!(
            data["undo"],
            json!({"name": "str_replace_based_edit_tool", "arguments": {"command": "undo_edit", "path": "src/a.txt", "if_change": "5eed-7"}})
        );
        assert_eq!(
            data["check"]["call"]["arguments"],
            json!({"command": "view", "path": "src/a.txt", "if_change": "5eed-7"})
        );
        assert_eq!(data["check"]["expect"], "present");
        seen.change = None;
        let unkept = super::data(&shown, Some(&seen), None);
        assert!(
            unkept.get("undo").is_none()
                && unkept["undoUnavailable"].as_str().unwrap().contains("not in the undo history")
        );
    }

    #[test]
    fn without_the_text_editor_there_is_no_undo_and_the_view_says_why() {
        let mut shown =
            Shown { tool: "delete_file".into(), action: "deleted", path: "a.txt".into(), from: None, undo_tool: None };
        let data = data(&shown, None, None);
        assert!(data.get("undo").is_none());
        assert!(data["undoUnavailable"].as_str().unwrap().contains("--undo-depth 0"));
        shown.undo_tool = Some("text_editor".into());
        let mut deleted = Seen::new(None, None);
        deleted.change = Some("5eed-9".into());
        let with = super::data(&shown, Some(&deleted), None);
        assert_eq!(with["check"]["expect"], "present");
        assert_eq!(with["undo"]["arguments"]["if_change"], "5eed-9");
        assert!(with.get("note").is_none(), "{with}");
    }

    #[test]
    fn a_preview_too_large_to_show_offers_no_apply() {
        let shown =
            Shown { tool: "edit_file".into(), action: "preview", path: "big.txt".into(), from: None, undo_tool: None };
        let big = "x".repeat(crate::editor::MAX_SEEN_BYTES + 1);
        let seen = seen(Some(&big), Some("y"));
        assert!(!seen.kept);
        let apply = Some(call("edit_file", json!({"path": "big.txt"})));
        let data = data(&shown, Some(&seen), apply.clone());
        assert!(data.get("apply").is_none(), "{data}");
        assert!(data["applyUnavailable"].as_str().unwrap().contains("too large to show"));
        let small = self::seen(Some("x"), Some("y"));
        assert!(super::data(&shown, Some(&small), apply).get("apply").is_some());
    }

    #[test]
    fn line_endings_are_named() {
        assert_eq!(line_endings("a"), "none");
        assert_eq!(line_endings("a\nb\n"), "LF");
        assert_eq!(line_endings("a\r\nb\r\n"), "CRLF");
        assert_eq!(line_endings("a\r\nb\n"), "mixed");
    }
}
