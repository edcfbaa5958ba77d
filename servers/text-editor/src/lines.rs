//! Line endings and line arithmetic.
//!
//! Every command works on the *normalised* text: the file's text with each CRLF read as LF, the
//! way Anthropic's reference implementation (Python's universal newlines) sees it. So an
//! `old_str` written with `\n` matches a CRLF file, and line numbers are the same whatever the
//! line endings. An edit is a [`Splice`] of the normalised text; [`Normalized::to_original`]
//! maps it back onto the original text, and the replacement gets the file's dominant line
//! ending. Text the edit does not touch keeps its bytes, even in a file of mixed line endings.

use std::borrow::Cow;

/// The text of a file with every CRLF read as LF, and how to map positions back.
#[derive(Debug, Clone)]
pub struct Normalized<'a> {
    text: Cow<'a, str>,
    /// Positions, in the normalised text, of the `\n`s that were `\r\n` (ascending).
    crlf: Vec<usize>,
    newline: &'static str,
}

impl<'a> Normalized<'a> {
    /// Normalises `original` (borrowed when it has no CR).
    pub fn new(original: &'a str) -> Normalized<'a> {
        let bytes = original.as_bytes();
        if memchr::memchr(b'\r', bytes).is_none() {
            return Normalized { text: Cow::Borrowed(original), crlf: Vec::new(), newline: "\n" };
        }
        let mut text = String::with_capacity(original.len());
        let mut crlf = Vec::new();
        let mut lone_lf = 0usize;
        let mut from = 0usize;
        for at in memchr::memchr_iter(b'\n', bytes) {
            if at > 0 && bytes[at - 1] == b'\r' {
                text.push_str(&original[from..at - 1]);
                crlf.push(text.len());
                text.push('\n');
            } else {
                lone_lf += 1;
                text.push_str(&original[from..=at]);
            }
            from = at + 1;
        }
        text.push_str(&original[from..]);
        let newline = if crlf.len() > lone_lf { "\r\n" } else { "\n" };
        Normalized { text: Cow::Owned(text), crlf, newline }
    }

    /// The normalised text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The file's dominant line ending: `"\r\n"` if most of its line breaks are CRLF.
    #[cfg(test)]
    pub fn newline(&self) -> &'static str {
        self.newline
    }

    /// The position in the original text of position `pos` of the normalised text.
    pub fn to_original(&self, pos: usize) -> usize {
        pos + self.crlf.partition_point(|&p| p < pos)
    }

    /// `replacement` (normalised) with the file's dominant line ending.
    pub fn denormalize<'r>(&self, replacement: &'r str) -> Cow<'r, str> {
        if self.newline == "\r\n" && replacement.contains('\n') {
            Cow::Owned(replacement.replace('\n', "\r\n"))
        } else {
            Cow::Borrowed(replacement)
        }
    }
}

