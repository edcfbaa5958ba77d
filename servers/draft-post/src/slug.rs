//! Slugs: the `slug` part of a `NN-slug` directory name.
//!
//! A slug is lowercase ASCII letters, digits and single `-` between words, at most
//! [`MAX_SLUG_CHARS`] characters. Text is never transliterated: a Japanese title has no ASCII
//! word, so it gives no slug and the next source is tried (the file stem, then `post`).

/// The longest slug, in characters.
pub const MAX_SLUG_CHARS: usize = 50;

/// The slug of last resort.
pub const FALLBACK_SLUG: &str = "post";

/// The ASCII words of `text`, lowercased and joined by `-`, cut at a word boundary to at most
/// [`MAX_SLUG_CHARS`] characters. Apostrophes inside words are dropped (`don't` → `dont`);
/// every other character that is not an ASCII letter or digit separates words. Empty when
/// `text` has no ASCII word.
pub fn slugify(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_SLUG_CHARS + 1));
    let mut pending_dash = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if pending_dash && !out.is_empty() {
                out.push('-');
            }
            pending_dash = false;
            out.push(c.to_ascii_lowercase());
        } else if matches!(c, '\'' | '\u{2019}') {
            // An apostrophe joins: "don't" is one word.
        } else {
            pending_dash = true;
        }
        if out.len() > MAX_SLUG_CHARS {
            break;
        }
    }
    if out.len() > MAX_SLUG_CHARS {
        // Cut at the last word boundary that fits, else hard at the limit.
        let next_is_boundary = out.as_bytes()[MAX_SLUG_CHARS] == b'-';
        out.truncate(MAX_SLUG_CHARS);
        if let Some(dash) = out.rfind('-').filter(|_| !next_is_boundary) {
            out.truncate(dash);
        }
        while out.ends_with('-') {
            out.pop();
        }
    }
    out
}

/// Where a slug came from (for the result's explanation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlugSource {
    /// The manuscript's frontmatter `slug`.
    Frontmatter,
    /// The manuscript's `title`.
    Title,
    /// The manuscript's file name without its extension.
    FileStem,
    /// Nothing gave an ASCII word: [`FALLBACK_SLUG`].
    Fallback,
}

/// The slug for a new article: the first of frontmatter `slug`, `title` and file stem that
/// has an ASCII word, else [`FALLBACK_SLUG`]. (The `slug` argument is handled by the caller:
/// a bad one is an error, not a fallback.)
pub fn choose(frontmatter_slug: Option<&str>, title: Option<&str>, stem: Option<&str>) -> (String, SlugSource) {
    let candidates =
        [(frontmatter_slug, SlugSource::Frontmatter), (title, SlugSource::Title), (stem, SlugSource::FileStem)];
    for (text, source) in candidates {
        if let Some(text) = text {
            let slug = slugify(text);
            if !slug.is_empty() {
                return (slug, source);
            }
        }
    }
    (FALLBACK_SLUG.to_owned(), SlugSource::Fallback)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn slugify_makes_lowercase_ascii_words() {
        assert_eq!(slugify("Hello, World!"), "hello-world");
        assert_eq!(slugify("  MCP -- server  "), "mcp-server");
        assert_eq!(slugify("Don't panic"), "dont-panic");
        assert_eq!(slugify("Rust 2024 edition"), "rust-2024-edition");
        assert_eq!(slugify("already-a-slug"), "already-a-slug");
        assert_eq!(slugify("snake_case_name"), "snake-case-name");
    }

    #[test]
    fn slugify_never_transliterates() {
        assert_eq!(slugify("日本語のタイトル"), "");
        assert_eq!(slugify("Rust入門"), "rust");
        assert_eq!(slugify("MCPサーバーを作る"), "mcp");
        assert_eq!(slugify("Café déjà vu"), "caf-d-j-vu");
        assert_eq!(slugify("🎉"), "");
    }

    #[test]
    fn slugify_cuts_at_a_word_boundary() {
        let long = "a-very-long-title-that-goes-on-and-on-well-beyond-the-limit";
        let slug = slugify(long);
        assert_eq!(slug, "a-very-long-title-that-goes-on-and-on-well-beyond");
        assert!(slug.len() <= MAX_SLUG_CHARS);
        let word = "x".repeat(80);
        assert_eq!(slugify(&word), "x".repeat(MAX_SLUG_CHARS));
        let exact = format!("{} tail", "y".repeat(MAX_SLUG_CHARS));
        assert_eq!(slugify(&exact), "y".repeat(MAX_SLUG_CHARS));
    }

    #[test]
    fn choose_falls_back_in_order() {
        assert_eq!(choose(Some("Given"), Some("Title"), Some("stem")), ("given".into(), SlugSource::Frontmatter));
        assert_eq!(choose(Some("日本"), Some("My Title"), Some("stem")), ("my-title".into(), SlugSource::Title));
        assert_eq!(choose(None, Some("日本語のタイトル"), Some("seed")), ("seed".into(), SlugSource::FileStem));
        assert_eq!(choose(None, Some("日本語"), Some("原稿")), ("post".into(), SlugSource::Fallback));
        assert_eq!(choose(None, None, None), ("post".into(), SlugSource::Fallback));
    }

    proptest! {
        #[test]
        fn slugs_are_always_well_formed(text in "\\PC{0,120}") {
            let slug = slugify(&text);
            prop_assert!(slug.len() <= MAX_SLUG_CHARS);
            prop_assert!(slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
            prop_assert!(!slug.starts_with('-') && !slug.ends_with('-') && !slug.contains("--"));
            prop_assert_eq!(slugify(&slug), slug.clone(), "a slug is its own slug");
        }
    }
}
