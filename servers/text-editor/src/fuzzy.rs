//! What `str_replace` does when `old_str` does not appear verbatim: a match that ignores
//! trailing whitespace, and otherwise the most similar region to point the model at.

use memchr::memmem;

/// The normalised text with the trailing whitespace of every line removed, and the way back.
#[derive(Debug, Clone)]
pub struct Stripped {
    text: String,
    /// Per line: start in the stripped text, start in the original, stripped and original
    /// length (without the `\n`).
    lines: Vec<LineMap>,
}

#[derive(Debug, Clone, Copy)]
struct LineMap {
    stripped_start: usize,
    original_start: usize,
    stripped_len: usize,
    original_len: usize,
}

/// `s` with the trailing whitespace of each line removed.
pub fn strip_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(trim_end(line));
    }
    out
}

fn trim_end(line: &str) -> &str {
    line.trim_end_matches(|c: char| c.is_whitespace() && c != '\n')
}

impl Stripped {
    /// Strips `text` (normalised, LF line endings).
    pub fn new(text: &str) -> Stripped {
        let mut out = String::with_capacity(text.len());
        let mut lines = Vec::new();
        let mut original_start = 0usize;
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let trimmed = trim_end(line);
            lines.push(LineMap {
                stripped_start: out.len(),
                original_start,
                stripped_len: trimmed.len(),
                original_len: line.len(),
            });
            out.push_str(trimmed);
            original_start += line.len() + 1;
        }
        Stripped { text: out, lines }
    }

    /// Where `needle` (already stripped) occurs: at most the first two starts.
    pub fn find_two(&self, needle: &str) -> (Option<usize>, Option<usize>) {
        let finder = memmem::Finder::new(needle.as_bytes());
        let mut it = finder.find_iter(self.text.as_bytes());
        (it.next(), it.next())
    }

    fn line_of(&self, pos: usize) -> LineMap {
        let index = self.lines.partition_point(|l| l.stripped_start <= pos).saturating_sub(1);
        self.lines[index]
    }

    /// The original position of a match's start.
    pub fn original_start(&self, pos: usize) -> usize {
        let line = self.line_of(pos);
        line.original_start + (pos - line.stripped_start).min(line.stripped_len)
    }

    /// The original position of a match's end; a match that ends a line also takes that
    /// line's trailing whitespace.
    pub fn original_end(&self, pos: usize) -> usize {
        let line = self.line_of(pos);
        let offset = pos - line.stripped_start;
        if offset >= line.stripped_len { line.original_start + line.original_len } else { line.original_start + offset }
    }
}

/// The 1-based line range of `text` most similar to `needle`, if anything is similar enough.
///
/// Every window of as many lines as `needle` has is scored by the average similarity of its
/// lines to `needle`'s (Dice coefficient of character bigrams, leading and trailing whitespace
/// ignored). Very large files are not searched.
pub fn most_similar_region(text: &str, needle: &str) -> Option<(usize, usize)> {
    const MAX_WORK: usize = 20_000_000;
    const MAX_SAMPLED_LINES: usize = 16;
    const THRESHOLD: f64 = 0.5;

    let needle = needle.strip_suffix('\n').unwrap_or(needle);
    let needle_lines: Vec<&str> = needle.split('\n').collect();
    let file_lines: Vec<&str> = text.split('\n').collect();
    let k = needle_lines.len().min(file_lines.len()).max(1);
    // Which lines of the needle are compared (evenly spread when there are many).
    let sampled: Vec<usize> = if k <= MAX_SAMPLED_LINES {
        (0..k).collect()
    } else {
        (0..MAX_SAMPLED_LINES).map(|i| i * (k - 1) / (MAX_SAMPLED_LINES - 1)).collect()
    };
    let windows = file_lines.len() + 1 - k;
    if windows.saturating_mul(sampled.len()) > MAX_WORK || text.len() > 64 * 1024 * 1024 {
        return None;
    }
    let needle_sigs: Vec<Vec<u32>> = needle_lines.iter().map(|l| signature(l)).collect();
    let file_sigs: Vec<Vec<u32>> = file_lines.iter().map(|l| signature(l)).collect();
    let mut best: Option<(usize, f64)> = None;
    for start in 0..windows {
        let total: f64 = sampled.iter().map(|&i| dice(&file_sigs[start + i], &needle_sigs[i])).sum();
        let score = total / sampled.len() as f64;
        if best.is_none_or(|(_, s)| score > s) {
            best = Some((start, score));
        }
    }
    let (start, score) = best?;
    (score >= THRESHOLD).then_some((start + 1, start + k))
}

/// The sorted, deduplicated character bigrams of a trimmed line (its one character, if short).
fn signature(line: &str) -> Vec<u32> {
    let chars: Vec<char> = line.trim().chars().collect();
    let mut sig: Vec<u32> = if chars.len() == 1 {
        vec![u32::from(chars[0])]
    } else {
        chars.windows(2).map(|w| (u32::from(w[0]).wrapping_mul(0x9E37_79B1)) ^ u32::from(w[1])).collect()
    };
    sig.sort_unstable();
    sig.dedup();
    sig
}

fn dice(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_whitespace_is_ignored_and_mapped_back() {
        let text = "fn a() {  \n    body();\t\n}\n";
        let stripped = Stripped::new(text);
        let needle = strip_lines("fn a() {\n    body();\n}");
        let (first, second) = stripped.find_two(&needle);
        let start = first.unwrap();
        assert_eq!(second, None);
        let end = start + needle.len();
        let (a, b) = (stripped.original_start(start), stripped.original_end(end));
        assert_eq!(&text[a..b], "fn a() {  \n    body();\t\n}");
    }

    #[test]
    fn a_match_ending_a_line_takes_its_trailing_whitespace() {
        let text = "x = 1   \ny = 2";
        let stripped = Stripped::new(text);
        let (start, _) = stripped.find_two("x = 1");
        let start = start.unwrap();
        assert_eq!(stripped.original_end(start + 5), 8);
    }

    #[test]
    fn the_most_similar_region_is_found() {
        let text = "alpha\nbeta\ndef compute(x):\n    return x * 2\ngamma\n";
        assert_eq!(most_similar_region(text, "def compute(y):\n    return y * 2"), Some((3, 4)));
        assert_eq!(most_similar_region(text, "zzzzzzzz qqqqqq"), None);
        assert_eq!(most_similar_region("one line", "one lime"), Some((1, 1)));
    }
}
