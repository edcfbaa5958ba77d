//! Cases from a differential check against the reference implementation's string building
//! (`edit.py`): snippet windows at the start and end of a file, inserts at the top and the
//! bottom, clipped snippets; and the whitespace-tolerant match, which the reference lacks.

use serde_json::json;

use super::{Server, numbered};

const TRUNCATED: &str = "<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>";

fn ten(final_newline: bool) -> String {
    let lines: Vec<String> = (1..=10).map(|i| format!("line {i}")).collect();
    lines.join("\n") + if final_newline { "\n" } else { "" }
}

fn replaced(path: &str, snippet: &str) -> String {
    format!(
        "The file {path} has been edited. Here's the result of running `cat -n` on a snippet of {path}:\n{snippet}\nReview the changes and make sure they are as expected. Edit the file again if necessary."
    )
}

fn inserted(path: &str, snippet: &str) -> String {
    format!(
        "The file {path} has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n{snippet}\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary."
    )
}

#[test]
fn str_replace_snippets_at_the_start_and_the_end_of_a_file() {
    let mut s = Server::start();
    s.write("f.txt", ten(false));
    let path = s.path("f.txt");
    let text = s.ok(json!({"command": "str_replace", "path": path, "old_str": "line 1\n", "new_str": "one\n"}));
    assert_eq!(text, replaced(&path, &numbered(&["one", "line 2", "line 3", "line 4", "line 5", "line 6"], 1)));

    s.write("g.txt", ten(true));
    let path = s.path("g.txt");
    let text = s.ok(json!({"command": "str_replace", "path": path, "old_str": "line 10", "new_str": "ten"}));
    assert_eq!(text, replaced(&path, &numbered(&["line 6", "line 7", "line 8", "line 9", "ten", ""], 6)));
    assert_eq!(s.read_string("g.txt"), ten(true).replace("line 10", "ten"));

    // new_str absent: the text is deleted, the snippet shows the lines that close up
    let text = s.ok(json!({"command": "str_replace", "path": path, "old_str": "line 5\n"}));
    assert_eq!(
        text,
        replaced(
            &path,
            &numbered(&["line 1", "line 2", "line 3", "line 4", "line 6", "line 7", "line 8", "line 9", "ten"], 1)
        )
    );

    // a multi-line new_str widens the window by its line breaks
    let text = s.ok(json!({"command": "str_replace", "path": path, "old_str": "line 8", "new_str": "a\nb\nc"}));
    assert_eq!(
        text,
        replaced(&path, &numbered(&["line 3", "line 4", "line 6", "line 7", "a", "b", "c", "line 9", "ten", ""], 3))
    );
}

#[test]
fn inserts_at_the_top_and_after_the_last_line() {
    let mut s = Server::start();
    s.write("f.txt", ten(true));
    let path = s.path("f.txt");
    let text = s.ok(json!({"command": "insert", "path": path, "insert_line": 0, "new_str": "X"}));
    assert_eq!(text, inserted(&path, &numbered(&["X", "line 1", "line 2", "line 3", "line 4"], 1)));
    assert_eq!(s.read_string("f.txt"), format!("X\n{}", ten(true)));

    s.write("g.txt", ten(false));
    let path = s.path("g.txt");
    let text = s.ok(json!({"command": "insert", "path": path, "insert_line": 10, "insert_text": "X\nY"}));
    assert_eq!(text, inserted(&path, &numbered(&["line 7", "line 8", "line 9", "line 10", "X", "Y"], 7)));
    assert_eq!(s.read_string("g.txt"), format!("{}\nX\nY", ten(false)));
}

#[test]
fn snippets_are_clipped_like_views() {
    let mut s = Server::with_args(&["--max-output-chars", "20"]);
    s.write("f.txt", ten(true));
    let path = s.path("f.txt");
    let text = s.ok(json!({"command": "str_replace", "path": path, "old_str": "line 6", "new_str": "six"}));
    // the reference clips the raw snippet ("line 2\nline 3\nline 4\nline 5\nsix\n...") at 20
    // characters, then numbers what is left
    assert_eq!(text, replaced(&path, &format!("{}{TRUNCATED}", numbered(&["line 2", "line 3", "line 4"], 2))));
    let text = s.ok(json!({"command": "undo_edit", "path": path}));
    assert_eq!(
        text,
        format!(
            "Last edit to {path} undone successfully. Here's the result of running `cat -n` on {path}:\n{}{TRUNCATED}\n",
            numbered(&["line 1", "line 2", "line 3"], 1)
        )
    );
}

#[test]
fn a_unique_match_ignoring_trailing_whitespace_is_applied_and_said_in_the_one_text_block() {
    let mut s = Server::start();
    s.write("f.txt", "a = 1   \r\nb = 2\t\r\nc = 3\r\n");
    let path = s.path("f.txt");
    let result =
        s.call(json!({"command": "str_replace", "path": path, "old_str": "a = 1\nb = 2", "new_str": "a = 10\nb = 20"}));
    assert!(!mcp_tests::is_error(&result), "{result}");
    assert_eq!(result["content"].as_array().map(Vec::len), Some(1), "{result}");
    let text = super::first_text(&result);
    assert!(text.starts_with(&replaced(&path, &numbered(&["a = 10", "b = 20", "c = 3", ""], 1))), "{text}");
    assert!(text.contains("trailing whitespace") && text.contains("line 1"), "{text}");
    assert_eq!(s.read("f.txt"), b"a = 10\r\nb = 20\r\nc = 3\r\n");

    // more than one such match: nothing is replaced
    s.write("g.txt", "x = 1 \ny\nx = 1\t\ny\n");
    let path = s.path("g.txt");
    let msg = s.err(json!({"command": "str_replace", "path": path, "old_str": "x = 1\ny", "new_str": "z"}), "NO_MATCH");
    assert!(
        msg.starts_with(&format!(
            "No replacement was performed, old_str `x = 1\ny` did not appear verbatim in {path}."
        )),
        "{msg}"
    );
    assert_eq!(s.read("g.txt"), b"x = 1 \ny\nx = 1\t\ny\n");
}
