//! The text results, byte for byte as Anthropic's reference implementation of the tool writes
//! them (its computer-use demo, `edit.py`), which is what Claude models were trained on.
//!
//! One deliberate difference: tabs are shown as they are, never expanded.

use std::fmt::Write as _;

/// Appended to content cut at `--max-output-chars` (the reference's `TRUNCATED_MESSAGE`).
pub const TRUNCATED_MESSAGE: &str = "<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>";

/// How many lines of context a snippet shows either side of an edit.
pub const SNIPPET_LINES: usize = 4;

/// `content` cut to `max_chars` characters (Unicode scalar values, like Python's `len`) and
/// followed by [`TRUNCATED_MESSAGE`] when longer; `0` means no limit.
pub fn maybe_truncate(content: &str, max_chars: usize) -> std::borrow::Cow<'_, str> {
    if max_chars == 0 || content.len() <= max_chars {
        return content.into();
    }
    match content.char_indices().nth(max_chars) {
        None => content.into(),
        Some((cut, _)) => {
            let mut out = String::with_capacity(cut + TRUNCATED_MESSAGE.len());
            out.push_str(&content[..cut]);
            out.push_str(TRUNCATED_MESSAGE);
            out.into()
        }
    }
}

/// The reference's `_make_output`: ``Here's the result of running `cat -n` on {descriptor}:``,
/// then each line of (possibly truncated) `content` numbered from `init_line`, right-aligned in
/// six columns and followed by a tab, then a final newline.
pub fn cat_n(content: &str, descriptor: &str, init_line: usize, max_chars: usize) -> String {
    let content = maybe_truncate(content, max_chars);
    let mut out = String::with_capacity(content.len() + content.len() / 8 + descriptor.len() + 64);
    let _ = writeln!(out, "Here's the result of running `cat -n` on {descriptor}:");
    let mut number = init_line;
    let mut rest: &str = &content;
    loop {
        push_line_number(&mut out, number);
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(at) => {
                out.push_str(&rest[..=at]);
                rest = &rest[at + 1..];
                number += 1;
            }
            None => {
                out.push_str(rest);
                break;
            }
        }
    }
    out.push('\n');
    out
}

/// Appends `number` right-aligned in six columns and a tab, as Python's `f"{n:6}\t"` does
/// (wider numbers take the room they need). A hot path: a whole-file view numbers every line.
fn push_line_number(out: &mut String, number: usize) {
    let mut digits = [b' '; 20];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at -= 1;
        // `rest % 10` is a single digit.
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let start = at.min(digits.len() - 6);
    for &byte in &digits[start..] {
        out.push(char::from(byte));
    }
    out.push('\t');
}

/// A Python list of integers as `repr` writes it: `[3, 9]`.
pub fn py_list(items: &[i64]) -> String {
    let inner: Vec<String> = items.iter().map(i64::to_string).collect();
    format!("[{}]", inner.join(", "))
}

/// The most characters of a client's own text (`old_str`) a message quotes back.
pub const MAX_ECHO_CHARS: usize = 2_000;

/// `text` as a message quotes it back: whole up to [`MAX_ECHO_CHARS`] (the reference's exact
/// words), else its start and how much was left out.
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_ECHO_CHARS) {
        None => text.into(),
        Some((at, _)) => {
            format!("{}… ({} more characters not repeated here)", &text[..at], text[at..].chars().count()).into()
        }
    }
}

/// The most line numbers a message lists (the rest are counted).
pub const MAX_LISTED_LINES: usize = 100;

/// [`py_list`] of the first [`MAX_LISTED_LINES`] of `total` line numbers (`items`, at most
/// that many): a longer list is cut, and says how many there are in all
/// (`[1, 2, …, 100, ...] (200000 in all; the first 100 shown)`).
pub fn py_list_capped(items: &[i64], total: usize) -> String {
    if total <= MAX_LISTED_LINES {
        return py_list(items);
    }
    let shown = py_list(&items[..items.len().min(MAX_LISTED_LINES)]);
    format!("{}, ...] ({total} in all; the first {MAX_LISTED_LINES} shown)", &shown[..shown.len() - 1])
}

