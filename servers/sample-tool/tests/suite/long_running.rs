//! The long-running path: progress, the per-call timeout, cancellation.

use std::time::Duration;

use mcp_tests::{error_code, is_error, text_of};
use serde_json::json;

use super::started;

#[test]
fn countdown_reports_progress_when_asked() {
    let mut client = started(&[]);
    let response = client
        .request(
            "tools/call",
            json!({"name": "countdown", "arguments": {"seconds": 2}, "_meta": {"progressToken": "tok-1"}}),
        )
        .unwrap();
    assert!(!is_error(&response["result"]), "{response}");
    let progress: Vec<_> = client
        .notifications()
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"].clone())
        .collect();
    assert_eq!(progress.len(), 2, "{progress:?}");
    assert_eq!(progress[0]["progressToken"], "tok-1");
    assert_eq!(progress[0]["progress"], 1.0);
    assert_eq!(progress[1]["progress"], 2.0);
    assert_eq!(progress[1]["total"], 2.0);
}

#[test]
fn a_call_longer_than_the_timeout_is_cut_with_timeout() {
    let mut client = started(&["--tool-timeout", "0.3"]);
    let result = client.call_tool("countdown", json!({"seconds": 30})).unwrap();
    assert!(is_error(&result));
    assert_eq!(error_code(&result).as_deref(), Some("TIMEOUT"));
    assert!(text_of(&result).contains("--tool-timeout"), "{}", text_of(&result));
    let ok = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 1, "y": 1}})).unwrap();
    assert!(!is_error(&ok), "the server keeps serving after a timeout");
}

#[test]
fn a_cancelled_call_stops_and_sends_no_result() {
    let mut client = started(&[]);
    let id = client.send_request("tools/call", json!({"name": "countdown", "arguments": {"seconds": 60}})).unwrap();
    client.notify("notifications/cancelled", json!({"requestId": id, "reason": "user pressed stop"})).unwrap();
    let pong = client.request("ping", json!({})).unwrap();
    assert_eq!(pong["result"], json!({}));
    // Nothing comes for the cancelled call (MCP's "SHOULD NOT respond" for a cancelled request); if anything did,
    // it would have to be CANCELLED.
    if let Some(message) = client.try_read_message(Duration::from_millis(300)).unwrap() {
        assert_eq!(message["id"], json!(id));
        assert_eq!(error_code(&message["result"]).as_deref(), Some("CANCELLED"), "{message}");
    }
    let ok = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 1, "y": 1}})).unwrap();
    assert!(!is_error(&ok));
}

#[test]
fn calls_run_concurrently() {
    let mut client = started(&[]);
    let slow = client.send_request("tools/call", json!({"name": "countdown", "arguments": {"seconds": 30}})).unwrap();
    // A quick call answers while the slow one runs: the handler does not serialise calls.
    let quick = client.call_tool("hoge", json!({"action": "calc", "args": {"x": 2, "y": 3}})).unwrap();
    assert_eq!(quick["structuredContent"], json!({"value": 5}));
    client.notify("notifications/cancelled", json!({"requestId": slow})).unwrap();
}
