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
    editor::{Editor, Reply, Target},
    error::{self, ToolError},
    lines::{Normalized, Splice, normalize_input},
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

impl Editor {
    /// `edit_file` (see the module docs). `abandoned`: set when the caller gave up (a timeout),
    /// then nothing is written.
    pub fn edit_file(
        &self,
        sandbox: &Sandbox,
        path: &SandboxPath,
        edits: &[Edit],
        dry_run: bool,
        abandoned: Option<&AtomicBool>,
    ) -> Result<Reply, ToolError> {
        let t = Target::new(sandbox, path, Command::StrReplace, true, abandoned);
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
        let norm = Normalized::new(&doc.text);
        let original = norm.as_str();
        let mut text = original.to_owned();
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
        if text == original {
            return Ok(Reply::text(format!(
                "The edits leave {} as it is (each new_str equals its old_str); nothing was written.",
                t.shown
            )));
        }
        let diff = mcp_shared::diff::unified(
            original,
            &text,
            &format!("a/{}", t.shown.trim_start_matches('/')),
            &format!("b/{}", t.shown.trim_start_matches('/')),
            MAX_DIFF_BYTES,
        );
        let counts = format!("+{} -{} lines", diff.added, diff.removed);
        let mut reply = if dry_run {
            format!(
                "Dry run: nothing was written. The {} edits would change {} ({counts}):\n{}",
                edits.len(),
                t.shown,
                diff.text
            )
        } else {
            let (a, b, replacement) = spliced(&norm, &doc.text, &text);
            drop(norm);
            self.apply(&t, doc, a, b, &replacement)?;
            format!(
                "The file {} has been edited: {} edits in one write ({counts}; one `undo_edit` reverts them all):\n{}",
                t.shown,
                edits.len(),
                diff.text
            )
        };
        for note in notes {
            reply.push_str(&format!("\n{note}"));
        }
        Ok(Reply::text(reply))
    }

    /// Applies one edit to `text` (normalised) as `str_replace` would; a note when it matched
    /// only once trailing whitespace was ignored.
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
        let finder = memmem::Finder::new(old.as_bytes());
        let starts: Vec<usize> = finder.find_iter(text.as_bytes()).collect();
        let (splice, note) = match starts.as_slice() {
            [start] => (Splice { start: *start, end: start + old.len(), replacement: new.into_owned() }, None),
            [first, .., last] if edit.replace_all => {
                let mut middle = String::new();
                let mut at = *first;
                for &s in &starts {
                    middle.push_str(&text[at..s]);
                    middle.push_str(&new);
                    at = s + old.len();
                }
                (Splice { start: *first, end: last + old.len(), replacement: middle }, None)
            }
            [_, _, ..] => {
                let lines = super::str_replace::occurrence_lines(text, &finder);
                return Err(ToolError::new(
                    ErrorCode::MultipleMatches,
                    format!(
                        "old_str `{}` occurs {} times, in lines {}. Include more surrounding lines to make it unique, or pass `replace_all: true` to replace every one.",
                        edit.old_str,
                        starts.len(),
                        crate::render::py_list(&lines)
                    ),
                ));
            }
            [] => {
                let (start, end, note) = self.tolerant_match(t, text, &old, &edit.old_str)?;
                (Splice { start, end, replacement: new.into_owned() }, note)
            }
        };
        let mut splice = splice;
        splice.keep_final_newline(text);
        text.replace_range(splice.start..splice.end, &splice.replacement);
        Ok(note)
    }
}

/// The one splice of the original text that makes `edited` (both normalised): from the first
/// changed line to the last, in the original's positions, with the lines between the changes
/// copied from the original as they are (their own line endings) and the changed lines in the
/// file's line ending.
fn spliced(norm: &Normalized<'_>, raw: &str, edited: &str) -> (usize, usize, String) {
    let original = norm.as_str();
    let diff = similar::TextDiff::configure().algorithm(similar::Algorithm::Myers).diff_lines(original, edited);
    let starts = |text: &str| -> Vec<usize> {
        let mut at = vec![0];
        at.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if *at.last().unwrap_or(&0) != text.len() {
            at.push(text.len());
        }
        at
    };
    let (old_at, new_at) = (starts(original), starts(edited));
    let offset = |at: &[usize], line: usize| at.get(line).copied().unwrap_or_else(|| at.last().copied().unwrap_or(0));
    let ops = diff.ops();
    let changed: Vec<&similar::DiffOp> = ops.iter().filter(|op| op.tag() != similar::DiffTag::Equal).collect();
    let (Some(first), Some(last)) = (changed.first(), changed.last()) else {
        return (0, 0, String::new());
    };
    let (p0, p1) = (offset(&old_at, first.old_range().start), offset(&old_at, last.old_range().end));
    let mut replacement = String::new();
    let mut inside = false;
    for op in ops {
        if std::ptr::eq(op, *first) {
            inside = true;
        }
        if inside {
            let (o, n) = (op.old_range(), op.new_range());
            if op.tag() == similar::DiffTag::Equal {
                let (a, b) = (norm.to_original(offset(&old_at, o.start)), norm.to_original(offset(&old_at, o.end)));
                replacement.push_str(&raw[a..b]);
            } else {
                let part = &edited[offset(&new_at, n.start)..offset(&new_at, n.end)];
                replacement.push_str(&norm.denormalize(part));
            }
        }
        if std::ptr::eq(op, *last) {
            break;
        }
    }
    (norm.to_original(p0), norm.to_original(p1), replacement)
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
        let result = editor.edit_file(&sandbox, &target, edits, dry, None);
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
