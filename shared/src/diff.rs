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

/// Above this many lines on a side of the changed region, no smallest diff is searched for
/// (its cost grows with the lines): the region is shown removed, then added, whole.
const MAX_DIFFED_LINES: usize = 100_000;

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The unified diff from `old` to `new` (labelled `old_name` / `new_name` in its header), its
/// text at most `max_bytes` bytes plus the note when cut.
///
/// Lines end at `\n` only (a lone `\r` is part of its line, as every tool of the suite counts
/// lines). The lines the two texts share at their start and end are never diffed (a small
/// change in a large file costs the change), a changed region of more than
/// [`MAX_DIFFED_LINES`] lines is shown whole rather than searched, and the text is written line
/// by line up to the bound: memory stays a small multiple of the texts, whatever changed.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str, max_bytes: usize) -> BoundedDiff {
    let mut out = Out { text: String::new(), max: max_bytes, left_out: 0 };
    if old == new {
        return BoundedDiff { text: String::new(), added: 0, removed: 0, truncated: false };
    }
    let region = Region::of(old, new);
    let (old_part, new_part) = (&old[region.start..region.old_end], &new[region.start..region.new_end]);
    // A name is shown on its line only: a newline in it would forge diff lines.
    let (old_name, new_name) = (crate::escape::one_line(old_name), crate::escape::one_line(new_name));
    out.line(&format!("--- {old_name}\n+++ {new_name}\n"));
    let (n_old, n_new) = (line_count(old_part), line_count(new_part));
    let (added, removed) = if n_old.max(n_new) > MAX_DIFFED_LINES + 2 * CONTEXT {
        whole(&mut out, &region, old_part, new_part, (n_old, n_new))
    } else {
        searched(&mut out, region.first_line, old_part, new_part)
    };
    if out.left_out == 0 {
        return BoundedDiff { text: out.text, added, removed, truncated: false };
    }
    let mut text = out.text;
    text.push_str(&format!(
        "… diff cut at {max_bytes} bytes: {} more diff lines not shown (+{added} -{removed} lines in all); \
         read the file for the rest\n",
        out.left_out
    ));
    BoundedDiff { text, added, removed, truncated: true }
}

/// The lines a change from `old` to `new` adds and removes, without the diff text (for a log
/// line that must never carry the content).
pub fn line_counts(old: &str, new: &str) -> (usize, usize) {
    let diff = unified(old, new, "", "", 0);
    (diff.added, diff.removed)
}

/// The diff text being written, up to its bound; past it, lines are counted.
struct Out {
    text: String,
    max: usize,
    left_out: usize,
}

impl Out {
    fn line(&mut self, line: &str) {
        if self.left_out == 0 && self.text.len() + line.len() <= self.max {
            self.text.push_str(line);
        } else {
            self.left_out += line.matches('\n').count().max(1);
        }
    }

    /// One line of a hunk: its sign, its text, and the marker of a last line without `\n`.
    fn change(&mut self, sign: char, value: &str) {
        if self.left_out > 0 {
            self.left_out += 1 + usize::from(!value.ends_with('\n'));
            return;
        }
        let mut line = format!("{sign}{value}");
        if !value.ends_with('\n') {
            line.push_str("\n\\ No newline at end of file\n");
        }
        self.line(&line);
    }
}

/// The part of two texts a diff looks at: the changed lines, with up to [`CONTEXT`] shared
/// lines on each side (byte ranges: `start..old_end` of the old text, `start..new_end` of the
/// new), and the number of shared lines before it.
struct Region {
    start: usize,
    old_end: usize,
    new_end: usize,
    first_line: usize,
    before: usize,
    after: usize,
}

