//! `str_replace`: replaces the one occurrence of `old_str` with `new_str` (absent: deletes it).
//!
//! Matching is on the normalised text (CRLF read as LF), so `old_str` written with `\n`
//! matches a CRLF file and `new_str` is written with the file's line ending. When `old_str`
//! does not appear verbatim, a match that ignores trailing whitespace is tried: if there is
//! exactly one, it is applied and the result says so; otherwise the error points at the most
//! similar lines. With `replace_all`, every occurrence is replaced (the result says how many
//! and where); without it, behaviour and strings are exactly the reference's.

use mcp_shared::ErrorCode;
use memchr::memmem;

use crate::{
    document,
    editor::{Editor, Reply, Target, snippet},
    error::{self, ToolError},
    fuzzy::{self, Stripped},
    lines::{self, Normalized, Splice, normalize_input},
    render::{self, SNIPPET_LINES},
};

impl Editor {
    pub(crate) fn str_replace(
        &self,
        t: &Target<'_>,
        old_str: Option<String>,
        new_str: Option<String>,
        replace_all: bool,
    ) -> Result<Reply, ToolError> {
        let Some(md) = self.validate(t)? else {
            return Err(ToolError::new(ErrorCode::NotFound, render::does_not_exist(t.shown)));
        };
        let old_raw = old_str.ok_or_else(|| error::required("old_str", t.command))?;
        if old_raw.is_empty() {
            return Err(error::invalid(
                "Parameter `old_str` must not be empty for command: str_replace. Pass the exact text to replace, with enough surrounding lines to make it unique; to add text without replacing any, use `insert`.",
            ));
        }
        let file = self.open_locked(t)?;
        let doc = self.load(t, &md, &file)?;
        let _lock = Self::keep_lock(file);
        let norm = Normalized::new(&doc.text);
        let text = norm.as_str();
        let old = normalize_input(&old_raw);
        let new = normalize_input(new_str.as_deref().unwrap_or(""));
        document::check_encodable(doc.format, &new).map_err(|e| {
            error::invalid(format!(
                "No replacement was performed: `new_str` contains {:?}, which cannot be written in {}, the encoding of {}. Use characters that {} can represent.",
                e.character, e.encoding, t.shown, e.encoding
            ))
        })?;

        let finder = memmem::Finder::new(old.as_bytes());
        if replace_all && finder.find_iter(text.as_bytes()).nth(1).is_some() {
            let (reply, orig) = self.replace_every(t, &doc, &norm, &finder, &new)?;
            drop(norm);
            self.apply(t, doc, orig.start, orig.end, &orig.replacement)?;
            return Ok(reply);
        }
        let mut matches = finder.find_iter(text.as_bytes());
        let (start, end, note) = match (matches.next(), matches.next()) {
            (Some(start), None) => (start, start + old.len(), None),
            (Some(_), Some(_)) => {
                let (lines, total) = occurrence_lines(text, &finder);
                return Err(ToolError::new(
                    ErrorCode::MultipleMatches,
                    format!(
                        "No replacement was performed. Multiple occurrences of old_str `{}` in lines {}. Please ensure it is unique",
                        render::echo(&old_raw),
                        render::py_list_capped(&lines, total)
                    ),
                ));
            }
            (None, _) => self.tolerant_match(t, text, &old, &old_raw)?,
        };

        let replacement_line = lines::newline_count(&text[..start]);
        let Some((splice, orig)) =
            lines::replace_ranges(&norm, &doc.text, || std::iter::once((start, end)), &new, true)
        else {
            return Err(error::invalid("No replacement was performed: old_str was not found."));
        };
        // The snippet is taken before the file's text is edited in place.
        let before_newlines =
            if splice.start == start { replacement_line } else { lines::newline_count(&text[..splice.start]) };
        let first = replacement_line.saturating_sub(SNIPPET_LINES);
        let last = replacement_line + SNIPPET_LINES + lines::newline_count(&new);
        let shown = snippet(text, &splice, before_newlines, first, last - first + 1);
        drop(norm);
        self.apply(t, doc, orig.start, orig.end, &orig.replacement)?;
        let descriptor = format!("a snippet of {}", t.shown);
        let text = format!(
            "The file {} has been edited. {}Review the changes and make sure they are as expected. Edit the file again if necessary.",
            t.shown,
            render::cat_n(&shown, &descriptor, first + 1, self.limits.max_output_chars)
        );
        Ok(Reply { text, note, seen: None })
    }

