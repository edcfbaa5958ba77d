//! The response to `fs/read`, written without serde: the file's content is escaped eight bytes
//! at a time (serde_json's byte-by-byte escaping is the largest cost of a 100 KB read). Its own
//! file because it is an optimisation, with its own test against serde_json, not protocol.

use serde_json::Value;

/// The response to `fs/read`, written without serde: the content is escaped by
/// [`escape_json_into`], which skips runs of plain text eight bytes at a time (serde_json's
/// byte-by-byte escaping is the largest cost of a 100 KB read).
pub fn read_response(id: &Value, content: &str) -> String {
    let mut out = String::with_capacity(content.len() + content.len() / 16 + 64);
    out.push_str(r#"{"jsonrpc":"2.0","id":"#);
    out.push_str(&id.to_string());
    out.push_str(r#","result":{"content":""#);
    escape_json_into(&mut out, content);
    out.push_str(r#""}}"#);
    out
}

/// Whether any of the eight bytes of `word` must be escaped in a JSON string: a control
/// character (< 0x20), `"` or `\`.
fn word_needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let has_quote = quote.wrapping_sub(ONES) & !quote & HIGHS;
    let has_backslash = backslash.wrapping_sub(ONES) & !backslash & HIGHS;
    (below_space | has_quote | has_backslash) != 0
}

/// Appends `s` escaped as the inside of a JSON string (the same escapes as serde_json).
pub fn escape_json_into(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            if !word_needs_escape(u64::from_le_bytes(word)) {
                i += 8;
                continue;
            }
        }
        let end = (i + 8).min(bytes.len());
        while i < end {
            let b = bytes[i];
            let escape: Option<&str> = match b {
                b'"' => Some("\\\""),
                b'\\' => Some("\\\\"),
                b'\n' => Some("\\n"),
                b'\r' => Some("\\r"),
                b'\t' => Some("\\t"),
                0x08 => Some("\\b"),
                0x0c => Some("\\f"),
                _ => None,
            };
            if escape.is_some() || b < 0x20 {
                // Escapes are ASCII, so `i` is a char boundary.
                out.push_str(&s[start..i]);
                match escape {
                    Some(e) => out.push_str(e),
                    None => out.push_str(&format!("\\u{:04x}", b)),
                }
                start = i + 1;
            }
            i += 1;
        }
    }
    out.push_str(&s[start..]);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::response;

    #[test]
    fn the_fast_escaper_matches_serde_json() {
        let mut samples: Vec<String> = (0u32..0x80).map(|c| char::from_u32(c).unwrap().to_string()).collect();
        samples.push((0u32..0x80).filter_map(char::from_u32).collect());
        samples.push("plain text that is long enough to span several words, with no escapes".into());
        samples.push("ünïcödé — 日本語 \"quoted\" back\\slash\n\ttabs\u{7f}\u{1}é".repeat(7));
        samples.push("12345678\"2345678\\234567\n".into());
        samples.push(String::new());
        for s in samples {
            let mut ours = String::new();
            escape_json_into(&mut ours, &s);
            let theirs = serde_json::to_string(&s).unwrap();
            assert_eq!(format!("\"{ours}\""), theirs, "{s:?}");
        }
        let text = read_response(&json!(7), "a\"b");
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, response(json!(7), Ok(json!({"content": "a\"b"}))));
        assert_eq!(serde_json::from_str::<Value>(&read_response(&json!("x"), "")).unwrap()["id"], "x");
    }
}
