//! Text a file name or another program brings, made safe to show: control characters (a
//! newline, a carriage return, NUL, ESC, …), the Unicode line and paragraph separators and the
//! bidirectional controls (which reorder what a reader sees, as in "Trojan Source") are written
//! as visible escapes (`\n`, `\r`, `\t`, `\0`, `\u{202e}`), so that a name can never start a line
//! of its own in a model's text or a view, nor hide or reorder what is around it. Everything
//! else, a backslash and quotes included, is kept as it is: a path reads as the user wrote it.

use std::borrow::Cow;

/// Whether `c` is written as an escape: a control character (C0, DEL, C1), a bidirectional
/// control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), a line or paragraph
/// separator (U+2028, U+2029), or a zero-width no-break space (U+FEFF).
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// `text` on one line, every hidden character escaped (a newline too).
pub fn one_line(text: &str) -> Cow<'_, str> {
    escaped(text, |_| false)
}

/// `text` with its newlines and tabs kept (Markdown, a multi-line message), every other
/// hidden character escaped.
pub fn lines(text: &str) -> Cow<'_, str> {
    escaped(text, |c| c == '\n' || c == '\t')
}

/// [`one_line`] in place.
pub fn one_line_in_place(text: &mut String) {
    if let Cow::Owned(shown) = one_line(text) {
        *text = shown;
    }
}

/// [`lines`] in place.
pub fn lines_in_place(text: &mut String) {
    if let Cow::Owned(shown) = lines(text) {
        *text = shown;
    }
}

fn escaped(text: &str, kept: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hidden(c) && !kept(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_hidden(c) || kept(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            other => out.push_str(&format!("\\u{{{:04x}}}", other as u32)),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_written_as_escapes_and_the_rest_is_kept() {
        assert!(matches!(one_line("src/a.ts"), Cow::Borrowed("src/a.ts")));
        assert_eq!(one_line("C:\\Users\\o'neil \"x\""), "C:\\Users\\o'neil \"x\"");
        assert_eq!(one_line("a\n+ rm -rf ~"), "a\\n+ rm -rf ~");
        assert_eq!(one_line("x\r\0\t\u{1b}[2J\u{7f}\u{85}"), "x\\r\\0\\t\\u{001b}[2J\\u{007f}\\u{0085}");
        assert_eq!(one_line("abc\u{202e}fdp.exe"), "abc\\u{202e}fdp.exe");
        assert_eq!(
            one_line("\u{2066}\u{2069}\u{200f}\u{061c}\u{2028}\u{feff}"),
            "\\u{2066}\\u{2069}\\u{200f}\\u{061c}\\u{2028}\\u{feff}"
        );
        assert_eq!(lines("a\n\tb\r\n\u{202e}"), "a\n\tb\\r\n\\u{202e}");
        assert_eq!(one_line("日本語 é"), "日本語 é");
        let mut s = String::from("t\nitle");
        one_line_in_place(&mut s);
        assert_eq!(s, "t\\nitle");
    }

    proptest::proptest! {
        #[test]
        fn an_escaped_text_has_no_hidden_character_and_escaping_it_again_changes_nothing(text in "\\PC*|[\\x00-\\x20\u{202a}-\u{202e}\u{2066}-\u{2069}a\\\\]*") {
            let shown = one_line(&text).into_owned();
            proptest::prop_assert!(!shown.chars().any(is_hidden));
            proptest::prop_assert_eq!(one_line(&shown).into_owned(), shown.clone());
            let kept = lines(&text).into_owned();
            proptest::prop_assert_eq!(kept.matches('\n').count(), text.matches('\n').count());
        }
    }
}