    /// `replace_all` with several occurrences (found by `finder`, non-overlapping, in the
    /// normalised text; walked, never listed): one splice from the first to the last, so the edit
    /// is one undo step; the snippet is the first occurrence's, and the result says how many were
    /// replaced and on which lines. Returns the reply and the splice of the original text to write.
    fn replace_every(
        &self,
        t: &Target<'_>,
        doc: &document::Document,
        norm: &Normalized<'_>,
        finder: &memmem::Finder<'_>,
        new: &str,
    ) -> Result<(Reply, Splice), ToolError> {
        let text = norm.as_str();
        let len = finder.needle().len();
        let starts = || finder.find_iter(text.as_bytes());
        let (Some(first_start), Some((splice, orig))) =
            (starts().next(), lines::replace_ranges(norm, &doc.text, || starts().map(|s| (s, s + len)), new, true))
        else {
            return Err(error::invalid("No replacement was performed: old_str was not found."));
        };
        let count = starts().count();
        let (lines, total) = lines::lines_of(text, starts(), render::MAX_LISTED_LINES);
        let replacement_line = lines::newline_count(&text[..first_start]);
        let before_newlines = lines::newline_count(&text[..splice.start]);
        let first = replacement_line.saturating_sub(SNIPPET_LINES);
        let last = replacement_line + SNIPPET_LINES + lines::newline_count(new);
        let shown = snippet(text, &splice, before_newlines, first, last - first + 1);
        let descriptor = format!("a snippet of {} around the first replacement", t.shown);
        let text = format!(
            "The file {} has been edited: {} occurrences of old_str were replaced, on lines {}. {}Review the changes and make sure they are as expected. Edit the file again if necessary.",
            t.shown,
            count,
            render::py_list_capped(&lines, total),
            render::cat_n(&shown, &descriptor, first + 1, self.limits.max_output_chars)
        );
        Ok((Reply { text, note: None, seen: None }, orig))
    }

    /// The one match of `old` once trailing whitespace is ignored, or `NO_MATCH`.
    pub(super) fn tolerant_match(
        &self,
        t: &Target<'_>,
        text: &str,
        old: &str,
        old_raw: &str,
    ) -> Result<(usize, usize, Option<String>), ToolError> {
        let verbatim = format!(
            "No replacement was performed, old_str `{}` did not appear verbatim in {}.",
            render::echo(old_raw),
            t.shown
        );
        let needle = fuzzy::strip_lines(old);
        if !needle.trim().is_empty() {
            let stripped = Stripped::new(text);
            match stripped.find_two(&needle) {
                (Some(at), None) => {
                    let start = stripped.original_start(at);
                    let end = stripped.original_end(at + needle.len());
                    let line = lines::newline_count(&text[..start]) + 1;
                    let note = format!(
                        "Note: old_str did not appear verbatim in {}; it matched exactly one place (starting at line {line}) once trailing whitespace and line endings were ignored, and that place was replaced.",
                        t.shown
                    );
                    return Ok((start, end, Some(note)));
                }
                (Some(_), Some(_)) => {
                    return Err(ToolError::new(
                        ErrorCode::NoMatch,
                        format!(
                            "{verbatim} Ignoring trailing whitespace it matches more than one place; view the file and include more surrounding lines, exactly as they are."
                        ),
                    ));
                }
                (None, _) => {}
            }
        }
        let hint = match fuzzy::most_similar_region(text, old) {
            Some((a, b)) if a == b => format!(
                " The most similar text is at line {a}; view it with `view_range` [{a}, {a}] and copy `old_str` from it exactly, including whitespace."
            ),
            Some((a, b)) => format!(
                " The most similar text is at lines {a}-{b}; view them with `view_range` [{a}, {b}] and copy `old_str` from them exactly, including whitespace."
            ),
            None => " View the file to find the exact text to replace.".to_owned(),
        };
        Err(ToolError::new(ErrorCode::NoMatch, format!("{verbatim}{hint}")))
    }
}

/// The 1-based line on which each occurrence starts (each line once).
pub(super) fn occurrence_lines(text: &str, finder: &memmem::Finder<'_>) -> (Vec<i64>, usize) {
    lines::lines_of(text, finder.find_iter(text.as_bytes()), render::MAX_LISTED_LINES)
}

#[cfg(test)]
mod tests {
    use mcp_shared::sandbox::Sandbox;

    use crate::{Command, Editor, Limits, Request};

