//! Tests of the frontmatter: locating, reading (the quick reader against serde-saphyr) and
//! editing.

use proptest::prelude::*;

use super::*;

const ID: &str = "0123456789abcdef";

#[test]
fn split_finds_frontmatter_and_keeps_every_byte() {
    let text = "---\ntitle: A\n---\nbody\n---\nmore\n";
    let parts = split(text).unwrap();
    let block = parts.frontmatter.clone().unwrap();
    assert_eq!(block.yaml, "title: A\n");
    assert_eq!(parts.body, "body\n---\nmore\n");
    assert_eq!(format!("{}{}{}{}{}", parts.bom, block.open, block.yaml, block.close, parts.body), text);

    let dots = split("---\r\na: 1\r\n...\r\nx").unwrap();
    assert_eq!(dots.frontmatter.unwrap().close, "...\r\n");
    assert_eq!(dots.body, "x");

    let none = split("# Title\n---\n").unwrap();
    assert!(none.frontmatter.is_none());
    assert_eq!(none.body, "# Title\n---\n");

    let at_eof = split("---\na: 1\n---").unwrap();
    assert_eq!(at_eof.frontmatter.unwrap().close, "---");
    assert_eq!(at_eof.body, "");

    let bom = split("\u{feff}---\na: 1\n---\nb").unwrap();
    assert_eq!(bom.bom, "\u{feff}");
    assert!(bom.frontmatter.is_some());
}

/// A YAML bomb: nine levels of anchors, each aliasing the one before nine times (9^10 nodes
/// if expanded).
fn yaml_bomb() -> String {
    let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for level in 1..10 {
        let prev = level - 1;
        let items = vec![format!("*a{prev}"); 9].join(", ");
        yaml.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    yaml
}

#[test]
fn a_yaml_bomb_and_an_oversized_frontmatter_are_refused_before_the_parser_expands_them() {
    let refused = parse_meta(&yaml_bomb(), 2).unwrap_err();
    assert!(refused.message.contains("budget"), "{refused}");
    let keys: String = (0..=MAX_FRONTMATTER_KEYS).map(|i| format!("k{i}: 1\n")).collect();
    let refused = parse_meta(&keys, 2).unwrap_err();
    assert!(refused.message.contains("1001 top-level entries"), "{refused}");
    assert_eq!(quick_meta(&keys), None);
    let big = format!("title: {}\n", "x".repeat(MAX_FRONTMATTER_BYTES));
    assert!(parse_meta(&big, 2).unwrap_err().message.contains("bytes"));
    let within: String = (0..MAX_FRONTMATTER_KEYS).map(|i| format!("k{i}: 1\n")).collect();
    assert_eq!(parse_meta(&within, 2).unwrap().keys.len(), MAX_FRONTMATTER_KEYS);
}

#[test]
fn an_unclosed_frontmatter_is_an_error_on_line_1() {
    let e = split("---\ntitle: A\nbody\n").unwrap_err();
    assert_eq!((e.line, e.column), (1, 1));
    assert!(e.message.contains("never closed"), "{}", e.message);
    // An indented `---` does not close it.
    assert!(split("---\na: |\n  ---\n").is_err());
}

#[test]
fn malformed_yaml_is_located_in_the_file() {
    let text = "---\ntitle: ok\ntags: [unclosed\n---\nbody";
    let block = split(text).unwrap().frontmatter.unwrap();
    let e = parse_meta(block.yaml, block.first_line).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    assert_eq!(e.column, 7, "{e}");
    assert!(!e.message.contains('\n') && !e.message.starts_with("line"), "{}", e.message);

    let e = parse_meta("a: 1\na: 2\n", 2).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("duplicate"), "{}", e.message);

    let e = parse_meta("- a\n- b\n", 2).unwrap_err();
    assert!(e.message.contains("list"), "{}", e.message);
    assert!(parse_meta("just text", 2).is_err());
}