impl Region {
    fn of(old: &str, new: &str) -> Region {
        // The whole lines both start with.
        let (mut prefix, mut prefix_lines) = (0, 0);
        for (a, b) in old.split_inclusive('\n').zip(new.split_inclusive('\n')) {
            if a != b || !a.ends_with('\n') {
                break;
            }
            prefix += a.len();
            prefix_lines += 1;
        }
        // The bytes both end with, from the start of a line in both.
        let room = (old.len() - prefix).min(new.len() - prefix);
        let mut suffix = old.bytes().rev().zip(new.bytes().rev()).take(room).take_while(|(a, b)| a == b).count();
        let starts_line = |text: &str, at: usize| at == prefix || text.as_bytes()[at - 1] == b'\n';
        if suffix > 0 && !(starts_line(old, old.len() - suffix) && starts_line(new, new.len() - suffix)) {
            let from = old.len() - suffix;
            suffix = match old[from..].find('\n') {
                Some(nl) => old.len() - (from + nl + 1),
                None => 0,
            };
        }
        // Context: up to CONTEXT lines of the prefix, and of the suffix.
        let mut start = prefix;
        let mut before = 0;
        while before < CONTEXT && start > 0 {
            start = old[..start - 1].rfind('\n').map_or(0, |nl| nl + 1);
            before += 1;
        }
        let tail = &old[old.len() - suffix..];
        let mut taken = 0;
        let mut after = 0;
        while after < CONTEXT && taken < tail.len() {
            taken = tail[taken..].find('\n').map_or(tail.len(), |nl| taken + nl + 1);
            after += 1;
        }
        Region {
            start,
            old_end: old.len() - suffix + taken,
            new_end: new.len() - suffix + taken,
            first_line: prefix_lines - before,
            before,
            after,
        }
    }
}

/// The lines of `text`, each with its `\n` (the last one without, if the text does not end
/// with one).
fn lines(text: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(line_count(text));
    out.extend(text.split_inclusive('\n'));
    out
}

fn line_count(text: &str) -> usize {
    text.split_inclusive('\n').count()
}

/// A hunk range as unified diffs write it: `start,len` from 1 (`start` alone for one line; the
/// line before for none).
fn range(start: usize, len: usize) -> String {
    match len {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{len}", start + 1),
    }
}

/// The smallest diff of two regions (found by `similar`), its hunks' lines counted from
/// `first_line`; the lines added and removed.
fn searched(out: &mut Out, first_line: usize, old: &str, new: &str) -> (usize, usize) {
    let (old_lines, new_lines) = (lines(old), lines(new));
    let diff = TextDiff::configure().timeout(DIFF_TIMEOUT).newline_terminated(true).diff_slices(&old_lines, &new_lines);
    let counted = counts(diff.ops());
    let mut unified = diff.unified_diff();
    unified.context_radius(CONTEXT);
    for hunk in unified.iter_hunks() {
        let ops = hunk.ops();
        let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
            continue;
        };
        let (o, n) = (first.old_range().start, first.new_range().start);
        out.line(&format!(
            "@@ -{} +{} @@\n",
            range(first_line + o, last.old_range().end - o),
            range(first_line + n, last.new_range().end - n)
        ));
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Equal => ' ',
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            };
            out.change(sign, change.value());
        }
    }
    counted
}

