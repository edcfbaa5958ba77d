//! Protocol behaviour shared by every server: initialize, versions, tools/list, ping,
//! logging/setLevel, unknown tools, and input a well-behaved client never sends.

use mcp_tests::StdioClient;
use serde_json::{Value, json};

use super::{BIN, started};

#[test]
fn initialize_names_the_server_and_gives_instructions() {
    let mut client = StdioClient::spawn(BIN, &[]).unwrap();
    let result = client.initialize().unwrap();
    assert_eq!(result["serverInfo"]["name"], "mcp-server-sample-tool");
    // A person's name for it, and where to read about it (serverInfo.title, websiteUrl).
    assert_eq!(result["serverInfo"]["title"], "mcp-suite sample tool");
    assert_eq!(
        result["serverInfo"]["websiteUrl"],
        "https://github.com/mcp-suite/mcp-suite/tree/main/servers/sample-tool"
    );
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(result["instructions"].as_str().unwrap().contains("hoge"));
    assert!(result["capabilities"]["tools"].is_object());
    assert!(!result.to_string().contains("rmcp"));
}

#[test]
fn every_supported_protocol_version_is_answered_with_itself() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut client = StdioClient::spawn(BIN, &[]).unwrap();
        let mut params = StdioClient::default_initialize_params();
        params["protocolVersion"] = json!(version);
        let result = client.initialize_with(params).unwrap();
        assert_eq!(result["protocolVersion"], version);
        let called = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 1, "y": 2}})).unwrap();
        assert_eq!(called["structuredContent"], json!({"value": 3}), "protocol {version}");
    }
    let mut client = StdioClient::spawn(BIN, &[]).unwrap();
    let mut params = StdioClient::default_initialize_params();
    params["protocolVersion"] = json!("1999-01-01");
    let result = client.initialize_with(params).unwrap();
    assert_eq!(result["protocolVersion"], "2025-11-25", "an unknown version gets the newest");
}

#[test]
fn tools_list_is_the_recorded_api() {
    let mut client = started(&[]);
    let tools = client.list_tools().unwrap();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("tools_list", tools);
    });
    let hoge = tools.iter().find(|t| t["name"] == "hoge").unwrap();
    assert_eq!(hoge["annotations"]["readOnlyHint"], true);
    assert_eq!(hoge["annotations"]["idempotentHint"], true);
    assert_eq!(hoge["annotations"]["openWorldHint"], false);
    assert!(hoge["outputSchema"].is_object());
}

#[test]
fn ping_and_set_level_answer() {
    let mut client = started(&[]);
    let pong = client.request("ping", json!({})).unwrap();
    assert_eq!(pong["result"], json!({}));
    let set = client.request("logging/setLevel", json!({"level": "debug"})).unwrap();
    assert!(set.get("error").is_none(), "{set}");
}

#[test]
fn unknown_tool_is_a_json_rpc_error_listing_the_known_tools() {
    let mut client = started(&[]);
    let response = client.request("tools/call", json!({"name": "nope", "arguments": {}})).unwrap();
    assert_eq!(response["error"]["code"], -32602);
    let message = response["error"]["message"].as_str().unwrap();
    assert!(message.contains("nope") && message.contains("hoge") && message.contains("countdown"), "{message}");
}

#[test]
fn malformed_json_is_answered_with_a_parse_error_and_the_server_keeps_serving() {
    let mut client = started(&[]);
    client.send_raw("{this is not json").unwrap();
    client.send_raw("").unwrap();
    let reply = client.read_message().unwrap();
    assert_eq!(reply["id"], Value::Null, "no id can be read from it: {reply}");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    let response = client.request("ping", json!({})).unwrap();
    assert_eq!(response["result"], json!({}));
    assert!(
        client.try_read_message(std::time::Duration::from_millis(200)).unwrap().is_none(),
        "a blank line gets nothing"
    );
}

#[test]
fn an_invalid_request_with_an_id_gets_an_error_under_that_id() {
    let mut client = started(&[]);
    client.send_raw(r#"{"jsonrpc":"2.0","id":"bad-1","method":"tools/call","params":5}"#).unwrap();
    let reply = client.read_message().unwrap();
    assert_eq!(reply["id"], "bad-1");
    assert_eq!(reply["error"]["code"], -32600);
    let response = client.request("ping", json!({})).unwrap();
    assert_eq!(response["result"], json!({}));
}

#[test]
fn an_oversized_message_is_refused_with_an_error_and_the_server_keeps_serving() {
    let mut client = started(&["--max-message-bytes", "4096"]);
    let big = "x".repeat(100_000);
    let line = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "hoge", "arguments": {"action": "calc", "pad": big}}});
    client.send_message(&line).unwrap();
    let reply = client.read_message().unwrap();
    assert_eq!(reply["id"], 77);
    assert_eq!(reply["error"]["code"], -32600);
    assert!(reply["error"]["message"].as_str().unwrap().contains("4096"));
    let ok = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 2, "y": 2}})).unwrap();
    assert_eq!(ok["structuredContent"], json!({"value": 4}));
}

#[test]
fn a_notification_before_initialize_does_not_end_the_session() {
    let mut client = StdioClient::spawn(BIN, &[]).unwrap();
    client.notify("notifications/initialized", Value::Null).unwrap();
    client.notify("notifications/cancelled", json!({"requestId": 1})).unwrap();
    client.send_raw("garbage").unwrap();
    let result = client.initialize().unwrap();
    assert_eq!(result["serverInfo"]["name"], "mcp-server-sample-tool");
    let pong = client.request("ping", json!({})).unwrap();
    assert_eq!(pong["result"], json!({}));
}

#[test]
fn stdout_carries_json_rpc_only_and_eof_ends_the_server_cleanly() {
    let mut client = started(&[]);
    client.call_tool("hoge", json!({"action": "calc", "args": {"x": 1, "y": 2}})).unwrap();
    client.close_stdin();
    let status = client.wait().unwrap();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn help_lists_the_shared_flags() {
    let output = std::process::Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in ["--http", "--http-token", "--tool-timeout", "--max-message-bytes"] {
        assert!(help.contains(flag), "{flag} missing from --help:\n{help}");
    }
}