#[test]
fn parse_reads_keys_in_order_and_scalars() {
    let meta = parse_meta("title: 2024\nslug: \"my-post\"\nz: [1]\nsource_id: abc\n", 2).unwrap();
    assert_eq!(meta.keys, ["title", "slug", "z", "source_id"]);
    assert_eq!(meta.title.as_deref(), Some("2024"));
    assert_eq!(meta.slug.as_deref(), Some("my-post"));
    assert_eq!(meta.source_id.as_deref(), Some("abc"));
    assert_eq!(parse_meta("", 2).unwrap(), Meta::default());
    assert_eq!(parse_meta("# only a comment\n", 2).unwrap(), Meta::default());
}

#[test]
fn quick_reads_the_common_shape() {
    let yaml = "# c\ntitle: \"Hello: world\"\nslug: it's-fine\ndate: 2025-01-01\ntags: [a, b, 日本語]\n\n\
                source_id: 0123456789abcdef # id\nempty:\nq: 'it''s'\n";
    let meta = quick_meta(yaml).unwrap();
    assert_eq!(meta.keys, ["title", "slug", "date", "tags", "source_id", "empty", "q"]);
    assert_eq!(meta.title.as_deref(), Some("Hello: world"));
    assert_eq!(meta.slug.as_deref(), Some("it's-fine"));
    assert_eq!(meta.source_id.as_deref(), Some(ID));
    assert_eq!(parse_meta(yaml, 2).unwrap(), meta);
    assert_eq!(quick_meta("title: 日本語のタイトル\n").unwrap().title.as_deref(), Some("日本語のタイトル"));
    // Other keys may hold booleans and numbers.
    let typed = "title: T\ndraft: false\nweight: 10\nratio: 0.5\npublished: yes\ntags: [1, true]\n";
    assert_eq!(quick_meta(typed).unwrap(), parse_meta(typed, 2).unwrap());
}

#[test]
fn quick_gives_up_on_anything_unusual() {
    for yaml in [
        "title: 1\n",
        "slug: true\n",
        "a: 1e5\n",
        "a: 1e400\n",
        "a: |\n  x\n",
        "a:\n  - x\n",
        "a: {b: 1}\n",
        "a: &x y\n",
        "a: \"esc\\n\"\n",
        "a: b: c\n",
        "a:b\n",
        "a: .inf\n",
        "a: x\na: y\n",
        "\"a\": x\n",
        "a:\tb\n",
        "- a\n",
        "a: 3e12345678901234\n",
        "source_id: 1234567890123456\n",
        "a: [a, ]\n",
        "yes: x\n",
    ] {
        assert_eq!(quick_meta(yaml), None, "{yaml:?}");
    }
}

#[test]
fn source_id_hint_reads_a_broken_frontmatter() {
    assert_eq!(source_id_hint("title: [broken\nsource_id: \"abc\"\n").as_deref(), Some("abc"));
    assert_eq!(source_id_hint("title: x\n"), None);
}

#[test]
fn yaml_scalar_quotes_ids_yaml_would_read_as_numbers() {
    assert_eq!(yaml_scalar(ID), ID);
    assert_eq!(yaml_scalar("1234567890123456"), "\"1234567890123456\"");
    assert_eq!(yaml_scalar("3e12345678901234"), "\"3e12345678901234\"");
    assert_eq!(yaml_scalar("0b10101010101010"), "\"0b10101010101010\"");
}

#[test]
fn compose_appends_source_id_and_keeps_everything_else() {
    let text = "---\n# a comment\ntitle: 'Quoted'   # trailing\ntags: [x, y]\n\n---\n\nBody *text*\n";
    let article = compose_article(text, ID).unwrap().0;
    assert_eq!(
        article,
        "---\n# a comment\ntitle: 'Quoted'   # trailing\ntags: [x, y]\n\nsource_id: 0123456789abcdef\n---\n\nBody *text*\n"
    );
    // Idempotent: composing the article again gives the same bytes.
    assert_eq!(compose_article(&article, ID).unwrap().0, article);
}