/// A region too large to search, as one hunk: its context, every old line removed, every new
/// line added; the lines added and removed.
fn whole(out: &mut Out, region: &Region, old: &str, new: &str, (n_old, n_new): (usize, usize)) -> (usize, usize) {
    out.line(&format!("@@ -{} +{} @@\n", range(region.first_line, n_old), range(region.first_line, n_new)));
    let (removed, added) = (n_old - region.before - region.after, n_new - region.before - region.after);
    let mut old_lines = old.split_inclusive('\n');
    let mut new_lines = new.split_inclusive('\n');
    for line in old_lines.by_ref().take(region.before) {
        out.change(' ', line);
    }
    for line in old_lines.by_ref().take(removed) {
        out.change('-', line);
    }
    for line in new_lines.by_ref().skip(region.before).take(added) {
        out.change('+', line);
    }
    for line in old_lines {
        out.change(' ', line);
    }
    (added, removed)
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
    fn a_name_with_a_newline_cannot_forge_diff_lines() {
        let d = unified("a\n", "b\n", "a/x\n+ rm -rf ~", "b/x\u{202e}txt.exe", 4096);
        assert_eq!(d.text, "--- a/x\\n+ rm -rf ~\n+++ b/x\\u{202e}txt.exe\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!((d.added, d.removed), (1, 1));
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

    /// The oracle: `patch`. A unified diff applied to the old text gives the new one.
    fn patch(old: &str, diff: &str) -> String {
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let (mut out, mut at, mut last_sign) = (String::new(), 0usize, ' ');
        for line in diff.split_inclusive('\n').skip(2) {
            if let Some(header) = line.strip_prefix("@@ -") {
                let old_range = header.split(' ').next().unwrap();
                let (start, len) = match old_range.split_once(',') {
                    Some((s, l)) => (s.parse::<usize>().unwrap(), l.parse::<usize>().unwrap()),
                    None => (old_range.parse().unwrap(), 1),
                };
                let index = if len == 0 { start } else { start - 1 };
                for l in &old_lines[at..index] {
                    out.push_str(l);
                }
                at = index;
                continue;
            }
            if line.starts_with('\\') {
                if last_sign != '-' {
                    out.pop();
                }
                continue;
            }
            let (sign, value) = line.split_at(1);
            last_sign = sign.chars().next().unwrap();
            match last_sign {
                ' ' => {
                    out.push_str(value);
                    at += 1;
                }
                '-' => at += 1,
                _ => out.push_str(value),
            }
        }
        for l in &old_lines[at..] {
            out.push_str(l);
        }
        out
    }

    proptest::proptest! {
        /// Whatever the texts (lone CRs, no final newline, repeated lines), the diff applied to
        /// the old text gives the new one, and its counts are its `+` and `-` lines.
        #[test]
        fn the_diff_patches_old_into_new(
            old in proptest::collection::vec(proptest::sample::select(vec!["a\n", "b\n", "c\n", "\r\n", "x", "\n", "é\n"]), 0..30),
            edits in proptest::collection::vec((0usize..30, proptest::sample::select(vec!["", "z\n", "a\n", "q"])), 0..4),
        ) {
            let old: String = old.concat();
            let mut parts: Vec<&str> = old.split_inclusive('\n').collect();
            for (at, new) in &edits {
                if parts.is_empty() { parts.push(new); continue; }
                let at = at % parts.len();
                parts[at] = new;
            }
            let new: String = parts.concat();
            let ours = unified(&old, &new, "a", "b", usize::MAX);
            proptest::prop_assert_eq!(patch(&old, &ours.text), new.clone(), "{:?} -> {:?}:\n{}", old, new, ours.text);
            let plus = ours.text.lines().skip(2).filter(|l| l.starts_with('+')).count();
            let minus = ours.text.lines().skip(2).filter(|l| l.starts_with('-')).count();
            proptest::prop_assert_eq!((ours.added, ours.removed), (plus, minus));
        }
    }

    #[test]
    fn a_region_too_large_to_search_is_shown_whole_in_bounded_memory() {
        let old = "a\n".repeat(MAX_DIFFED_LINES + 10);
        let new = format!("head\n{}tail\n", "b\n".repeat(MAX_DIFFED_LINES + 10));
        let d = unified(&old, &new, "a", "b", 200);
        assert_eq!((d.added, d.removed), (MAX_DIFFED_LINES + 12, MAX_DIFFED_LINES + 10));
        assert!(d.text.starts_with("--- a\n+++ b\n@@ -1,100010 +1,100012 @@\n-a\n"), "{}", d.text);
        let shown = d.text.lines().count() - 1;
        let left_out: usize = d.text.split("bytes: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert_eq!(shown + left_out, 3 + 2 * MAX_DIFFED_LINES + 22);
        // With shared lines around it: their context, and line numbers that count them.
        let old = format!("1\n2\n3\n4\n{}9\n", "a\n".repeat(MAX_DIFFED_LINES + 10));
        let new = format!("1\n2\n3\n4\n{}9\n", "b\n".repeat(MAX_DIFFED_LINES + 10));
        let d = unified(&old, &new, "a", "b", 100);
        assert!(d.text.starts_with("--- a\n+++ b\n@@ -2,100014 +2,100014 @@\n 2\n 3\n 4\n-a\n"), "{}", d.text);
        assert_eq!(patch(&old, &unified(&old, &new, "a", "b", usize::MAX).text), new);
        let no_newline = format!("{}x", "a\n".repeat(MAX_DIFFED_LINES + 10));
        assert_eq!(patch(&no_newline, &unified(&no_newline, &new, "a", "b", usize::MAX).text), new);
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