/// The path as Python's `pathlib.Path` prints it: repeated and trailing slashes and `.`
/// components dropped (`..` kept); `.` for an empty relative path.
pub fn normalize_display(path: &str) -> String {
    if path.is_empty() {
        return String::new();
    }
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path.split('/').filter(|c| !c.is_empty() && *c != ".").collect();
    match (absolute, parts.is_empty()) {
        (true, _) => format!("/{}", parts.join("/")),
        (false, true) => ".".to_owned(),
        (false, false) => parts.join("/"),
    }
}

/// The start of every error message about a path that does not exist.
pub fn does_not_exist(path: &str) -> String {
    let hint = mcp_shared::sandbox::path_hint(path);
    format!("The path {path} does not exist. Please provide a valid path.{hint}")
}

/// The error for `create` on an existing path.
pub fn already_exists(path: &str) -> String {
    format!("File already exists at: {path}. Cannot overwrite files using command `create`.")
}

/// The error for a command other than `view` on a directory.
pub fn is_a_directory(path: &str) -> String {
    format!("The path {path} is a directory and only the `view` command can be used on directories")
}

/// The error for a missing parameter.
pub fn parameter_required(name: &str, command: &str) -> String {
    format!("Parameter `{name}` is required for command: {command}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_are_formatted_as_python_does() {
        for n in [0, 1, 9, 10, 99, 12345, 99_999, 100_000, 999_999, 1_000_000, 123_456_789_012, usize::MAX] {
            let mut out = String::new();
            push_line_number(&mut out, n);
            assert_eq!(out, format!("{n:6}\t"));
        }
        let lines: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let expected: Vec<String> = lines.split('\n').enumerate().map(|(i, l)| format!("{:6}\t{l}", i + 7)).collect();
        assert_eq!(
            cat_n(&lines, "p", 7, 0),
            format!("Here's the result of running `cat -n` on p:\n{}\n", expected.join("\n"))
        );
    }

    #[test]
    fn cat_n_matches_the_reference() {
        assert_eq!(
            cat_n("a\n\tb\n", "/w/f.py", 1, 16000),
            "Here's the result of running `cat -n` on /w/f.py:\n     1\ta\n     2\t\tb\n     3\t\n"
        );
        assert_eq!(cat_n("x", "d", 1234567, 0), "Here's the result of running `cat -n` on d:\n1234567\tx\n");
        assert_eq!(cat_n("", "d", 1, 10), "Here's the result of running `cat -n` on d:\n     1\t\n");
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(maybe_truncate("héllo", 5), "héllo");
        assert_eq!(maybe_truncate("héllo", 2), format!("hé{TRUNCATED_MESSAGE}"));
        assert_eq!(maybe_truncate("héllo", 0), "héllo");
        let out = cat_n("ab\ncd", "f", 1, 4);
        assert_eq!(
            out,
            format!("Here's the result of running `cat -n` on f:\n     1\tab\n     2\tc{TRUNCATED_MESSAGE}\n")
        );
    }

    #[test]
    fn python_formats() {
        assert_eq!(py_list(&[3, 9]), "[3, 9]");
        assert_eq!(py_list(&[]), "[]");
        assert_eq!(does_not_exist("/r/a.txt"), "The path /r/a.txt does not exist. Please provide a valid path.");
        assert!(does_not_exist("~/x.txt").contains("`~` is not expanded"));
        assert!(does_not_exist("/r/~/x.txt").contains("`~` is not expanded"));
        #[cfg(unix)]
        assert!(does_not_exist("src\\main.rs").contains("use `/`"));
        let many: Vec<i64> = (1..=250).collect();
        assert_eq!(py_list_capped(&many[..3], 3), "[1, 2, 3]");
        let capped = py_list_capped(&many[..MAX_LISTED_LINES], many.len());
        assert!(capped.starts_with("[1, 2, 3,") && capped.contains("99, 100, ...] (250 in all; the first 100 shown)"));
        assert_eq!(normalize_display("/a//b/./c/"), "/a/b/c");
        assert_eq!(normalize_display("/a/../b"), "/a/../b");
        assert_eq!(normalize_display("./"), ".");
        assert_eq!(normalize_display("src/"), "src");
        assert_eq!(normalize_display("/"), "/");
    }
}
