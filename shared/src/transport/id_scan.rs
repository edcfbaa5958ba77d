//! The top level of one JSON-RPC message read without parsing it: where its `id` is (as the
//! exact bytes the client sent) and whether it has a `method`, a `result` or an `error`.
//!
//! The stdio transport needs this before serde runs: to answer under the client's own `id` a
//! message serde refuses (a lone surrogate deep in `params`, nesting past the parser's limit, a
//! number out of range) or one too large to buffer (its `id` may come before megabytes of
//! `params`), and to echo every `id` byte-exact (`18446744073709551616` is not an `i64`, and a
//! float would change it). A small hand-written scanner of the top level of one JSON object,
//! skipping nested values and strings without validating them; serde cannot stop at a prefix
//! nor keep going past an error.

use std::ops::Range;

/// What the top level of a message says about it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// The byte range of the first top-level `id` value, if it was read whole.
    pub id: Option<Range<usize>>,
    /// A top-level `method` key was seen.
    pub has_method: bool,
    /// A top-level `result` or `error` key was seen (a response).
    pub has_outcome: bool,
    /// The text starts as a JSON object (`{`), so it may be a message at all.
    pub is_object: bool,
}

/// What kind of `id` a message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// A JSON string or number (the only kinds a request may use), valid JSON.
    Usable,
    /// `null`, `true`, an object, an array, or a malformed token.
    Unusable,
}

/// Scans the top level of `bytes` (a whole message or its first bytes). Never reads past it.
pub fn scan(bytes: &[u8]) -> Envelope {
    let mut envelope = Envelope::default();
    let mut s = Scanner { b: bytes, i: 0 };
    if s.b.starts_with(b"\xEF\xBB\xBF") {
        s.i = 3;
    }
    s.ws();
    if s.eat(b'{').is_none() {
        return envelope;
    }
    envelope.is_object = true;
    // Each step reads one `"key": value` pair; any malformed or cut-off part ends the scan with
    // what was found so far.
    let _ = (|| -> Option<()> {
        loop {
            s.ws();
            let key_start = s.i;
            s.string()?;
            let key = key_text(&s.b[key_start..s.i])?;
            s.ws();
            s.eat(b':')?;
            s.ws();
            let value_start = s.i;
            s.value()?;
            match key.as_str() {
                "id" if envelope.id.is_none() => envelope.id = Some(value_start..s.i),
                "method" => envelope.has_method = true,
                "result" | "error" => envelope.has_outcome = true,
                _ => {}
            }
            s.ws();
            match s.next()? {
                b',' => continue,
                _ => return None,
            }
        }
    })();
    envelope
}

/// Whether `raw` (an `id` value as sent) is a string or a number the client can match.
pub fn id_kind(raw: &[u8]) -> IdKind {
    let usable = match raw.first() {
        // A string: valid JSON, so no lone surrogate or raw control character in it.
        Some(b'"') => serde_json::from_slice::<String>(raw).is_ok(),
        // A number: the JSON grammar, at any size (serde ignores a number without computing it).
        Some(b'-' | b'0'..=b'9') => serde_json::from_slice::<serde::de::IgnoredAny>(raw).is_ok(),
        _ => false,
    };
    if usable { IdKind::Usable } else { IdKind::Unusable }
}

/// The text of a key as JSON would decode it (so `"\u0069d"` is `id`).
fn key_text(raw: &[u8]) -> Option<String> {
    if raw.contains(&b'\\') {
        serde_json::from_slice::<String>(raw).ok()
    } else {
        Some(String::from_utf8_lossy(raw.get(1..raw.len().saturating_sub(1))?).into_owned())
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }
    fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => {
                    self.next()?;
                }
                _ => {}
            }
        }
    }
    /// Skips one value of any kind (strings, nested containers, scalars). Nesting is counted,
    /// never recursed into, so any depth is skipped in constant stack.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => self.string()?,
                        b'{' | b'[' => {
                            depth += 1;
                            self.i += 1;
                        }
                        b'}' | b']' => {
                            depth = depth.checked_sub(1)?;
                            self.i += 1;
                            if depth == 0 {
                                return Some(());
                            }
                        }
                        _ => self.i += 1,
                    }
                }
            }
            _ => {
                let start = self.i;
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    self.i += 1;
                }
                // A scalar cut by the end of the prefix is not trustworthy.
                (self.i > start && self.i < self.b.len()).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(bytes: &[u8]) -> Option<String> {
        scan(bytes).id.map(|r| String::from_utf8(bytes[r].to_vec()).unwrap())
    }

    #[test]
    fn finds_the_id_as_sent() {
        assert_eq!(id(br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"#).as_deref(), Some("7"));
        assert_eq!(id(br#"{"id":"abc","params":"#).as_deref(), Some(r#""abc""#));
        assert_eq!(id(br#" { "jsonrpc" : "2.0" , "id" : 3.0 , "#).as_deref(), Some("3.0"));
        assert_eq!(id(br#"{"id":18446744073709551616,"method":"ping"}"#).as_deref(), Some("18446744073709551616"));
        assert_eq!(id(br#"{"method":"tools/call","params":{"id":1,"x":[1,{"id":2}]},"id":9}"#).as_deref(), Some("9"));
        assert_eq!(id(br#"{"params":{"x":"\"id\":5"},"id":"q\"s"}"#).as_deref(), Some(r#""q\"s""#));
        assert_eq!(id(br#"{"\u0069d":4,"method":"ping"}"#).as_deref(), Some("4"), "an escaped key is still `id`");
        assert_eq!(id(br#"{"id":1,"id":2}"#).as_deref(), Some("1"), "the first of two");
    }

    #[test]
    fn reads_past_what_serde_refuses() {
        let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"t":"\ud83d"}}}"#;
        let e = scan(line);
        assert_eq!(id(line).as_deref(), Some("7"));
        assert!(e.has_method && !e.has_outcome && e.is_object);
        let deep =
            format!(r#"{{"jsonrpc":"2.0","method":"x","params":{}{}, "id":"d"}}"#, "[".repeat(200), "]".repeat(200));
        assert_eq!(id(deep.as_bytes()).as_deref(), Some(r#""d""#));
    }

    #[test]
    fn tells_requests_from_responses() {
        let e = scan(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert!(e.has_outcome && !e.has_method);
        assert!(!scan(br#"[{"id":1}]"#).is_object);
    }

    #[test]
    fn gives_up_when_the_id_is_not_in_the_prefix() {
        assert_eq!(id(br#"{"jsonrpc":"2.0","method":"x","params":{"a":"aaaa"#), None);
        assert_eq!(id(br#"{"id":12"#), None, "a number cut by the prefix end");
        assert_eq!(id(b"not json"), None);
        assert_eq!(id(br#"[{"id":1}]"#), None);
        assert_eq!(id(br#"{"a":]]]"id":1}"#), None, "more closers than openers");
    }

    #[test]
    fn only_strings_and_numbers_are_usable_ids() {
        for ok in [&b"7"[..], b"-1", b"1.5", b"18446744073709551616", b"1e400", br#""x""#, br#""\ud83d\ude00""#] {
            assert_eq!(id_kind(ok), IdKind::Usable, "{}", String::from_utf8_lossy(ok));
        }
        for bad in [&b"null"[..], b"true", b"{}", b"[1]", b"01", b"1.", br#""\ud83d""#, b"--1"] {
            assert_eq!(id_kind(bad), IdKind::Unusable, "{}", String::from_utf8_lossy(bad));
        }
    }
}
