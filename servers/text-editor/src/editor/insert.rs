//! `insert`: puts `new_str` (or its alias `insert_text`) after line `insert_line` (0: at the
//! top), as whole lines.
//!
//! Line-oriented, unlike the reference (and the npm server and goose), which split the text on
//! `\n` and so turned the empty piece after a trailing newline into an extra empty line: Claude 4
//! models send `insert_text` ending with a newline (`"HELLO\n"`), and a third of the inserts of
//! real commits replayed that way came out with a blank line nobody asked for. Here:
//!
//! - a text that ends with a line ending adds exactly its lines; one without gets the file's line
//!   ending: `"HELLO"` and `"HELLO\n"` both insert the one line `HELLO`, `"HELLO\n\n"` inserts
//!   `HELLO` and one empty line;
//! - the inserted lines take the file's line endings (CRLF in a CRLF file);
//! - the presence or absence of the file's final newline is kept: inserting after the last line
//!   of a file without one keeps it without one.

use mcp_shared::ErrorCode;
use serde_json::Value;

use crate::{
    document,
    editor::view::as_integer,
    editor::{Editor, Reply, Target, snippet},
    error::{self, ToolError},
    lines::{self, Normalized, Splice, normalize_input},
    render::{self, SNIPPET_LINES},
};

impl Editor {
    pub(crate) fn insert(
        &self,
        t: &Target<'_>,
        insert_line: Option<&Value>,
        new_str: Option<String>,
    ) -> Result<Reply, ToolError> {
        let Some(md) = self.validate(t)? else {
            return Err(ToolError::new(ErrorCode::NotFound, render::does_not_exist(t.shown)));
        };
        let insert_line =
            insert_line.filter(|v| !v.is_null()).ok_or_else(|| error::required("insert_line", t.command))?;
        let new_raw = new_str.ok_or_else(|| error::required("new_str", t.command))?;
        let file = self.open_locked(t)?;
        let doc = self.load(t, &md, &file)?;
        let _lock = Self::keep_lock(file);
        let norm = Normalized::new(&doc.text);
        let text = norm.as_str();
        let total = lines::line_count(text);
        let out_of_range = |shown: &str| {
            error::invalid(format!(
                "Invalid `insert_line` parameter: {shown}. It should be within the range of lines of the file: {}",
                render::py_list(&[0, total as i64])
            ))
        };
        let k = as_integer(insert_line).ok_or_else(|| out_of_range(&insert_line.to_string()))?;
        let k = usize::try_from(k).ok().filter(|&k| k <= total).ok_or_else(|| out_of_range(&k.to_string()))?;
        let normalized = normalize_input(&new_raw);
        // Whole lines: one trailing line ending ends the last inserted line (it is not one more,
        // empty, line); the line endings are the file's (`denormalize` below).
        let inserted = normalized.strip_suffix('\n').unwrap_or(&normalized);
        document::check_encodable(doc.format, inserted).map_err(|e| {
            error::invalid(format!(
                "No text was inserted: it contains {:?}, which cannot be written in {}, the encoding of {}. Use characters that {} can represent.",
                e.character, e.encoding, t.shown, e.encoding
            ))
        })?;

        // Where the new lines go, and after which line they appear.
        let (splice, after_line) = if text.is_empty() {
            let replacement = if k == 0 { format!("{inserted}\n") } else { format!("\n{inserted}") };
            (Splice { start: 0, end: 0, replacement }, k)
        } else if k < total {
            let at = lines::line_start(text, k).unwrap_or(text.len());
            (Splice { start: at, end: at, replacement: format!("{inserted}\n") }, k)
        } else if text.ends_with('\n') {
            // After the empty "line" that follows the final newline: before it, instead.
            (Splice { start: text.len(), end: text.len(), replacement: format!("{inserted}\n") }, k - 1)
        } else {
            let mut splice = Splice { start: text.len(), end: text.len(), replacement: format!("\n{inserted}") };
            splice.keep_final_newline(text);
            (splice, k)
        };
        // The snippet is taken before the file's text is edited in place.
        let first = after_line.saturating_sub(SNIPPET_LINES);
        let count = (after_line - first) + lines::line_count(inserted) + SNIPPET_LINES;
        let shown = snippet(text, &splice, lines::newline_count(&text[..splice.start]), first, count);
        let (a, b) = (norm.to_original(splice.start), norm.to_original(splice.end));
        let replacement = norm.denormalize(&splice.replacement).into_owned();
        drop(norm);
        self.apply(t, doc, a, b, &replacement)?;
        let text = format!(
            "The file {} has been edited. {}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.",
            t.shown,
            render::cat_n(&shown, "a snippet of the edited file", first + 1, self.limits.max_output_chars)
        );
        Ok(Reply::text(text))
    }
}

#[cfg(test)]
mod tests {
    use mcp_shared::sandbox::Sandbox;
    use serde_json::json;

    use crate::{Command, Editor, Limits, Request};

