//! Reading a `tools/call` result (the `result` object, or a whole response holding one).

use serde_json::Value;

/// The `result` object of a response, or `value` itself when it is not a response.
fn result_of(value: &Value) -> &Value {
    match value.get("result") {
        Some(r) if value.get("jsonrpc").is_some() || value.get("id").is_some() => r,
        _ => value,
    }
}

/// The text of every `text` content block, joined by newlines.
pub fn text_of(result: &Value) -> String {
    let Some(Value::Array(blocks)) = result_of(result).get("content") else {
        return String::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether the result says the tool failed (`isError: true`).
pub fn is_error(result: &Value) -> bool {
    result_of(result).get("isError").and_then(Value::as_bool).unwrap_or(false)
}

/// The `structuredContent` of the result, if any.
pub fn structured(result: &Value) -> Option<Value> {
    result_of(result).get("structuredContent").filter(|v| !v.is_null()).cloned()
}

/// The error code of a failed result (`structuredContent.error.code`, mcp-suite's convention),
/// if any.
pub fn error_code(result: &Value) -> Option<String> {
    result_of(result).get("structuredContent")?.get("error")?.get("code")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_results_and_responses() {
        let result = json!({
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "", "mimeType": "image/png"},
                {"type": "text", "text": "b"}
            ],
            "isError": true,
            "structuredContent": {"error": {"code": "INVALID_ARGS", "message": "m"}}
        });
        let response = json!({"jsonrpc": "2.0", "id": 1, "result": result.clone()});
        for v in [&result, &response] {
            assert_eq!(text_of(v), "a\nb");
            assert!(is_error(v));
            assert_eq!(error_code(v).as_deref(), Some("INVALID_ARGS"));
            assert!(structured(v).is_some());
        }
        let ok = json!({"content": []});
        assert!(!is_error(&ok));
        assert_eq!(text_of(&ok), "");
        assert_eq!(structured(&ok), None);
        assert_eq!(error_code(&ok), None);
    }
}
