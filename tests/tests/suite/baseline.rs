//! `mcp-baseline` answers what it promises, and `mcp-baseline-tokio` answers the same.

use mcp_tests::{StdioClient, is_error, structured, text_of};
use serde_json::json;

use super::{BASELINE, BASELINE_TOKIO};

/// Both do-nothing servers.
const BOTH: [&str; 2] = [BASELINE, BASELINE_TOKIO];

#[test]
fn initialize_echoes_the_protocol_version() {
    for baseline in BOTH {
        let mut c = StdioClient::spawn(baseline, &[]).unwrap();
        let result = c
            .initialize_with(json!({
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"}
            }))
            .unwrap();
        assert_eq!(result["protocolVersion"], "2024-11-05");
        assert_eq!(result["serverInfo"]["name"], "mcp-baseline");
        assert_eq!(result["capabilities"], json!({"tools": {}}));
    }
}

#[test]
fn lists_and_calls_echo() {
    for baseline in BOTH {
        let mut c = StdioClient::spawn(baseline, &[]).unwrap();
        c.initialize().unwrap();
        let tools = c.list_tools().unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0]["name"], "echo");
        assert_eq!(tools[0]["inputSchema"]["type"], "object");

        let args = json!({"nested": {"a": [1, 2, 3]}, "s": "é"});
        let result = c.call_tool("echo", args.clone()).unwrap();
        assert!(!is_error(&result));
        assert_eq!(text_of(&result), "ok");
        assert_eq!(structured(&result), Some(args));
    }
}

#[test]
fn ping_unknown_methods_and_tools() {
    for baseline in BOTH {
        let mut c = StdioClient::spawn(baseline, &[]).unwrap();
        c.initialize().unwrap();
        assert_eq!(c.request("ping", json!(null)).unwrap()["result"], json!({}));
        let r = c.request("resources/list", json!({})).unwrap();
        assert_eq!(r["error"]["code"], -32601);
        let r = c.request("tools/call", json!({"name": "nope", "arguments": {}})).unwrap();
        assert_eq!(r["error"]["code"], -32602);
        // Still serving.
        assert!(c.request("ping", json!(null)).unwrap().get("result").is_some());
    }
}

#[test]
fn notifications_get_no_reply() {
    for baseline in BOTH {
        let mut c = StdioClient::spawn(baseline, &[]).unwrap();
        c.initialize().unwrap();
        c.notify("notifications/cancelled", json!({"requestId": 99})).unwrap();
        c.notify("some/unknown/notification", json!(null)).unwrap();
        // The server answers in order: the next message must be the ping's response.
        let id = c.send_request("ping", json!(null)).unwrap();
        let msg = c.read_message().unwrap();
        assert_eq!(msg["id"], json!(id));
        assert!(c.notifications().is_empty());
    }
}

#[test]
fn malformed_lines_get_a_parse_error_and_the_server_goes_on() {
    for baseline in BOTH {
        let mut c = StdioClient::spawn(baseline, &[]).unwrap();
        c.initialize().unwrap();
        c.send_raw("{this is not json").unwrap();
        let msg = c.read_message().unwrap();
        assert_eq!(msg["error"]["code"], -32700);
        assert_eq!(msg["id"], json!(null));

        c.send_raw(r#"{"jsonrpc":"2.0","id":7}"#).unwrap();
        let msg = c.read_message().unwrap();
        assert_eq!(msg["error"]["code"], -32600);
        assert_eq!(msg["id"], 7);

        // An oversized line (2 MiB) of garbage, then a 2 MiB valid call.
        c.send_raw(&"x".repeat(2 << 20)).unwrap();
        assert_eq!(c.read_message().unwrap()["error"]["code"], -32700);
        let big = "y".repeat(2 << 20);
        let result = c.call_tool("echo", json!({"big": big})).unwrap();
        assert_eq!(structured(&result).unwrap()["big"].as_str().unwrap().len(), 2 << 20);
    }
}

#[test]
fn exits_when_stdin_closes() {
    for baseline in BOTH {
        let mut c = StdioClient::spawn(baseline, &[]).unwrap();
        c.initialize().unwrap();
        let status = c.wait().unwrap();
        assert!(status.success(), "{status}");
        assert_eq!(c.stderr_text(), "");
    }
}

/// `--help` of the harness's own binaries says what each is, and runs nothing: `tour --help`
/// used to run the whole tour, `mcp-floor-http --help` errored, `mcp-baseline --help` printed
/// nothing.
#[test]
fn the_harness_binaries_answer_help_without_running() {
    for (bin, says) in [
        (env!("CARGO_BIN_EXE_tour"), "guided, checked MCP session"),
        (env!("CARGO_BIN_EXE_mcp-floor-http"), "floor of an MCP server over HTTP"),
        (env!("CARGO_BIN_EXE_mcp-baseline"), "do-nothing MCP server"),
        (env!("CARGO_BIN_EXE_mcp-baseline-tokio"), "async stack"),
    ] {
        let out = std::process::Command::new(bin).arg("--help").output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{bin}: {out:?}");
        assert!(stdout.contains(says) && stdout.contains("Usage:") && stdout.lines().count() < 20, "{bin}: {stdout}");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-baseline")).arg("--nope").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
