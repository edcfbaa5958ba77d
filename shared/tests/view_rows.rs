//! The change view's diff table against the diff it shows and the change behind it, over
//! arbitrary lines (`-- x` and `++ y`, `--- `/`+++ `/`@@`/`\ No newline` as content, lone CRs,
//! NUL, bidi controls, very long lines, no final newline): each row a view shows has the text
//! of the line its number names in the old or new text, the rows count what the diff counts,
//! and applying the rows' hunks to the old text gives the new one: what the view shows is
//! what Apply writes (`servers/text-editor/tests/suite/views.rs` compares it with the file
//! Apply wrote). The rows come from the view's own script (`ui.rows` in `view.js`), run by Node
//! (`view_rows.mjs`, which also applies them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{io::Write as _, process::Command};

use mcp_shared::diff::unified;
use proptest::prelude::*;
use serde_json::Value;

/// For each `(diff, old)`: the rows the view shows the diff as, and the text made by applying
/// those rows to `old` (`None` where a row disagrees with it), both by the view's own script.
fn shown(cases: &[(String, String)]) -> Vec<(Vec<Value>, Option<String>)> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/view_rows.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("Node.js (`node` on PATH) runs the view's script for this test");
    let input: Vec<Value> = cases.iter().map(|(diff, old)| serde_json::json!({"diff": diff, "old": old})).collect();
    child.stdin.take().unwrap().write_all(&serde_json::to_vec(&input).unwrap()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "view_rows.mjs failed");
    let answers: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    answers
        .into_iter()
        .map(|a| (a["rows"].as_array().unwrap().clone(), a["applied"].as_str().map(str::to_owned)))
        .collect()
}

/// `text`'s lines, each with its `\n` (the last one without, when the text has none).
fn lines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_owned).collect()
}

/// A row's line as the file holds it: its text, and its `\n` unless the row says there is none.
fn row_line(row: &Value) -> String {
    let mut line = row["text"].as_str().unwrap().to_owned();
    if row["eol"] != false {
        line.push('\n');
    }
    line
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c ]{0,4}",
        Just("-- keep backups".to_owned()),
        Just("++ DROP TABLE t;".to_owned()),
        Just("--- a/x".to_owned()),
        Just("+++ b/x".to_owned()),
        Just("@@ -1,2 +1,2 @@".to_owned()),
        Just("\\ No newline at end of file".to_owned()),
        Just("a\rb".to_owned()),
        Just("\0\u{202e}x".to_owned()),
        Just("".to_owned()),
        "[x]{2000,3000}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    (proptest::collection::vec(line(), 0..12), any::<bool>()).prop_map(|(lines, last)| {
        let mut text = lines.join("\n");
        if last && !text.is_empty() {
            text.push('\n');
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    /// Each case is a batch of changes (one Node run per batch).
    #[test]
    fn the_rows_a_view_shows_are_the_diff_and_the_change(batch in proptest::collection::vec((text(), text(), any::<bool>()), 40)) {
        let diffs: Vec<_> = batch
            .iter()
            .map(|(old, new, small)| unified(old, new, "a/f", "b/f", if *small { 300 } else { 1 << 20 }))
            .collect();
        let cases: Vec<(String, String)> = batch.iter().zip(&diffs).map(|((old, _, _), d)| (d.text.clone(), old.clone())).collect();
        let answers = shown(&cases);
        for (((old, new, _), diff), (rows, applied)) in batch.iter().zip(&diffs).zip(&answers) {
            let (old_lines, new_lines) = (lines(old), lines(new));
            // Every row is the line its number names.
            for row in rows {
                match row["kind"].as_str().unwrap() {
                    "ctx" | "del" => {
                        let n = row["old"].as_u64().unwrap() as usize;
                        prop_assert_eq!(old_lines.get(n - 1), Some(&row_line(row)), "old line {} of {:?}\n{}", n, old, diff.text);
                    }
                    "add" => {
                        let n = row["new"].as_u64().unwrap() as usize;
                        prop_assert_eq!(new_lines.get(n - 1), Some(&row_line(row)), "new line {} of {:?}\n{}", n, new, diff.text);
                    }
                    _ => {}
                }
            }
            if diff.truncated {
                continue;
            }
            // Whole: the rows count what the diff counts, and make the new text of the old.
            let count = |kind: &str| rows.iter().filter(|r| r["kind"] == kind).count();
            prop_assert_eq!((count("add"), count("del")), (diff.added, diff.removed), "{}", diff.text);
            prop_assert_eq!(count("note"), 0, "{}", diff.text);
            prop_assert_eq!(applied.as_deref(), Some(new.as_str()), "{}", diff.text);
        }
    }
}

#[test]
fn a_removed_sql_comment_and_an_added_line_are_rows_of_the_hunk() {
    let diff = unified("a\n-- keep backups\nb\n", "a\n++ DROP TABLE t;\nb\n", "a/q.sql", "b/q.sql", 4096);
    let (rows, applied) = &shown(&[(diff.text.clone(), "a\n-- keep backups\nb\n".to_owned())])[0];
    assert_eq!(applied.as_deref(), Some("a\n++ DROP TABLE t;\nb\n"));
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["hunk", "ctx", "del", "add", "ctx"], "{}", diff.text);
    assert_eq!(rows[2]["text"], "-- keep backups");
    assert_eq!(rows[3]["text"], "++ DROP TABLE t;");
    assert_eq!((rows[4]["old"].as_u64(), rows[4]["new"].as_u64()), (Some(3), Some(3)));
}
