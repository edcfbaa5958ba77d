//! `StdioClient` against `mcp-baseline` and small scripted fake servers (`sh`), for what the
//! baseline never does: notifications, server requests, stray output, silence, crashes.

use std::time::Duration;

use mcp_tests::{StdioClient, procfs};
use serde_json::json;

use super::BASELINE;

/// A fake server: `sh -c SCRIPT`.
fn fake(script: &str) -> StdioClient {
    StdioClient::spawn("sh", &["-c", script]).unwrap()
}

#[test]
fn ids_increase_and_responses_can_come_out_of_order() {
    let mut c = StdioClient::spawn(BASELINE, &[]).unwrap();
    c.initialize().unwrap();
    let a = c.send_request("ping", json!(null)).unwrap();
    let b = c.send_request("ping", json!(null)).unwrap();
    let d = c.send_request("tools/call", json!({"name": "echo", "arguments": {"n": 3}})).unwrap();
    assert!(a < b && b < d);
    // Waiting for the last first keeps the others for later.
    assert_eq!(c.wait_response(d).unwrap()["result"]["structuredContent"], json!({"n": 3}));
    assert_eq!(c.wait_response(a).unwrap()["id"], json!(a));
    assert_eq!(c.wait_response(b).unwrap()["id"], json!(b));
    let r = c.request("ping", json!(null)).unwrap();
    assert_eq!(r["id"], json!(d + 1));
}

#[test]
fn notifications_and_server_requests_are_collected() {
    // Reads the request, sends a progress notification, a ping request to the client and the
    // response; then echoes the client's answer to the ping on stderr.
    let mut c = fake(
        r#"read req
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}'
printf '%s\n' '{"jsonrpc":"2.0","id":"s1","method":"ping"}'
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"done":true}}'
read answer
echo "$answer" >&2"#,
    );
    let r = c.request("tools/call", json!({"name": "x", "arguments": {}})).unwrap();
    assert_eq!(r["result"]["done"], true);
    assert_eq!(c.notifications().len(), 1);
    assert_eq!(c.notifications()[0]["params"]["progressToken"], "t");
    assert_eq!(c.server_requests().len(), 1);
    assert_eq!(c.server_requests()[0]["id"], "s1");
    assert!(c.wait().unwrap().success());
    let answer: serde_json::Value = serde_json::from_str(c.stderr_text().trim()).unwrap();
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "s1", "result": {}}));
    assert_eq!(c.take_notifications().len(), 1);
    assert!(c.notifications().is_empty());
}

#[test]
fn a_line_that_is_not_json_on_stdout_is_an_error() {
    let mut c = fake("read req; echo 'starting server...'; exec cat");
    let err = c.request("ping", json!(null)).unwrap_err();
    assert!(format!("{err:#}").contains("not JSON"), "{err:#}");
    assert!(format!("{err:#}").contains("starting server..."), "{err:#}");
}

#[test]
fn a_silent_server_times_out() {
    // Reads everything, answers nothing, keeps stdout open (as fd 3).
    let mut c = fake("exec cat 3>&1 >&2");
    c.set_timeout(Duration::from_millis(200));
    let err = c.request("ping", json!(null)).unwrap_err();
    assert!(format!("{err:#}").contains("timed out"), "{err:#}");
    assert_eq!(c.try_read_message(Duration::from_millis(10)).unwrap(), None);
}

#[test]
fn a_crash_is_reported_with_stderr() {
    let mut c = fake("read req; echo 'panicked at boom' >&2; exit 3");
    let err = c.request("ping", json!(null)).unwrap_err();
    let text = format!("{err:#}");
    assert!(text.contains("closed its stdout"), "{text}");
    assert!(text.contains("panicked at boom"), "{text}");
    assert_eq!(c.wait().unwrap().code(), Some(3));
    assert!(c.send_raw("{}").is_err() || c.read_message().is_err());
}

#[test]
fn builder_sets_env_and_working_directory() {
    let dir = std::env::temp_dir();
    let mut c = StdioClient::builder("sh")
        .args([
            "-c",
            r#"read req; printf '{"jsonrpc":"2.0","id":1,"result":{"foo":"%s","pwd":"%s"}}\n' "$FOO" "$(pwd -P)""#,
        ])
        .env("FOO", "bar")
        .current_dir(&dir)
        .timeout(Duration::from_secs(5))
        .spawn()
        .unwrap();
    assert_eq!(c.timeout(), Duration::from_secs(5));
    let r = c.request("x", json!(null)).unwrap();
    assert_eq!(r["result"]["foo"], "bar");
    assert_eq!(r["result"]["pwd"], dir.canonicalize().unwrap().to_str().unwrap());
}

#[test]
fn dropping_the_client_kills_the_server() {
    let c = fake("exec cat > /dev/null");
    let pid = c.pid();
    assert!(procfs::status_kib(pid, "VmRSS").is_some());
    drop(c);
    // Killed and reaped: the pid is gone from /proc.
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
}

#[test]
fn close_stdin_then_wait_reaps_the_server() {
    let mut c = fake("exec cat");
    c.send_raw(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
    assert_eq!(c.read_message().unwrap()["id"], 1);
    c.close_stdin();
    assert!(c.send_raw("{}").is_err());
    assert!(c.wait().unwrap().success());
    assert!(c.try_wait().unwrap().is_some());
}
