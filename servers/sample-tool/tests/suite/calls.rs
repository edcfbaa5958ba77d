//! The `hoge` contract (codes and messages), through the real binary.

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

#[test]
fn arguments_that_are_not_an_object_are_invalid_input_and_bad_params_are_invalid_params() {
    let mut client = started(&[]);
    for (arguments, kind) in
        [(json!("x=1"), "a string"), (json!([1, 2]), "an array"), (json!(3), "a number"), (json!(true), "a boolean")]
    {
        let response = client.request("tools/call", json!({"name": "hoge", "arguments": arguments})).unwrap();
        let result = &response["result"];
        assert!(is_error(result), "{arguments}: {response}");
        assert_eq!(error_code(result).as_deref(), Some("INVALID_INPUT"), "{arguments}: {result}");
        assert!(text_of(result).contains(kind) && text_of(result).contains("object"), "{}", text_of(result));
        // 2025-06-18: no `resultType`, a field of 2026-07-28 only.
        assert!(result.get("resultType").is_none(), "{result}");
    }
    // At 2025-11-25 neither; at 2026-07-28 (no initialize, the version in `_meta`) the result
    // says it is complete.
    let mut older = mcp_tests::StdioClient::spawn(super::BIN, &[]).unwrap();
    older
        .initialize_with(
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .unwrap();
    let response = older.request("tools/call", json!({"name": "hoge", "arguments": "x"})).unwrap();
    assert!(response["result"].get("resultType").is_none(), "{response}");
    let mut current = mcp_tests::StdioClient::spawn(super::BIN, &[]).unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let response = current.request("tools/call", json!({"name": "hoge", "arguments": "x", "_meta": meta})).unwrap();
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    // An unknown tool stays the JSON-RPC error, whatever its arguments.
    let response = client.request("tools/call", json!({"name": "nope", "arguments": "x"})).unwrap();
    assert_eq!(response["error"]["code"], json!(-32602), "{response}");
    assert!(response["error"]["message"].as_str().unwrap().contains("hoge"), "{response}");
    // No tool name: invalid params (not "method not found"), naming the tools.
    for params in [json!({"arguments": {}}), json!({"name": 7})] {
        let response = client.request("tools/call", params.clone()).unwrap();
        assert_eq!(response["error"]["code"], json!(-32602), "{params}: {response}");
        assert!(response["error"]["message"].as_str().unwrap().contains("hoge"), "{response}");
    }
    let response = client.request("prompts/get", json!({"name": 5})).unwrap();
    assert_eq!(response["error"]["code"], json!(-32602), "{response}");
    // Still serving.
    let result = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 2, "y": 3}})).unwrap();
    assert_eq!(structured(&result), Some(json!({"value": 5})));
}

/// The log names a request by the id the client sent (`"abc"`, `7`), not by the one the stdio
/// transport gives rmcp.
#[test]
fn an_error_answer_is_logged_under_the_clients_own_id() {
    let mut client = started(&[]);
    for id in [json!("abc"), json!(7)] {
        let request =
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "nope", "arguments": {}}});
        client.send_message(&request).unwrap();
    }
    assert_eq!(client.request("ping", json!({})).unwrap()["result"], json!({}));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut stderr = client.stderr_text();
    while !(stderr.contains(r#"id="abc""#) && stderr.contains("id=7 ")) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        stderr = client.stderr_text();
    }
    assert!(
        stderr.contains(r#"answered with an error id="abc""#) && stderr.contains("answered with an error id=7 "),
        "{stderr}"
    );
    assert!(!stderr.contains("response error"), "rmcp's own ids: {stderr}");
}
