//! `edit_file`: several `str_replace` edits to one file in one call, all or nothing.
//!
//! The edits apply in order to the text in memory, each matching exactly as `str_replace` does
//! (the same line-ending and whitespace rules, the same hints when there is no match or several;
//! `replace_all` too), each on the text the previous ones left. A failing edit names its index
//! and why, and the file is untouched. Then one write and one undo record; the lines between the
//! edits are written back byte for byte (their own line endings too), the encoding and
//! byte-order mark kept. The result is the unified diff of the change; with `dry_run`, that diff
//! and nothing written.

use std::sync::atomic::AtomicBool;

use mcp_shared::{
    ErrorCode,
    sandbox::{Sandbox, SandboxPath},
};
use memchr::memmem;

use crate::{
    Command, document,
    editor::{Editor, Reply, Seen, Target},
    error::{self, ToolError},
    lines::{self, Normalized, normalize_input},
};

/// The most edits one call makes.
pub const MAX_EDITS: usize = 500;

/// The largest diff a result shows, in bytes (the counts are always whole).
const MAX_DIFF_BYTES: usize = 32 * 1024;

/// One edit of [`Editor::edit_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The exact text to replace.
    pub old_str: String,
    /// What replaces it (empty: it is deleted).
    pub new_str: String,
    /// Replace every occurrence, not exactly one.
    pub replace_all: bool,
}

/// What an `edit_file` call expects: the file's content before (`if_sha256`) and the content the
/// edits give (`if_result_sha256`, what a dry run showed): the view's Apply sends both, so that
/// it writes exactly what was shown or nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Expected<'a> {
    /// The SHA-256 (hex) the file must have now.
    pub sha256: Option<&'a str>,
    /// The SHA-256 (hex) the file must have after the edits.
    pub result_sha256: Option<&'a str>,
}

/// Who makes an `edit_file` call: the flag set when it gave up (a timeout: then nothing is
/// written), and the tool and session the journal records.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    /// Set when the caller gave up.
    pub abandoned: Option<&'a AtomicBool>,
    /// The tool and session.
    pub origin: &'a crate::editor::Origin,
}

impl Editor {
    /// `edit_file` (see the module docs). `abandoned`: set when the caller gave up (a timeout),
    /// then nothing is written.
    pub fn edit_file(
        &self,
        sandbox: &Sandbox,
        path: &SandboxPath,
        edits: &[Edit],
        dry_run: bool,
        expected: Expected<'_>,
        caller: Caller<'_>,
    ) -> Result<Reply, ToolError> {
        let target = Target::new(sandbox, path, Command::StrReplace, caller.abandoned, caller.origin);
        let t = Target { if_sha256: expected.sha256, ..target };
        if let Some(result) = expected.result_sha256 {
            // Malformed: refused before the file is even read.
            crate::editor::check_sha256(Some(result), None, "").or_else(|e| match e.code {
                ErrorCode::InvalidArgs => Err(error::invalid(e.message.replace("`if_sha256`", "`if_result_sha256`"))),
                _ => Ok(()),
            })?;
        }
        if edits.is_empty() {
            return Err(error::invalid("`edits` is empty: give at least one {old_str, new_str}."));
        }
        if edits.len() > MAX_EDITS {
            return Err(error::invalid(format!(
                "{} edits were sent; one call makes at most {MAX_EDITS}. Split them over several calls.",
                edits.len()
            )));
        }
        let Some(md) = self.validate(&t)? else {
            return Err(ToolError::new(ErrorCode::NotFound, crate::render::does_not_exist(t.shown)));
        };
        let file = self.open_locked(&t)?;
        let doc = self.load(&t, &md, &file)?;
        let _lock = Self::keep_lock(file);
        // The edits apply one after another to the file's own text (its line endings as they
        // are), each exactly as a `str_replace` call would: the result is byte for byte that
        // of the same edits sent as successive `str_replace` calls.
        let mut text = doc.text.clone();
        let mut notes = Vec::new();
        for (i, edit) in edits.iter().enumerate() {
            let failed = |e: ToolError| {
                ToolError::new(
                    e.code,
                    format!(
                        "edits[{i}] (edit {} of {}) failed, so no edit was made and {} is unchanged: {}",
                        i + 1,
                        edits.len(),
                        t.shown,
                        e.message
                    ),
                )
            };
            let note = self.apply_edit(&t, &mut text, edit, doc.format).map_err(failed)?;
            if let Some(note) = note {
                notes.push(format!("edits[{i}]: {note}"));
            }
        }
        if text == doc.text {
            return Ok(Reply::text(format!(
                "The edits leave {} exactly as it was (each change was undone by a later one, or replaced text with the same text); nothing was written.",
                t.shown
            )));
        }
        if let Some(wanted) = expected.result_sha256 {
            let result = crate::document::encode_text(doc.format, &text).map(|b| mcp_shared::view::sha256_hex(&b));
            if result.as_deref().ok() != Some(&wanted.to_ascii_lowercase()) {
                return Err(ToolError::new(
                    ErrorCode::Conflict,
                    format!(
                        "No change was made: the edits would now give {} another content than the one given in `if_result_sha256` (what the preview showed). Preview them again with dry_run, then decide.",
                        t.shown
                    ),
                ));
            }
        }
        // The diff as the model reads the file: line endings normalised, as `view` shows them.
        let diff = {
            let (before, after) = (Normalized::new(&doc.text), Normalized::new(&text));
            mcp_shared::diff::unified(
                before.as_str(),
                after.as_str(),
                &format!("a/{}", t.shown.trim_start_matches('/')),
                &format!("b/{}", t.shown.trim_start_matches('/')),
                self.diff_budget(),
            )
        };
        let counts = format!("+{} -{} lines", diff.added, diff.removed);
        let seen;
        let mut reply = if dry_run {
            // The view's Apply: the same edits, if the file still has this content.
            seen = if self.limits.views {
                let before = super::old_bytes(&doc)?.into_owned();
                let after = crate::document::encode_text(doc.format, &text).ok();
                let mut preview = Seen::new(Some(before.clone()), after.as_deref());
                preview.result_sha256 = after.as_deref().map(mcp_shared::view::sha256_hex);
                preview.sha256 = Some(mcp_shared::view::sha256_hex(&before));
                Some(preview)
            } else {
                None
            };
            format!(
                "Dry run: nothing was written. The {} edits would change {} ({counts}):\n{}",
                edits.len(),
                mcp_shared::escape::one_line(t.shown),
                diff.text
            )
        } else {
            self.apply_text(&t, doc, text)?;
            seen = t.seen.take();
            format!(
                "The file {} has been edited: {} edits in one write ({counts}; one `undo_edit` reverts them all):\n{}",
                mcp_shared::escape::one_line(t.shown),
                edits.len(),
                diff.text
            )
        };
        let mut left_out = 0;
        for note in notes {
            if reply.len() + note.len() < self.diff_budget() + 1024 {
                reply.push_str(&format!("\n{note}"));
            } else {
                left_out += 1;
            }
        }
        if left_out > 0 {
            reply
                .push_str(&format!("\n({left_out} more notes on edits matched without trailing whitespace not shown)"));
        }
        Ok(Reply::text(reply).with_seen(seen))
    }

