//! The host coming and going changes what `tools/list` and `resources/list` answer: a session
//! hears `notifications/tools/list_changed` and `notifications/resources/list_changed`, and a
//! 2026-07-28 client hears them on its `subscriptions/listen` stream, tagged with the
//! subscription's id.

use std::time::{Duration, Instant};

use mcp_tests::{is_error, text_of};
use serde_json::{Value, json};

use super::{Env, WAIT, code};

/// Reads messages until one satisfies `wanted` (within [`WAIT`]); every message read.
fn read_until(client: &mut mcp_tests::StdioClient, wanted: impl Fn(&Value) -> bool) -> Vec<Value> {
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Some(message) = client.try_read_message(Duration::from_millis(200)).unwrap() {
            let done = wanted(&message);
            seen.push(message);
            if done {
                return seen;
            }
        }
    }
    panic!("not seen within {WAIT:?}; got {seen:?}");
}

fn is_notification(message: &Value, method: &str) -> bool {
    message["method"] == method && message.get("id").is_none()
}

#[test]
fn a_session_hears_when_the_host_comes_and_goes() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let mut bridge = env.bridge_builder(&ws, &[]).spawn().unwrap();
    let init = bridge.initialize().unwrap();
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true, "{init}");
    assert_eq!(init["capabilities"]["resources"]["listChanged"], true, "{init}");
    let down = bridge.call_tool("list_files", json!({})).unwrap();
    assert_eq!(code(&down), "UNAVAILABLE", "{down}");
    bridge.take_notifications();

    let mut host = env.host_without_token(&ws, &[]);
    // A call wakes the bridge's reconnection at once (it would also retry by itself).
    let up = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert!(!is_error(&up), "{up}");
    assert_eq!(text_of(&up), "A");
    let mut seen = bridge.take_notifications();
    if !seen.iter().any(|m| is_notification(m, "notifications/resources/list_changed")) {
        seen.extend(read_until(&mut bridge, |m| is_notification(m, "notifications/resources/list_changed")));
    }
    assert!(seen.iter().any(|m| is_notification(m, "notifications/tools/list_changed")), "{seen:?}");

    assert!(host.terminate().success());
    let gone = read_until(&mut bridge, |m| is_notification(m, "notifications/resources/list_changed"));
    assert!(gone.iter().any(|m| is_notification(m, "notifications/tools/list_changed")), "{gone:?}");
}

#[test]
fn a_2026_client_hears_it_on_subscriptions_listen() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let mut bridge = env.bridge_builder(&ws, &[]).spawn().unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "changes-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    bridge
        .send_message(&json!({"jsonrpc": "2.0", "id": 70, "method": "subscriptions/listen", "params": {
            "_meta": meta, "notifications": {"toolsListChanged": true, "resourcesListChanged": true}}}))
        .unwrap();
    let acknowledged = read_until(&mut bridge, |m| m["method"].as_str().is_some_and(|m| m.contains("subscriptions")));
    let ack = acknowledged.last().unwrap();
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 70, "{ack}");

    let _host = env.host_without_token(&ws, &[]);
    bridge
        .send_message(&json!({"jsonrpc": "2.0", "id": 71, "method": "tools/call", "params": {
            "_meta": meta, "name": "read_file", "arguments": {"path": "a.txt"}}}))
        .unwrap();
    let seen = read_until(&mut bridge, |m| is_notification(m, "notifications/resources/list_changed"));
    let tools = seen.iter().find(|m| is_notification(m, "notifications/tools/list_changed"));
    let tools = tools.unwrap_or_else(|| panic!("no tools/list_changed in {seen:?}"));
    assert_eq!(tools["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 70, "{tools}");
    let resources = seen.last().unwrap();
    assert_eq!(resources["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 70, "{resources}");
}