    fn insert(content: &str, line: serde_json::Value, new: &str) -> Result<(String, String), mcp_shared::ToolError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), content).unwrap();
        let sandbox = Sandbox::new([dir.path()]).unwrap();
        let editor = Editor::new(Limits { fsync: false, ..Limits::default() });
        let request = Request { insert_line: Some(line), new_str: Some(new.into()), ..Request::default() };
        let reply = editor.run(&sandbox, Command::Insert, "f", request)?;
        Ok((reply.text, std::fs::read_to_string(dir.path().join("f")).unwrap()))
    }

    #[test]
    fn inserts_like_the_reference() {
        assert_eq!(insert("a\nb\nc\n", json!(0), "x").unwrap().1, "x\na\nb\nc\n");
        assert_eq!(insert("a\nb\nc\n", json!(1), "x").unwrap().1, "a\nx\nb\nc\n");
        assert_eq!(insert("a\nb\nc\n", json!(1), "x\ny").unwrap().1, "a\nx\ny\nb\nc\n");
        // the final newline is kept: appended before it, not after an empty line
        assert_eq!(insert("a\nb\n", json!(2), "x").unwrap().1, "a\nb\nx\n");
        assert_eq!(insert("a\nb\n", json!(3), "x").unwrap().1, "a\nb\nx\n");
        // and its absence too
        assert_eq!(insert("a\nb", json!(2), "x").unwrap().1, "a\nb\nx");
        assert_eq!(insert("a\nb", json!(2), "x\n").unwrap().1, "a\nb\nx");
        assert_eq!(insert("", json!(0), "x").unwrap().1, "x\n");
    }

    #[test]
    fn a_trailing_newline_ends_the_last_line_and_adds_no_empty_one() {
        // as Claude 4 models send it: "HELLO" and "HELLO\n" insert the same one line
        for text in ["HELLO", "HELLO\n", "HELLO\r\n"] {
            assert_eq!(insert("a\nb\nc\n", json!(2), text).unwrap().1, "a\nb\nHELLO\nc\n", "{text:?}");
            assert_eq!(insert("a\nb\nc\n", json!(0), text).unwrap().1, "HELLO\na\nb\nc\n", "{text:?}");
            assert_eq!(insert("a\nb\nc\n", json!(3), text).unwrap().1, "a\nb\nc\nHELLO\n", "{text:?}");
            assert_eq!(insert("a\nb", json!(2), text).unwrap().1, "a\nb\nHELLO", "{text:?}");
            assert_eq!(insert("", json!(0), text).unwrap().1, "HELLO\n", "{text:?}");
        }
        // one more newline is one empty line
        assert_eq!(insert("a\nb\n", json!(1), "HELLO\n\n").unwrap().1, "a\nHELLO\n\nb\n");
        assert_eq!(insert("a\nb\n", json!(1), "x\ny\n").unwrap().1, "a\nx\ny\nb\n");
        // a lone newline is one empty line
        assert_eq!(insert("a\nb\n", json!(1), "\n").unwrap().1, "a\n\nb\n");
        // in a CRLF file the inserted lines get CRLF, whatever the model sent
        assert_eq!(insert("a\r\nb\r\n", json!(1), "x\ny\n").unwrap().1, "a\r\nx\r\ny\r\nb\r\n");
        assert_eq!(insert("a\r\nb\r\n", json!(2), "x").unwrap().1, "a\r\nb\r\nx\r\n");
    }

    #[test]
    fn the_snippet_shows_the_inserted_lines_only() {
        let content: String = (1..=10).map(|i| format!("{i}\n")).collect();
        let (with_newline, file_a) = insert(&content, json!(6), "new\n").unwrap();
        let (without, file_b) = insert(&content, json!(6), "new").unwrap();
        assert_eq!(with_newline, without);
        assert_eq!(file_a, file_b);
    }

    #[test]
    fn the_snippet_matches_the_reference() {
        let content: String = (1..=10).map(|i| format!("{i}\n")).collect();
        let (text, _) = insert(&content, json!(6), "new").unwrap();
        assert_eq!(
            text,
            "The file f has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     3\t3\n     4\t4\n     5\t5\n     6\t6\n     7\tnew\n     8\t7\n     9\t8\n    10\t9\n    11\t10\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary."
        );
    }

    #[test]
    fn out_of_range_lines_are_refused() {
        let e = insert("a\nb\n", json!(4), "x").unwrap_err();
        assert_eq!(
            e.message,
            "Invalid `insert_line` parameter: 4. It should be within the range of lines of the file: [0, 3]"
        );
        let e = insert("a\nb\n", json!(-1), "x").unwrap_err();
        assert_eq!(
            e.message,
            "Invalid `insert_line` parameter: -1. It should be within the range of lines of the file: [0, 3]"
        );
        let e = insert("a\nb\n", json!("two"), "x").unwrap_err();
        assert!(e.message.starts_with("Invalid `insert_line` parameter: \"two\"."), "{}", e.message);
    }
}
