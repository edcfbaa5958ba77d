//! Unified diffs of a change made on someone's behalf, bounded for a result a model reads.
//!
//! A tool that rewrites a file (draft-post's `draft_post` updating an article, the IDE bridge's
//! `write_file` replacing a file) says what changed: a unified diff made with `similar`, its
//! added and removed line counts over the whole change, and the diff text cut at a line boundary
//! when it is larger than the caller's bound, with a note saying how much was left out.

use std::time::Duration;

use similar::{DiffTag, TextDiff};

/// How long the diff algorithm may search for the smallest diff before it settles for a larger,
/// still correct one (pathological inputs cost at most this).
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// A bounded unified diff and the size of the whole change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundedDiff {
    /// The unified diff (`--- a`, `+++ b`, `@@` hunks, 3 lines of context), cut to the bound
    /// and then followed by a note when [`truncated`](Self::truncated).
    pub text: String,
    /// Lines added by the whole change.
    pub added: usize,
    /// Lines removed by the whole change.
    pub removed: usize,
    /// Whether the text was cut.
    pub truncated: bool,
}

/// The unified diff from `old` to `new` (labelled `old_name` / `new_name` in its header), its
/// text at most `max_bytes` bytes plus the note when cut.
///
/// Lines end at `\n` only (a lone `\r` is part of its line, as every tool of the suite counts
/// lines), and the text is written hunk by hunk until the bound, never whole: a change of every
/// line of a large file costs the diff, not its text.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str, max_bytes: usize) -> BoundedDiff {
    let (old_lines, new_lines) = (lines(old), lines(new));
    let diff = TextDiff::configure().timeout(DIFF_TIMEOUT).newline_terminated(true).diff_slices(&old_lines, &new_lines);
    let (added, removed) = counts(diff.ops());
    let mut text = String::new();
    let mut left_out = 0usize;
    let mut unified = diff.unified_diff();
    unified.context_radius(3);
    // Line by line, never a whole hunk at once: a change of every line is one hunk the size of
    // the file.
    let push = |line: &str, text: &mut String, left_out: &mut usize| {
        if *left_out == 0 && text.len() + line.len() <= max_bytes {
            text.push_str(line);
        } else {
            *left_out += line.matches('\n').count().max(1);
        }
    };
    for (i, hunk) in unified.iter_hunks().enumerate() {
        if i == 0 {
            push(&format!("--- {old_name}\n+++ {new_name}\n"), &mut text, &mut left_out);
        }
        push(&format!("{}\n", hunk.header()), &mut text, &mut left_out);
        for change in hunk.iter_changes() {
            if left_out > 0 {
                left_out += 1 + usize::from(change.missing_newline());
                continue;
            }
            let sign = match change.tag() {
                similar::ChangeTag::Equal => ' ',
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            };
            let mut line = format!("{sign}{}", change.value());
            if change.missing_newline() {
                line.push_str("\n\\ No newline at end of file\n");
            }
            push(&line, &mut text, &mut left_out);
        }
    }
    if left_out == 0 {
        return BoundedDiff { text, added, removed, truncated: false };
    }
    text.push_str(&format!(
        "… diff cut at {max_bytes} bytes: {left_out} more diff lines not shown (+{added} -{removed} lines in all); \
         read the file for the rest\n"
    ));
    BoundedDiff { text, added, removed, truncated: true }
}

/// The lines of `text`, each with its `\n` (the last one without, if the text does not end
/// with one).
fn lines(text: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.bytes().filter(|&b| b == b'\n').count() + 1);
    out.extend(text.split_inclusive('\n'));
    out
}

/// The lines a change from `old` to `new` adds and removes, without the diff text (for a log
/// line that must never carry the content).
pub fn line_counts(old: &str, new: &str) -> (usize, usize) {
    let (old_lines, new_lines) = (lines(old), lines(new));
    counts(
        TextDiff::configure().timeout(DIFF_TIMEOUT).newline_terminated(true).diff_slices(&old_lines, &new_lines).ops(),
    )
}

fn counts(ops: &[similar::DiffOp]) -> (usize, usize) {
    let (mut added, mut removed) = (0, 0);
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {}
            DiffTag::Delete => removed += old_range.len(),
            DiffTag::Insert => added += new_range.len(),
            DiffTag::Replace => {
                removed += old_range.len();
                added += new_range.len();
            }
        }
    }
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_change_is_whole_with_its_counts() {
        let d = unified("a\nb\nc\n", "a\nB\nc\nd\n", "a/x.md", "b/x.md", 4096);
        assert_eq!(d.text, "--- a/x.md\n+++ b/x.md\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n");
        assert_eq!((d.added, d.removed, d.truncated), (2, 1, false));
        let same = unified("a\n", "a\n", "a", "b", 10);
        assert_eq!((same.text.as_str(), same.added, same.removed), ("", 0, 0));
    }

    #[test]
    fn a_large_change_is_cut_at_a_line_with_a_note() {
        let old: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..1000).map(|i| format!("LINE {i}\n")).collect();
        let d = unified(&old, &new, "a", "b", 1000);
        assert!(d.truncated);
        assert_eq!((d.added, d.removed), (1000, 1000));
        let (kept, note) = d.text.rsplit_once("… diff cut at 1000 bytes").unwrap();
        assert!(kept.len() <= 1000 && kept.ends_with('\n'), "{kept}");
        assert!(note.contains("+1000 -1000 lines in all"), "{note}");
        // A bound inside a multi-byte character still cuts at a line.
        let d = unified("é\n".repeat(100).as_str(), "è\n".repeat(100).as_str(), "a", "b", 41);
        assert!(d.truncated && d.text.is_char_boundary(d.text.find('…').unwrap()));
    }

    #[test]
    fn a_lone_cr_does_not_end_a_line() {
        let d = unified("x\ra\nb\nc\n", "x\ra\nc\n", "a", "b", 4096);
        assert_eq!(d.text, "--- a\n+++ b\n@@ -1,3 +1,2 @@\n x\ra\n-b\n c\n");
        assert_eq!((d.added, d.removed), (0, 1));
    }

    #[test]
    fn a_cut_diff_of_many_hunks_counts_what_it_left_out() {
        let old: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 5", "LINE 5");
        let d = unified(&old, &new, "a", "b", 300);
        assert!(d.truncated && d.text.len() < 500, "{}", d.text);
        let whole = unified(&old, &new, "a", "b", usize::MAX);
        let shown = d.text.lines().count() - 1;
        let left_out: usize =
            d.text.split("diff cut at 300 bytes: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert_eq!(shown + left_out, whole.text.lines().count(), "{}", d.text);
    }
}