    /// The most bytes of diff a result shows: [`MAX_DIFF_BYTES`], or less under a smaller
    /// `--max-output-chars`.
    fn diff_budget(&self) -> usize {
        match self.limits.max_output_chars {
            0 => MAX_DIFF_BYTES,
            chars => MAX_DIFF_BYTES.min(chars),
        }
    }

    /// Applies one edit to `text` (the file's text as it stands, its own line endings) as
    /// `str_replace` would; a note when it matched only once trailing whitespace was ignored.
    fn apply_edit(
        &self,
        t: &Target<'_>,
        text: &mut String,
        edit: &Edit,
        format: document::Format,
    ) -> Result<Option<String>, ToolError> {
        if edit.old_str.is_empty() {
            return Err(error::invalid(
                "`old_str` must not be empty. Pass the exact text to replace, with enough surrounding lines to make it unique.",
            ));
        }
        let old = normalize_input(&edit.old_str);
        let new = normalize_input(&edit.new_str);
        document::check_encodable(format, &new).map_err(|e| {
            error::invalid(format!(
                "`new_str` contains {:?}, which cannot be written in {}, the encoding of {}. Use characters that {} can represent.",
                e.character, e.encoding, t.shown, e.encoding
            ))
        })?;
        let norm = Normalized::new(text);
        let normalized = norm.as_str();
        let finder = memmem::Finder::new(old.as_bytes());
        let bytes = normalized.as_bytes();
        let mut found = finder.find_iter(bytes);
        let len = old.len();
        // The occurrences are walked, never listed: a million of them cost no memory.
        let (spliced, note) = match (found.next(), found.next()) {
            (Some(start), None) => {
                (lines::replace_ranges(&norm, text, || std::iter::once((start, start + len)), &new, false), None)
            }
            (Some(_), Some(_)) if edit.replace_all => (
                lines::replace_ranges(&norm, text, || finder.find_iter(bytes).map(|s| (s, s + len)), &new, false),
                None,
            ),
            (Some(_), Some(_)) => {
                let (lines, total) = super::str_replace::occurrence_lines(normalized, &finder);
                return Err(ToolError::new(
                    ErrorCode::MultipleMatches,
                    format!(
                        "old_str `{}` occurs {} times, in lines {}. Include more surrounding lines to make it unique, or pass `replace_all: true` to replace every one.",
                        crate::render::echo(&edit.old_str),
                        finder.find_iter(bytes).count(),
                        crate::render::py_list_capped(&lines, total)
                    ),
                ));
            }
            (None, _) => {
                let (start, end, note) = self.tolerant_match(t, normalized, &old, &edit.old_str)?;
                (lines::replace_ranges(&norm, text, || std::iter::once((start, end)), &new, false), note)
            }
        };
        let Some((_, orig)) = spliced else {
            return Err(error::invalid("old_str was not found."));
        };
        drop(norm);
        text.replace_range(orig.start..orig.end, &orig.replacement);
        Ok(note)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        dir: &std::path::Path,
        name: &str,
        bytes: &[u8],
        edits: &[Edit],
        dry: bool,
    ) -> (Result<Reply, ToolError>, Vec<u8>, Editor) {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let sandbox = Sandbox::new([dir]).unwrap();
        let editor = Editor::new(crate::Limits { fsync: false, ..Default::default() });
        let target = sandbox.resolve(path.to_str().unwrap()).unwrap();
        let result = editor.edit_file(
            &sandbox,
            &target,
            edits,
            dry,
            Expected::default(),
            Caller { abandoned: None, origin: &Default::default() },
        );
        (result, std::fs::read(&path).unwrap(), editor)
    }

