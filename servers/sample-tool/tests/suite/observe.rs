//! Operating a deployment: `GET /metrics` (accepted by Prometheus's own `promtool`), the call log
//! (`--audit-log`) over stdio and over HTTP under concurrent callers, and the MCP endpoint at `/`
//! as well as `/mcp`.

use std::{io::Write as _, process::Stdio, time::Duration};

use mcp_tests::{StdioClient, http::HttpSession};
use serde_json::{Value, json};

use super::{
    BIN,
    http::{get, http_server},
};

const WAIT: Duration = Duration::from_secs(20);

/// `promtool check metrics` on `text`: `None` when promtool is not installed (CI installs it:
/// there its absence fails the test).
#[allow(clippy::print_stderr, reason = "says why the format check was left out")]
fn promtool(text: &str) -> Option<(bool, String)> {
    let child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(_) if std::env::var_os("CI").is_none() => {
            eprintln!("promtool is not installed: the metrics format is checked in CI");
            return None;
        }
        Err(e) => panic!("CI must have promtool (Debian's prometheus package): {e}"),
    };
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Some((out.status.success(), said))
}

fn body(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

#[test]
fn metrics_count_calls_by_tool_and_outcome_and_promtool_accepts_them() {
    let (_server, addr) = http_server(&["--http-token", "s3cret"]);
    // The endpoint answers at / too (a client configured with the bare server URL).
    let mut mcp = HttpSession::open(&format!("http://{addr}/"), Some("s3cret"), WAIT).unwrap();
    for _ in 0..2 {
        let ok = mcp.call_tool("hoge", &json!({"action": "calc", "args": {"x": 1, "y": 2}})).unwrap();
        assert_eq!(ok["result"]["isError"], false, "{ok}");
    }
    let bad = mcp.call_tool("hoge", &json!({"action": "calc", "args": {"x": "one"}})).unwrap();
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    let code = bad["result"]["structuredContent"]["error"]["code"].as_str().unwrap().to_owned();
    let unknown = mcp.call_tool("no_such_tool_named_by_an_attacker", &json!({})).unwrap();
    assert!(unknown.get("error").is_some(), "{unknown}");
    let (status, _) = super::http::get(&addr, "/mcp", "Authorization: Bearer wrong\r\n");
    assert_eq!(status, 401);

    let (status, answer) = get(&addr, "/metrics", "");
    assert_eq!(status, 200, "{answer}");
    assert!(answer.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{answer}");
    let text = body(&answer);
    assert!(text.contains(r#"mcp_tool_calls_total{outcome="OK",tool="hoge"} 2"#), "{text}");
    assert!(text.contains(&format!(r#"mcp_tool_calls_total{{outcome="{code}",tool="hoge"}} 1"#)), "{text}");
    assert!(text.contains(r#"mcp_tool_calls_total{outcome="UNKNOWN_TOOL",tool="_unknown"} 1"#), "{text}");
    assert!(!text.contains("no_such_tool_named_by_an_attacker"), "a client's tool name never becomes a label: {text}");
    assert!(
        text.contains(
            r#"mcp_server_operation_duration_seconds_count{gen_ai_tool_name="hoge",mcp_method_name="tools/call",outcome="OK"} 2"#
        ),
        "{text}"
    );
    assert!(text.contains("mcp_sessions_open 1"), "{text}");
    let unauthorized = text
        .lines()
        .find_map(|l| l.strip_prefix("mcp_http_requests_unauthorized_total "))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(unauthorized >= 1, "{text}");
    if let Some((ok, said)) = promtool(text) {
        assert!(ok, "promtool check metrics refused /metrics: {said}\n{text}");
    }
}

#[test]
fn protect_metrics_puts_metrics_behind_the_token() {
    let (_server, addr) = http_server(&["--http-token", "s3cret", "--protect-metrics"]);
    let (status, answer) = get(&addr, "/metrics", "");
    assert_eq!(status, 401, "{answer}");
    let (status, answer) = get(&addr, "/metrics", "Authorization: Bearer s3cret\r\n");
    assert_eq!(status, 200, "{answer}");
    assert!(body(&answer).contains("mcp_sessions_open"), "{answer}");
}

fn lines_of(path: &std::path::Path, want: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a call log line is not JSON ({e}): {l}")))
            .collect();
        if lines.len() >= want || std::time::Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_call_log_has_one_line_per_stdio_call_without_the_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.jsonl");
    let mut client = StdioClient::spawn(BIN, &["--audit-log", log.to_str().unwrap()]).unwrap();
    client.initialize().unwrap();
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let arguments = json!({"action": "calc", "args": {"x": 41, "y": 1}, "note": "a-secret-value"});
    let ok = client
        .request("tools/call", json!({"name": "hoge", "arguments": arguments, "_meta": {"traceparent": traceparent}}))
        .unwrap();
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    let bad = client.call_tool("hoge", json!({"action": "nope"})).unwrap();
    assert!(mcp_tests::is_error(&bad), "{bad}");
    let _ = client.request("tools/call", json!({"name": "missing", "arguments": {}}));

    let lines = lines_of(&log, 3);
    assert_eq!(lines.len(), 3, "{lines:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("a-secret-value"), "arguments reached the log: {text}");
    assert_eq!(lines[0]["server"], "mcp-server-sample-tool");
    assert_eq!(lines[0]["tool"], "hoge");
    assert_eq!(lines[0]["caller"], "stdio");
    assert_eq!(lines[0]["outcome"], "OK");
    assert_eq!(lines[0]["traceparent"], traceparent);
    assert_eq!(lines[0]["arguments_sha256"].as_str().unwrap().len(), 16);
    assert!(lines[0]["duration_ms"].as_f64().unwrap() >= 0.0);
    assert!(lines[0]["time"].as_str().unwrap().starts_with("20"), "{}", lines[0]);
    assert!(lines[0].get("peer").is_none());
    assert_eq!(lines[1]["outcome"].as_str(), mcp_tests::error_code(&bad).as_deref(), "{}", lines[1]);
    assert_ne!(lines[1]["arguments_sha256"], lines[0]["arguments_sha256"]);
    assert_eq!(lines[2]["tool"], "missing");
    assert_eq!(lines[2]["outcome"], "UNKNOWN_TOOL");
}

#[test]
fn the_call_log_keeps_every_line_whole_under_eight_concurrent_http_callers() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.jsonl");
    let (_server, addr) = http_server(&["--http-token", "s3cret", "--audit-log", log.to_str().unwrap()]);
    let callers: Vec<_> = (0..8)
        .map(|t| {
            let url = format!("http://{addr}/mcp");
            std::thread::spawn(move || {
                let mut mcp = HttpSession::open(&url, Some("s3cret"), WAIT).unwrap();
                for i in 0..25 {
                    let r = mcp.call_tool("hoge", &json!({"action": "calc", "args": {"x": t, "y": i}})).unwrap();
                    assert_eq!(r["result"]["isError"], false, "{r}");
                }
            })
        })
        .collect();
    for c in callers {
        c.join().unwrap();
    }
    let lines = lines_of(&log, 200);
    assert_eq!(lines.len(), 200);
    for line in &lines {
        assert_eq!(line["caller"], "bearer-token", "{line}");
        assert!(line["peer"].as_str().unwrap().starts_with("127.0.0.1:"), "{line}");
        assert_eq!(line["outcome"], "OK", "{line}");
    }
    let digests: std::collections::HashSet<&str> =
        lines.iter().map(|l| l["arguments_sha256"].as_str().unwrap()).collect();
    assert_eq!(digests.len(), 200, "every call's arguments differ, and so do their digests");
}

/// Runs the binary with `args` and returns (exit success, stderr) once it exits by itself.
fn exits_with(args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(BIN).args(args).stdin(Stdio::null()).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn oauth_flags_are_refused_when_they_cannot_work() {
    let (ok, stderr) = exits_with(&[
        "--http",
        "127.0.0.1:0",
        "--http-token",
        "t",
        "--auth-issuer",
        "https://auth.example.com",
        "--public-url",
        "https://mcp.example.com/mcp",
    ]);
    assert!(!ok && stderr.contains("cannot be mixed"), "{stderr}");
    let (ok, stderr) = exits_with(&["--http", "127.0.0.1:0", "--auth-issuer", "https://auth.example.com"]);
    assert!(!ok && stderr.contains("--public-url"), "{stderr}");
    let (ok, stderr) = exits_with(&[
        "--http",
        "127.0.0.1:0",
        "--auth-issuer",
        "http://auth.example.com",
        "--public-url",
        "https://m/mcp",
    ]);
    assert!(!ok && stderr.contains("must be https"), "{stderr}");
}

#[test]
fn with_oauth_the_metadata_is_served_and_a_bare_request_gets_the_challenge() {
    // An issuer nobody answers at: the metadata and the 401 need no authorization server.
    let (_server, addr) = http_server(&[
        "--auth-issuer",
        "http://127.0.0.1:9/tenant",
        "--public-url",
        "https://mcp.example.com/mcp",
        "--allow-host",
        "127.0.0.1",
    ]);
    let (status, answer) = get(&addr, "/.well-known/oauth-protected-resource/mcp", "");
    assert_eq!(status, 200, "{answer}");
    let doc: Value = serde_json::from_str(body(&answer)).unwrap();
    assert_eq!(doc["resource"], "https://mcp.example.com/mcp");
    assert_eq!(doc["authorization_servers"], json!(["http://127.0.0.1:9/tenant"]));
    let (status, answer) = get(&addr, "/mcp", "");
    assert_eq!(status, 401, "{answer}");
    assert!(
        answer.contains(
            r#"www-authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:read""#
        ),
        "{answer}"
    );
    let (status, answer) = get(&addr, "/mcp", "Authorization: Bearer not.a.jwt\r\n");
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains(r#"error="invalid_token""#), "{answer}");
}

#[test]
fn a_calls_traceparent_is_on_its_log_lines() {
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let mut client = StdioClient::builder(BIN).args(["--tool-timeout", "0.2"]).env("RUST_LOG", "info").spawn().unwrap();
    client.initialize().unwrap();
    let timed_out = client
        .request(
            "tools/call",
            json!({"name": "countdown", "arguments": {"seconds": 5}, "_meta": {"traceparent": traceparent}}),
        )
        .unwrap();
    assert!(mcp_tests::is_error(&timed_out), "{timed_out}");
    let line = client.wait_for_stderr("tool call timed out").unwrap();
    let line = line.lines().find(|l| l.contains("tool call timed out")).unwrap_or_default().to_owned();
    assert!(line.contains(traceparent), "the timeout's log line lacks the call's traceparent: {line}");
    // A malformed one is not logged.
    let _ = client.request(
        "tools/call",
        json!({"name": "countdown", "arguments": {"seconds": 5}, "_meta": {"traceparent": "forged\nline"}}),
    );
    assert!(!client.stderr_text().contains("forged"), "{}", client.stderr_text());
}

/// `--audit-log -` with a client that never reads the server's stderr: every call is answered
/// (the log's writes blocked the calls once the pipe was full: 9 of 3,000 were), and a
/// 20 MB tool name (answered first, while the pipe has room for the server's warning about it)
/// is neither logged nor echoed whole.
#[test]
fn an_unread_stderr_call_log_never_holds_a_call_up() {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(BIN)
        .args(["--audit-log", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Held, never read: the pipe fills after ~64 KB of log.
    let _stderr = child.stderr.take().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let answer = |stdout: &mut std::io::BufReader<std::process::ChildStdout>, line: &mut String| -> Value {
        loop {
            line.clear();
            assert!(stdout.read_line(line).unwrap() > 0, "the server closed stdout");
            let message: Value = serde_json::from_str(line).unwrap();
            if message.get("id").is_some() {
                return message;
            }
        }
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    writeln!(stdin, "{init}").unwrap();
    assert_eq!(answer(&mut stdout, &mut line)["id"], 0);
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
    let long = json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": {"name": "x".repeat(20_000_000), "arguments": {}}});
    writeln!(stdin, "{long}").unwrap();
    let refused = answer(&mut stdout, &mut line);
    assert_eq!(refused["id"], "long");
    assert!(line.len() < 10_000, "the unknown name is not echoed whole ({} bytes)", line.len());

    let calls = 3_000;
    let writer = std::thread::spawn(move || {
        for id in 1..=calls {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "hoge", "arguments": {"action": "calc", "args": {"x": id, "y": 1}}}});
            writeln!(stdin, "{call}").unwrap();
        }
        stdin
    });
    let mut answered = 0;
    while answered < calls {
        let message = answer(&mut stdout, &mut line);
        assert_eq!(message["result"]["isError"], false, "{message}");
        answered += 1;
    }
    assert_eq!(answered, calls, "every call answered");
    drop(writer.join().unwrap());
    let _ = child.kill();
    let _ = child.wait();
}