/// Replaces each of `ranges` (ascending, non-overlapping positions in the normalised text of
/// `norm`) with `new` (normalised), as one splice from the first to the last, keeping the
/// file's final newline as it is ([`Splice::keep_final_newline`]). Returns that splice of the
/// normalised text (for snippets) and the same splice of the original text `raw`: the new text
/// in the file's dominant line ending, and the text between the ranges copied byte for byte
/// (each line keeps its own ending, even in a file of mixed endings). `str_replace` (one range,
/// or every occurrence with `replace_all`) and each edit of `edit_file` go through here. Linear
/// in the size of the splice. With `normalized` false, the normalised splice's replacement is
/// built only when the final-newline rule needs it (the splice reaches the end of the text):
/// a caller that shows no snippet saves a copy of the splice.
pub fn replace_ranges<I: Iterator<Item = (usize, usize)>>(
    norm: &Normalized<'_>,
    raw: &str,
    ranges: impl Fn() -> I,
    new: &str,
    normalized: bool,
) -> Option<(Splice, Splice)> {
    // The ranges are walked (not stored: a million occurrences cost no list): once for their
    // extent, once to build.
    let (first, _) = ranges().next()?;
    let (mut last, mut count, mut covered) = (first, 0usize, 0usize);
    for (a, b) in ranges() {
        (last, count, covered) = (b, count + 1, covered + (b - a));
    }
    let text = norm.as_str();
    let normalized = normalized || last == text.len();
    let new_orig = norm.denormalize(new);
    let (start_orig, end_orig) = (norm.to_original(first), norm.to_original(last));
    let gaps = last - first - covered;
    let mut middle = String::with_capacity(if normalized { gaps + count * new.len() } else { 0 });
    let mut middle_orig = String::with_capacity(end_orig - start_orig + count * new_orig.len());
    let mut at = first;
    for (a, b) in ranges() {
        if normalized {
            middle.push_str(&text[at..a]);
            middle.push_str(new);
        }
        middle_orig.push_str(&raw[norm.to_original(at)..norm.to_original(a)]);
        middle_orig.push_str(&new_orig);
        at = b;
    }
    let mut splice = Splice { start: first, end: last, replacement: middle };
    let before = splice.replacement.len();
    splice.keep_final_newline(text);
    let after = splice.replacement.len();
    if after > before {
        // One newline added: in the file's line ending, as the rest of the new text.
        middle_orig.push_str(norm.newline);
    }
    for _ in after..before {
        // Each newline taken off the end, with the CR of a CRLF.
        middle_orig.pop();
        if middle_orig.ends_with('\r') {
            middle_orig.pop();
        }
    }
    let orig =
        Splice { start: norm.to_original(splice.start), end: norm.to_original(splice.end), replacement: middle_orig };
    Some((splice, orig))
}

/// The 1-based lines on which `starts` (ascending positions in `text`) lie, each line once:
/// the first `keep` of them, and how many there are in all; linear in the text, however many.
pub fn lines_of(text: &str, starts: impl IntoIterator<Item = usize>, keep: usize) -> (Vec<i64>, usize) {
    let mut out: Vec<i64> = Vec::new();
    let (mut line, mut from, mut total, mut last) = (1i64, 0usize, 0usize, 0i64);
    for at in starts {
        line += newline_count(&text[from..at]) as i64;
        from = at;
        if last != line {
            last = line;
            total += 1;
            if out.len() < keep {
                out.push(line);
            }
        }
    }
    (out, total)
}

/// Text from a caller with each CRLF read as LF, like the file's.
pub fn normalize_input(s: &str) -> Cow<'_, str> {
    if s.contains("\r\n") { Cow::Owned(s.replace("\r\n", "\n")) } else { Cow::Borrowed(s) }
}

/// An edit of the normalised text: `start..end` becomes `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// Where the replaced text starts.
    pub start: usize,
    /// Where the replaced text ends (exclusive).
    pub end: usize,
    /// The new text (normalised: LF line endings).
    pub replacement: String,
}

impl Splice {
    /// Keeps the presence or absence of the final newline of `text` (the normalised text this
    /// splice applies to) when the splice reaches the end of it. An empty file, or an edit that
    /// empties the file, is left as it is.
    pub fn keep_final_newline(&mut self, text: &str) {
        if text.is_empty() || self.end != text.len() {
            return;
        }
        let had = text.ends_with('\n');
        let empties = |s: &Splice| s.start == 0 && s.replacement.is_empty();
        if empties(self) {
            return;
        }
        let ends_with_newline = |s: &Splice| {
            if s.replacement.is_empty() { text[..s.start].ends_with('\n') } else { s.replacement.ends_with('\n') }
        };
        if had {
            if !ends_with_newline(self) {
                self.replacement.push('\n');
            }
            return;
        }
        while ends_with_newline(self) && !empties(self) {
            if self.replacement.is_empty() {
                self.start -= 1;
            } else {
                self.replacement.pop();
            }
        }
    }
}

/// How many lines `text` has as Python's `text.split("\n")` counts them (a final newline
/// starts one more, empty, line).
pub fn line_count(text: &str) -> usize {
    newline_count(text) + 1
}