    fn edit(old: &str, new: &str) -> Edit {
        Edit { old_str: old.into(), new_str: new.into(), replace_all: false }
    }

    #[test]
    fn edits_apply_in_order_in_one_write_keeping_line_endings_between_them() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        // CRLF file with one LF line left alone between the edits.
        let before = b"fn a() {\r\n    one();\r\n}\nkeep\r\nfn b() {\r\n    two();\r\n}\r\n";
        let edits = [edit("one();", "uno();\n    dos();"), edit("two()", "three()"), edit("uno", "UNO")];
        let (result, after, editor) = run(&dir, "a.rs", before, &edits, false);
        let reply = result.unwrap();
        assert_eq!(after, b"fn a() {\r\n    UNO();\r\n    dos();\r\n}\nkeep\r\nfn b() {\r\n    three();\r\n}\r\n");
        assert!(reply.text.contains("3 edits in one write") && reply.text.contains("+    UNO();"), "{}", reply.text);
        // One undo step for all of them.
        let sandbox = Sandbox::new([&dir]).unwrap();
        let undone = editor.run(&sandbox, Command::UndoEdit, dir.join("a.rs").to_str().unwrap(), Default::default());
        assert!(undone.is_ok(), "{undone:?}");
        assert_eq!(std::fs::read(dir.join("a.rs")).unwrap(), before);
    }

    #[test]
    fn a_failing_edit_names_its_index_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        let before = b"a\nb\nb\nc\n";
        let (result, after, _) = run(&dir, "x.txt", before, &[edit("a", "A"), edit("b", "B"), edit("c", "C")], false);
        let error = result.unwrap_err();
        assert_eq!(error.code, ErrorCode::MultipleMatches);
        assert!(error.message.starts_with("edits[1] (edit 2 of 3) failed"), "{}", error.message);
        assert!(error.message.contains("lines [2, 3]"), "{}", error.message);
        assert_eq!(after, before);
        let (result, after, _) = run(&dir, "y.txt", before, &[edit("a", "A"), edit("zzz", "Z")], false);
        let error = result.unwrap_err();
        assert_eq!(error.code, ErrorCode::NoMatch);
        assert!(
            error.message.starts_with("edits[1]") && error.message.contains("did not appear verbatim"),
            "{}",
            error.message
        );
        assert_eq!(after, before);
        // replace_all, and a later edit that sees the earlier one's result.
        let all = Edit { old_str: "b".into(), new_str: "x".into(), replace_all: true };
        let (result, after, _) = run(&dir, "z.txt", before, &[all, edit("x\nx", "y")], false);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(after, b"a\ny\nc\n");
    }

    #[test]
    fn a_dry_run_shows_the_diff_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        let before = "\u{feff}caf\u{e9}\n".as_bytes();
        let (result, after, _) = run(&dir, "bom.txt", before, &[edit("café", "thé")], true);
        let text = result.unwrap().text;
        assert!(text.starts_with("Dry run: nothing was written.") && text.contains("+thé"), "{text}");
        assert_eq!(after, before);
        let (result, after, _) = run(&dir, "bom.txt", before, &[edit("café", "thé")], false);
        assert!(result.is_ok());
        assert_eq!(after, "\u{feff}thé\n".as_bytes(), "the byte-order mark kept");
    }
}