#[test]
fn compose_replaces_an_existing_source_id_in_place() {
    let text = "---\ntitle: A\nsource_id: ffffffffffffffff\ndate: x\n---\nbody";
    assert_eq!(compose_article(text, ID).unwrap().0, "---\ntitle: A\nsource_id: 0123456789abcdef\ndate: x\n---\nbody");
    let block = "---\nsource_id: |\n  old\n\n  value\nnext: 1\n---\n";
    assert_eq!(compose_article(block, ID).unwrap().0, "---\nsource_id: 0123456789abcdef\nnext: 1\n---\n");
}

#[test]
fn compose_gives_a_manuscript_without_frontmatter_one() {
    assert_eq!(compose_article("# Hi\n", ID).unwrap().0, "---\nsource_id: 0123456789abcdef\n---\n# Hi\n");
    assert_eq!(compose_article("# Hi\r\nx", ID).unwrap().0, "---\r\nsource_id: 0123456789abcdef\r\n---\r\n# Hi\r\nx");
    assert_eq!(compose_article("", ID).unwrap().0, "---\nsource_id: 0123456789abcdef\n---\n");
    assert_eq!(compose_article("\u{feff}body", ID).unwrap().0, "\u{feff}---\nsource_id: 0123456789abcdef\n---\nbody");
}

#[test]
fn compose_keeps_crlf_and_the_empty_frontmatter() {
    assert_eq!(
        compose_article("---\r\ntitle: A\r\n---\r\nbody\r\n", ID).unwrap().0,
        "---\r\ntitle: A\r\nsource_id: 0123456789abcdef\r\n---\r\nbody\r\n"
    );
    assert_eq!(compose_article("---\n---\nbody", ID).unwrap().0, "---\nsource_id: 0123456789abcdef\n---\nbody");
}

#[test]
fn compose_refuses_what_it_cannot_edit_safely() {
    let e = compose_article("---\n{title: a}\n---\nbody", ID).unwrap_err();
    assert!(e.message.contains("plain"), "{}", e.message);
    let e = compose_article("---\ntitle: [x\n---\nbody", ID).unwrap_err();
    assert_eq!(e.line, 2);
}

