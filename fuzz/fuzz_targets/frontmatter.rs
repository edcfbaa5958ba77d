//! draft-post's frontmatter over arbitrary text: no panic, bounded work, the quick reader never
//! disagrees with the YAML parser, and an article composed from a manuscript carries the id
//! and every key the manuscript had.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_server_draft_post::frontmatter::{compose_article, parse_meta, quick_meta, read_meta, split};

const ID: &str = "0123456789abcdef";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(quick) = quick_meta(text) {
        assert_eq!(Ok(quick), parse_meta(text, 2), "quick reader and parser disagree");
    }
    let _ = read_meta(text, 2);
    if let Ok((article, meta)) = compose_article(text, ID) {
        let parts = split(&article).expect("a composed article splits");
        let block = parts.frontmatter.expect("a composed article has frontmatter");
        let after = parse_meta(block.yaml, block.first_line).expect("a composed frontmatter parses");
        assert_eq!(after.source_id.as_deref(), Some(ID));
        for key in &meta.keys {
            assert!(after.keys.contains(key), "key {key} lost");
        }
    }
});