/// How many `\n` bytes `text` holds.
pub fn newline_count(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// The byte offset where line `index` (0-based) starts, if `text` has that many lines.
pub fn line_start(text: &str, index: usize) -> Option<usize> {
    if index == 0 {
        return Some(0);
    }
    memchr::memchr_iter(b'\n', text.as_bytes()).nth(index - 1).map(|at| at + 1)
}

/// Lines `first .. first + count` (0-based) of the text `before + middle + after`, joined by
/// `\n`, without building that whole text. `before_newlines` is the number of `\n` in `before`
/// and `first` must not exceed it (the window starts in `before`).
pub fn window(before: &str, before_newlines: usize, middle: &str, after: &str, first: usize, count: usize) -> String {
    let first = first.min(before_newlines);
    let start = if first == 0 {
        0
    } else {
        memchr::memrchr_iter(b'\n', before.as_bytes()).nth(before_newlines - first).map_or(0, |at| at + 1)
    };
    let end = memchr::memchr_iter(b'\n', after.as_bytes()).nth(count).unwrap_or(after.len());
    let mut joined = String::with_capacity(before.len() - start + middle.len() + end);
    joined.push_str(&before[start..]);
    joined.push_str(middle);
    joined.push_str(&after[..end]);
    let mut out = String::with_capacity(joined.len());
    for (i, line) in joined.split('\n').take(count).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lf_text_is_borrowed() {
        let n = Normalized::new("a\nb\n");
        assert!(matches!(n.text, Cow::Borrowed(_)));
        assert_eq!(n.newline(), "\n");
        assert_eq!(n.to_original(3), 3);
    }

    #[test]
    fn crlf_maps_back() {
        let original = "ab\r\ncd\r\nef";
        let n = Normalized::new(original);
        assert_eq!(n.as_str(), "ab\ncd\nef");
        assert_eq!(n.newline(), "\r\n");
        assert_eq!(n.to_original(2), 2); // before the first line break
        assert_eq!(n.to_original(3), 4); // 'c'
        assert_eq!(n.to_original(6), 8); // 'e'
        assert_eq!(n.denormalize("x\ny"), "x\r\ny");
    }

    #[test]
    fn mixed_line_endings_pick_the_majority_and_keep_lone_cr() {
        let n = Normalized::new("a\r\nb\nc\n");
        assert_eq!(n.newline(), "\n");
        assert_eq!(n.as_str(), "a\nb\nc\n");
        let n = Normalized::new("a\r\r\nb");
        assert_eq!(n.as_str(), "a\r\nb");
        assert_eq!(n.to_original(3), 4);
    }

    #[test]
    fn final_newline_is_kept() {
        let text = "a\nb\n";
        let mut s = Splice { start: 2, end: 4, replacement: "c".into() };
        s.keep_final_newline(text);
        assert_eq!(s.replacement, "c\n");

        let text = "a\nb";
        let mut s = Splice { start: 2, end: 3, replacement: "c\n".into() };
        s.keep_final_newline(text);
        assert_eq!(s.replacement, "c");
        let mut s = Splice { start: 2, end: 3, replacement: String::new() };
        s.keep_final_newline(text);
        assert_eq!((s.start, s.replacement.as_str()), (1, ""));

        // not at the end: untouched
        let mut s = Splice { start: 0, end: 1, replacement: "x\n".into() };
        s.keep_final_newline(text);
        assert_eq!(s.replacement, "x\n");
        // emptying the file: untouched
        let mut s = Splice { start: 0, end: 4, replacement: String::new() };
        s.keep_final_newline("a\nb\n");
        assert_eq!((s.start, s.replacement.as_str()), (0, ""));
    }

    #[test]
    fn line_helpers() {
        assert_eq!(line_count(""), 1);
        assert_eq!(line_count("a\nb\n"), 3);
        assert_eq!(line_start("a\nbc\nd", 2), Some(5));
        assert_eq!(line_start("a\nbc\nd", 3), None);
    }

    #[test]
    fn window_spans_the_three_parts() {
        let before = "1\n2\n3\n4\n5\n6";
        let middle = "X\nY";
        let after = "7\n8\n9\n10\n11\n12";
        let whole = format!("{before}{middle}{after}");
        let lines: Vec<&str> = whole.split('\n').collect();
        for first in 0..=5 {
            for count in 1..12 {
                let expected = lines.iter().skip(first).take(count).copied().collect::<Vec<_>>().join("\n");
                assert_eq!(window(before, 5, middle, after, first, count), expected, "{first} {count}");
            }
        }
    }
}