/// Lines the generator below combines: the shapes the quick reader takes, and many it
/// must refuse.
const LINES: &[&str] = &[
    "title: Hello world",
    "title: \"Quoted: yes\"",
    "title: 'single ''q'''",
    "title: 日本語",
    "title: 2024",
    "title: 1.50",
    "title: true",
    "title: ~",
    "title:",
    "title: a # c",
    "title: a#c",
    "title: C# and F#",
    "title: \"unterminated",
    "title: [a, b]",
    "title: {a: 1}",
    "slug: my-post",
    "slug: \"\"",
    "slug: -x",
    "source_id: 0123456789abcdef",
    "source_id: 1234567890123456",
    "source_id: 3e12345678901234",
    "source_id: 0b10101010101010",
    "source_id: 9e1c0f7a12b3d4e5",
    "source_id: 12e4567890123456",
    "date: 2025-01-01",
    "date: 2025-01-01T10:00:00+09:00",
    "date: 2025",
    "date: '2025-01-01'",
    "date: [2025]",
    "status: draft",
    "status: published # done",
    "status: yes",
    "status: 0x1F",
    "status: ~",
    "time: 12:30",
    "version: 1.2.3",
    "n: -1",
    "n: +1",
    "n: 0x1F",
    "n: 0o17",
    "n: 1_000",
    "n: .5",
    "n: 1e3",
    "n: -.inf",
    "n: NaN",
    "flag: yes",
    "flag: Off",
    "draft: false",
    "draft: NULL",
    "weight: 10",
    "weight: 0.25",
    "weight: 00",
    "big: 99999999999999999999999",
    "huge: 1e400",
    "huge: 1e-400",
    "huge: 1.5E3",
    "word: nan",
    "word: Inf",
    "clock: 190:20:30",
    "list: [1, 2.5, true, null, 1e400]",
    "list: [.inf]",
    "tags: [a, b, c]",
    "tags: []",
    "tags: [\"x\", 'y']",
    "tags: [a, [b]]",
    "tags: [a, ]",
    "tags: [1, 2]",
    "list:",
    "  - x",
    "  nested: 1",
    "- item",
    "# comment",
    "",
    "   ",
    "a: b: c",
    "a:b",
    "url: http://example.com",
    "path: /usr/bin",
    "ref: *x",
    "anchor: &x 1",
    "tagged: !!str 1",
    "block: |",
    "quote: \"esc \\\" q\"",
    "key with space: 1",
    "\"quoted key\": 1",
    "? complex",
    "yes: 1",
    "x-y_z: value",
    "emoji: 🎉 party",
    "ctrl: a\u{7}b",
    "---",
    "...",
    "title: a\t# tab comment",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// Whatever the quick reader accepts, serde-saphyr reads the same way.
    #[test]
    fn quick_agrees_with_saphyr(picks in proptest::collection::vec(0..LINES.len(), 0..8), crlf: bool) {
        let nl = if crlf { "\r\n" } else { "\n" };
        let yaml: String = picks.iter().map(|&i| format!("{}{nl}", LINES[i])).collect();
        if let Some(quick) = quick_meta(&yaml) {
            let parsed = parse_meta(&yaml, 2);
            prop_assert_eq!(parsed, Ok(quick), "yaml: {:?}", yaml);
        }
    }

    /// The same, over lines the quick reader takes one by one (so most cases reach the
    /// comparison, not only those that happen to avoid every unusual line).
    #[test]
    fn quick_agrees_with_saphyr_on_its_own_shapes(picks in proptest::collection::vec(0..LINES.len(), 1..8)) {
        let accepted: Vec<&str> = LINES.iter().copied().filter(|l| quick_meta(&format!("{l}\n")).is_some()).collect();
        prop_assert!(accepted.len() > 20, "the quick reader takes too little: {:?}", accepted);
        let yaml: String = picks.iter().map(|&i| format!("{}\n", accepted[i % accepted.len()])).collect();
        if let Some(quick) = quick_meta(&yaml) {
            prop_assert_eq!(parse_meta(&yaml, 2), Ok(quick), "yaml: {:?}", yaml);
        }
    }

    /// Composing keeps the body byte for byte and is idempotent.
    #[test]
    fn compose_keeps_the_body(picks in proptest::collection::vec(0..LINES.len(), 0..6), body in ".{0,40}") {
        let yaml: String = picks.iter().map(|&i| format!("{}\n", LINES[i])).collect();
        let text = format!("---\n{yaml}---\n{body}");
        if let Ok((article, _)) = compose_article(&text, ID) {
            let tail = format!("---\n{body}");
            prop_assert!(article.ends_with(&tail));
            prop_assert_eq!(compose_article(&article, ID).map(|(a, _)| a), Ok(article.clone()));
            let parts = split(&article).unwrap();
            let block = parts.frontmatter.unwrap();
            let meta = parse_meta(block.yaml, 2).unwrap();
            prop_assert_eq!(meta.source_id.as_deref(), Some(ID));
        }
    }
}

#[test]
fn titles_that_look_like_yaml_1_1_values_are_read_as_written() {
    for (yaml, title) in [
        ("title: No\n", "No"),
        ("title: yes\n", "yes"),
        ("title: 0x1F\n", "0x1F"),
        ("title: 007\n", "007"),
        ("title: 1_000\n", "1_000"),
        ("title: true\nslug: 42\n", "true"),
    ] {
        let meta = super::read::parse_meta(yaml, 2).unwrap();
        assert_eq!(meta.title.as_deref(), Some(title), "{yaml}");
    }
    let meta = super::read::parse_meta("title: 0x1F\nslug: 0o17\n", 2).unwrap();
    assert_eq!(meta.slug.as_deref(), Some("0o17"));
    // A title that is a list stays no title, and the rest is still read.
    let meta = super::read::parse_meta("title: [a, b]\nslug: 12\n", 2).unwrap();
    assert_eq!((meta.title, meta.slug.as_deref()), (None, Some("12")));
}
