//! The `id` of a JSON-RPC message read from its first bytes, without parsing the whole message:
//! what the stdio transport answers under when a message is too large to buffer (its `id` may
//! come before megabytes of `params`). A small hand-written scanner of the top level of one JSON
//! object, skipping nested values and strings; serde cannot stop at a prefix.

use serde_json::Value;

/// Reads the top-level `"id"` of a JSON-RPC message from its first bytes, if it is there
/// (a number or a string, before the prefix ends). Never reads past the prefix.
pub fn scan_request_id(prefix: &[u8]) -> Option<Value> {
    let mut s = Scanner { b: prefix, i: 0 };
    if s.b.starts_with(b"\xEF\xBB\xBF") {
        s.i = 3;
    }
    s.ws();
    s.eat(b'{')?;
    loop {
        s.ws();
        let key_start = s.i;
        s.string()?;
        let key = &s.b[key_start..s.i];
        s.ws();
        s.eat(b':')?;
        s.ws();
        let value_start = s.i;
        s.value()?;
        if key == b"\"id\"" {
            let raw = &s.b[value_start..s.i];
            return match serde_json::from_slice::<Value>(raw).ok()? {
                v @ Value::String(_) => Some(v),
                Value::Number(n) => {
                    n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)).map(Value::from)
                }
                _ => None,
            };
        }
        s.ws();
        match s.next()? {
            b',' => continue,
            _ => return None,
        }
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
    /// Skips one value of any kind (strings, nested containers, scalars).
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
                            depth -= 1;
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
    use serde_json::json;

    use super::*;

    #[test]
    fn scans_ids_before_the_params() {
        assert_eq!(scan_request_id(br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"#), Some(json!(7)));
        assert_eq!(scan_request_id(br#"{"id":"abc","params":"#), Some(json!("abc")));
        assert_eq!(scan_request_id(br#" { "jsonrpc" : "2.0" , "id" : 3.0 , "#), Some(json!(3)));
        assert_eq!(
            scan_request_id(br#"{"method":"tools/call","params":{"id":1,"x":[1,{"id":2}]},"id":9}"#),
            Some(json!(9))
        );
        assert_eq!(scan_request_id(br#"{"params":{"x":"\"id\":5"},"id":"q\"s"}"#), Some(json!("q\"s")));
    }

    #[test]
    fn gives_up_when_the_id_is_not_in_the_prefix() {
        assert_eq!(scan_request_id(br#"{"jsonrpc":"2.0","method":"x","params":{"a":"aaaa"#), None);
        assert_eq!(scan_request_id(br#"{"id":12"#), None, "a number cut by the prefix end");
        assert_eq!(scan_request_id(br#"{"id":null,"#), None);
        assert_eq!(scan_request_id(b"not json"), None);
        assert_eq!(scan_request_id(br#"[{"id":1}]"#), None);
    }
}
