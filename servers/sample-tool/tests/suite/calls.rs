//! The `hoge` contract of spec 004, through the real binary.

use mcp_tests::{error_code, is_error, structured, text_of};
use serde_json::json;

use super::started;

#[test]
fn calc_adds_and_keeps_integers_integral() {
    let mut client = started(&[]);
    let result = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 1, "y": 2}})).unwrap();
    assert!(!is_error(&result));
    assert_eq!(structured(&result), Some(json!({"value": 3})));
    assert_eq!(text_of(&result), r#"{"value":3}"#, "3, not 3.0");
    let result = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 1.5, "y": -0.25}})).unwrap();
    assert_eq!(structured(&result), Some(json!({"value": 1.25})));
}

#[test]
fn bad_input_gets_the_spec_codes_with_actionable_messages() {
    let mut client = started(&[]);
    let cases = [
        (json!(null), "INVALID_INPUT", "object"),
        (json!({"action": "calc"}), "INVALID_ARGS", "args"),
        (json!({"action": "calc", "args": {"x": "a", "y": 2}}), "INVALID_ARGS", "args.x"),
        (json!({"action": "calc", "args": {"x": 1}}), "INVALID_ARGS", "args.y"),
        (json!({"action": "calc", "args": {"x": 1.7e308, "y": 1.7e308}}), "INVALID_ARGS", "finite"),
        (json!({"action": "mul", "args": {"x": 1, "y": 2}}), "UNKNOWN_ACTION", "calc"),
    ];
    for (args, code, mention) in cases {
        let params = if args.is_null() { json!({"name": "hoge"}) } else { json!({"name": "hoge", "arguments": args}) };
        let response = client.request("tools/call", params).unwrap();
        let result = &response["result"];
        assert!(is_error(result), "{args}: {response}");
        assert_eq!(error_code(result).as_deref(), Some(code), "{args}: {result}");
        assert_eq!(result["structuredContent"]["error"]["message"], json!(text_of(result)));
        assert!(text_of(result).contains(mention), "{args}: {}", text_of(result));
    }
}
