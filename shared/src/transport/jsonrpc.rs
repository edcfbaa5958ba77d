//! JSON-RPC error answers the transports write themselves (for what rmcp never sees): the
//! codes, the object under the client's exact id, and what to say about text serde refused.

use super::id_scan::{IdKind, id_kind, scan};

/// JSON-RPC's "Parse error" code: the text is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request" code.
pub const INVALID_REQUEST: i64 = -32600;

/// Whether serde refused the text itself (not JSON), rather than its shape.
pub fn is_syntax(error: &serde_json::Error) -> bool {
    use serde_json::error::Category;
    matches!(error.classify(), Category::Syntax | Category::Eof)
}

/// What a model or a client author needs to know about text serde could not read.
pub fn parse_error_message(error: &serde_json::Error, stdio: bool) -> String {
    let text = error.to_string();
    let why = if text.contains("surrogate") || text.contains("hex escape") {
        "A string in it has an invalid \\u escape, such as an unpaired UTF-16 surrogate (\\ud83d without the low half that must follow it: what JavaScript's JSON.stringify makes of an emoji cut in two). That is not a Unicode character, so it is refused rather than replaced, and nothing was done: send the whole character, or leave it out."
    } else if text.contains("recursion limit") {
        "It nests arrays or objects more than 128 levels deep, deeper than this server parses; nothing was done."
    } else if text.contains("number out of range") {
        "A number in it is beyond what a 64-bit float holds (e.g. 1e400); nothing was done. Send a smaller number, or a string."
    } else {
        if stdio {
            "A message must be one JSON object, in UTF-8, on one line; nothing was done."
        } else {
            "A request body must be one JSON-RPC message (a JSON object), in UTF-8; nothing was done."
        }
    };
    format!("Parse error: {text}. {why}")
}

/// A JSON-RPC error object under `id` (the client's exact bytes) or `null`.
pub fn error_object(id: Option<&[u8]>, code: i64, message: &str) -> Vec<u8> {
    let mut out = br#"{"jsonrpc":"2.0","id":"#.to_vec();
    out.extend_from_slice(id.unwrap_or(b"null"));
    out.extend_from_slice(br#","error":{"code":"#);
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(br#","message":"#);
    out.extend_from_slice(serde_json::Value::from(message).to_string().as_bytes());
    out.extend_from_slice(b"}}");
    out
}

/// The JSON-RPC error for a message body serde could not read as a JSON-RPC message: -32700
/// for text that is not JSON (or not UTF-8), else -32600; under the message's own id when its
/// top level shows one.
pub fn refusal_of(body: &[u8], error: Option<&serde_json::Error>) -> Vec<u8> {
    let envelope = scan(body);
    let id = envelope.id.map(|r| &body[r]).filter(|raw| id_kind(raw) == IdKind::Usable);
    if std::str::from_utf8(body).is_err() {
        return error_object(
            id,
            PARSE_ERROR,
            "Parse error: the body is not UTF-8. Send the JSON-RPC message as UTF-8 JSON; nothing was done.",
        );
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Err(e) if is_syntax(&e) => error_object(id, PARSE_ERROR, &parse_error_message(&e, false)),
        Ok(serde_json::Value::Array(_)) => error_object(
            None,
            INVALID_REQUEST,
            "Invalid request: a JSON-RPC batch (an array of messages, protocol 2025-03-26 only) is not accepted over HTTP; nothing was done. POST each message on its own (the stdio transport does accept batches at 2025-03-26).",
        ),
        _ => {
            let why = error.map(|e| format!(": {e}")).unwrap_or_default();
            error_object(
                id,
                INVALID_REQUEST,
                &format!(
                    "Invalid request{why}. A request is {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}."
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn a_refused_body_is_answered_under_its_id_with_the_right_code() {
        let cases: [(&[u8], Value, i64); 5] = [
            (b"{not json", Value::Null, PARSE_ERROR),
            (b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"x\",\"params\":\"\\ud83d\"}", 5.into(), PARSE_ERROR),
            (b"{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"x\",\"p\":\"\xff\"}", "s".into(), PARSE_ERROR),
            (b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":5}", 6.into(), INVALID_REQUEST),
            (b"[]", Value::Null, INVALID_REQUEST),
        ];
        let batch: Value =
            serde_json::from_slice(&refusal_of(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", None)).unwrap();
        let message = batch["error"]["message"].as_str().unwrap();
        assert!(message.contains("batch") && message.contains("POST each message on its own"), "{message}");
        for (body, id, code) in cases {
            let answer: Value = serde_json::from_slice(&refusal_of(body, None)).unwrap();
            assert_eq!(answer["id"], id, "{}", String::from_utf8_lossy(body));
            assert_eq!(answer["error"]["code"], code, "{}", String::from_utf8_lossy(body));
        }
    }
}