    fn setup(content: &[u8]) -> (tempfile::TempDir, Sandbox, Editor, String) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), content).unwrap();
        let sandbox = Sandbox::new([dir.path()]).unwrap();
        let editor = Editor::new(Limits { fsync: false, ..Limits::default() });
        let path = format!("{}/f.txt", dir.path().display());
        (dir, sandbox, editor, path)
    }

    fn replace(
        editor: &Editor,
        sandbox: &Sandbox,
        path: &str,
        old: &str,
        new: Option<&str>,
    ) -> Result<crate::Reply, mcp_shared::ToolError> {
        let request = Request { old_str: Some(old.into()), new_str: new.map(Into::into), ..Request::default() };
        editor.run(sandbox, Command::StrReplace, path, request)
    }

    #[test]
    fn the_snippet_and_message_match_the_reference() {
        let content: String = (1..=12).map(|i| format!("line {i}\n")).collect();
        let (dir, sandbox, editor, path) = setup(content.as_bytes());
        let reply = replace(&editor, &sandbox, &path, "line 6\n", Some("six\nSIX\n")).unwrap();
        let expected = format!(
            "The file {path} has been edited. Here's the result of running `cat -n` on a snippet of {path}:\n     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n     6\tsix\n     7\tSIX\n     8\tline 7\n     9\tline 8\n    10\tline 9\n    11\tline 10\n    12\tline 11\nReview the changes and make sure they are as expected. Edit the file again if necessary."
        );
        assert_eq!(reply.text, expected);
        assert_eq!(reply.note, None);
        let after = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
        assert_eq!(after, content.replace("line 6\n", "six\nSIX\n"));
    }

    #[test]
    fn multiple_occurrences_list_their_starting_lines() {
        let (_dir, sandbox, editor, path) = setup(b"a x\nb\na x a\nc\na\nx\n");
        let e = replace(&editor, &sandbox, &path, "a", Some("z")).unwrap_err();
        assert_eq!(e.code, mcp_shared::ErrorCode::MultipleMatches);
        assert_eq!(
            e.message,
            "No replacement was performed. Multiple occurrences of old_str `a` in lines [1, 3, 5]. Please ensure it is unique"
        );
        let e = replace(&editor, &sandbox, &path, "a\n", Some("z")).unwrap_err();
        assert!(e.message.ends_with("`a\n` in lines [3, 5]. Please ensure it is unique"), "{}", e.message);
    }

    #[test]
    fn no_match_points_at_the_most_similar_lines() {
        let (dir, sandbox, editor, path) = setup(b"alpha\nbeta\ndef compute(x):\n    return x * 2\n");
        let e = replace(&editor, &sandbox, &path, "def compute(y):\n    return y * 2", Some("")).unwrap_err();
        assert_eq!(e.code, mcp_shared::ErrorCode::NoMatch);
        assert!(e.message.starts_with(&format!(
            "No replacement was performed, old_str `def compute(y):\n    return y * 2` did not appear verbatim in {path}."
        )));
        assert!(e.message.contains("lines 3-4"), "{}", e.message);
        assert_eq!(
            std::fs::read(dir.path().join("f.txt")).unwrap(),
            b"alpha\nbeta\ndef compute(x):\n    return x * 2\n"
        );
    }

    #[test]
    fn trailing_whitespace_tolerance_applies_a_unique_match_and_says_so() {
        let (dir, sandbox, editor, path) = setup(b"a = 1   \nb = 2\t\nc = 3\n");
        let reply = replace(&editor, &sandbox, &path, "a = 1\nb = 2", Some("a = 10\nb = 20")).unwrap();
        assert!(reply.note.as_deref().is_some_and(|n| n.contains("trailing whitespace")), "{reply:?}");
        assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), b"a = 10\nb = 20\nc = 3\n");
    }

    #[test]
    fn crlf_bom_and_final_newline_are_kept() {
        let (dir, sandbox, editor, path) = setup(b"\xEF\xBB\xBFone\r\ntwo\r\nthree");
        replace(&editor, &sandbox, &path, "one\ntwo", Some("1\n2\n2.5")).unwrap();
        assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), b"\xEF\xBB\xBF1\r\n2\r\n2.5\r\nthree");
        replace(&editor, &sandbox, &path, "three", Some("3\n")).unwrap();
        assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), b"\xEF\xBB\xBF1\r\n2\r\n2.5\r\n3");
    }

    #[test]
    fn an_absent_new_str_deletes() {
        let (dir, sandbox, editor, path) = setup(b"keep\ndrop me\nkeep\n");
        replace(&editor, &sandbox, &path, "drop me\n", None).unwrap();
        assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), b"keep\nkeep\n");
    }

    #[test]
    fn replace_all_replaces_every_occurrence_in_one_undoable_edit_and_says_how_many() {
        let (dir, sandbox, editor, path) = setup(b"a x\r\nb\r\nx x\r\n");
        let all = |old: &str, new: &str| {
            let request = Request {
                old_str: Some(old.into()),
                new_str: Some(new.into()),
                replace_all: true,
                ..Request::default()
            };
            editor.run(&sandbox, Command::StrReplace, &path, request)
        };
        let reply = all("x", "y\nz").unwrap();
        assert!(reply.text.contains("3 occurrences of old_str were replaced, on lines [1, 3]"), "{}", reply.text);
        let file = dir.path().join("f.txt");
        assert_eq!(std::fs::read(&file).unwrap(), b"a y\r\nz\r\nb\r\ny\r\nz y\r\nz\r\n", "CRLF kept");
        editor.run(&sandbox, Command::UndoEdit, &path, Request::default()).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"a x\r\nb\r\nx x\r\n", "one undo step");
        // One occurrence: exactly the reference's answer; none: NO_MATCH as always.
        let one = all("b", "B").unwrap();
        let plain = {
            editor.run(&sandbox, Command::UndoEdit, &path, Request::default()).unwrap();
            replace(&editor, &sandbox, &path, "b", Some("B")).unwrap()
        };
        assert_eq!(one.text, plain.text);
        assert_eq!(all("nowhere", "x").unwrap_err().code, mcp_shared::ErrorCode::NoMatch);
    }
}
