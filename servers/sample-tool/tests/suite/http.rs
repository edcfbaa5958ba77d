//! Streamable HTTP (`--http`): a session over real sockets, Host/Origin checks (DNS rebinding),
//! the bearer token.

use std::{
    io::{Read, Write},
    net::TcpStream,
    time::Duration,
};

use mcp_tests::StdioClient;
use serde_json::json;

use super::BIN;

/// Starts the server on `--http 127.0.0.1:0` and returns it with the bound address.
pub(super) fn http_server(extra: &[&str]) -> (StdioClient, String) {
    let mut args = vec!["--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let client = StdioClient::builder(BIN).args(&args).env("RUST_LOG", "info").spawn().unwrap();
    // The listening line: other lines (an OAuth issuer that cannot be reached) name URLs too.
    let stderr = client.wait_for_stderr("url=http://").unwrap();
    let start = stderr.find("url=http://").unwrap() + "url=http://".len();
    let end = start + stderr[start..].find("/mcp").unwrap();
    let addr = stderr[start..end].to_owned();
    (client, addr)
}

/// One HTTP/1.1 POST to /mcp; returns (status, headers+body text).
fn post(addr: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    let mut buf = [0u8; 4096];
    // Read until the first SSE event or JSON body has arrived (the stream may stay open).
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                response.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&response);
                if text.contains("\"jsonrpc\"") || (text.contains("\r\n\r\n") && !text.starts_with("HTTP/1.1 200")) {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": StdioClient::default_initialize_params()})
        .to_string()
}

#[test]
fn serves_a_session_over_http() {
    let (_server, addr) = http_server(&[]);
    let (status, text) = post(&addr, &[], &initialize_body());
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("mcp-server-sample-tool"), "{text}");
    assert!(text.to_ascii_lowercase().contains("mcp-session-id"), "stateful sessions: {text}");
}

#[test]
fn calls_from_several_connections_at_once_are_answered_in_sessions_and_stateless() {
    // Both spellings of the flag.
    for args in [&["--http", "127.0.0.1:0"][..], &["--http=127.0.0.1:0", "--stateless"][..]] {
        let server = StdioClient::builder(BIN).args(args).env("RUST_LOG", "info").spawn().unwrap();
        let stderr = server.wait_for_stderr("url=http://").unwrap();
        let start = stderr.find("url=http://").unwrap() + "url=".len();
        let end = start + stderr[start..].find("/mcp").unwrap() + "/mcp".len();
        let url = &stderr[start..end];
        // Calls from several connections at once: blocks allocated on one worker thread and
        // freed on the other.
        let callers: Vec<_> = (0..4)
            .map(|caller| {
                let url = url.to_owned();
                std::thread::spawn(move || {
                    let mut session = mcp_tests::http::HttpSession::open(&url, None, Duration::from_secs(20)).unwrap();
                    for i in 0..50 {
                        let answer = session
                            .call_tool("hoge", &json!({"action": "calc", "args": {"x": caller, "y": i}}))
                            .unwrap();
                        assert_eq!(answer["result"]["structuredContent"]["value"], json!(caller + i), "{answer}");
                    }
                })
            })
            .collect();
        for caller in callers {
            caller.join().unwrap();
        }
    }
}

#[test]
fn foreign_host_and_origin_are_refused() {
    let (_server, addr) = http_server(&[]);
    let (status, text) = post(&addr, &[("Host", "evil.example:80")], &initialize_body());
    assert_eq!(status, 403, "{text}");
    let (status, text) = post(&addr, &[("Origin", "http://evil.example")], &initialize_body());
    assert_eq!(status, 403, "{text}");
    let origin = format!("http://{addr}");
    let (status, text) = post(&addr, &[("Origin", origin.as_str())], &initialize_body());
    assert_eq!(status, 200, "own origin is allowed: {text}");
}

#[test]
fn the_bearer_token_is_required_when_set() {
    let (_server, addr) = http_server(&["--http-token", "s3cret"]);
    let (status, text) = post(&addr, &[], &initialize_body());
    assert_eq!(status, 401, "{text}");
    let (status, _) = post(&addr, &[("Authorization", "Bearer wrong")], &initialize_body());
    assert_eq!(status, 401);
    let (status, text) = post(&addr, &[("Authorization", "Bearer s3cret")], &initialize_body());
    assert_eq!(status, 200, "{text}");
}

/// One HTTP/1.1 GET; the status code and the whole response.
pub(super) fn get(addr: &str, path: &str, headers: &str) -> (u16, String) {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, answer)
}

/// The JSON body of a whole HTTP/1.1 response (Content-Length framed).
fn json_body(answer: &str) -> serde_json::Value {
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"))
}

#[test]
fn a_refused_token_is_an_oauth_shaped_401_and_discovery_urls_are_404() {
    for extra in [&["--http-token", "s3cret"][..], &[][..]] {
        let (_server, addr) = http_server(extra);
        // No authorization server: every OAuth discovery URL is a plain 404, token or not.
        for path in [
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
            "/register",
        ] {
            let (status, answer) = get(&addr, path, "");
            assert_eq!(status, 404, "{path}: {answer}");
            assert!(answer.to_ascii_lowercase().contains("content-type: application/json"), "{answer}");
            assert_eq!(json_body(&answer)["error"], "not_found", "{answer}");
        }
    }
    let (_server, addr) = http_server(&["--http-token", "s3cret"]);
    let (status, answer) = post_raw(&addr, "");
    assert_eq!(status, 401, "{answer}");
    assert!(
        answer.contains("www-authenticate: Bearer\r\n") || answer.contains("WWW-Authenticate: Bearer\r\n"),
        "{answer}"
    );
    let body = json_body(&answer);
    assert_eq!(body["error"], "invalid_request", "{answer}");
    assert!(body["error_description"].as_str().unwrap().contains("Authorization: Bearer"), "{answer}");
    let (status, answer) = post_raw(&addr, "Authorization: Bearer wrong\r\n");
    assert_eq!(status, 401, "{answer}");
    assert!(answer.to_ascii_lowercase().contains("www-authenticate: bearer error=\"invalid_token\""), "{answer}");
    assert_eq!(json_body(&answer)["error"], "invalid_token", "{answer}");
}

/// An `initialize` POST to /mcp with `headers`, over a raw connection: status and whole answer.
fn post_raw(addr: &str, headers: &str) -> (u16, String) {
    raw_post(addr, "/mcp", headers, &initialize_body())
}

/// A JSON POST of `body` to `path` with `headers` (each line ending in `\r\n`), over a raw
/// connection that the server closes after answering: status and whole answer.
fn raw_post(addr: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, answer)
}

/// One HTTP/1.1 DELETE of /mcp; returns the status line's code and the whole response.
fn delete(addr: &str, session: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let request =
        format!("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {session}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, response)
}

#[test]
fn a_deleted_session_is_204_and_gone() {
    let (_server, addr) = http_server(&[]);
    let (status, text) = post(&addr, &[], &initialize_body());
    assert_eq!(status, 200, "{text}");
    let session = text
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id").then(|| v.trim().to_owned())
        })
        .unwrap();
    // 204, not rmcp's 202: the Python SDK (mcp-use) logs a failure for anything but 200/204.
    let (status, text) = delete(&addr, &session);
    assert_eq!(status, 204, "{text}");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let (status, text) = post(&addr, &[("Mcp-Session-Id", session.as_str())], &ping);
    assert_eq!(status, 404, "the session is closed: {text}");
}

/// An `initialize` POST asking for `version`, over a raw connection: the whole answer (headers
/// and the SSE body, chunked).
fn initialize_raw(addr: &str, version: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // The stream of a session stays open: read until the answer has arrived.
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&answer).contains("\"result\"") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the answer: {}", String::from_utf8_lossy(&answer));
        answer.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(answer).unwrap()
}

#[test]
fn priming_events_go_only_to_clients_of_revisions_that_have_them() {
    let (_server, addr) = http_server(&[]);
    // 2025-11-25 (SEP-1699): the stream starts with a priming event (empty data, id, retry).
    let answer = initialize_raw(&addr, "2025-11-25");
    assert!(answer.contains("data: \nid: 0\nretry: "), "{answer}");
    // Earlier revisions parse every data line as JSON-RPC (Gemini CLI, 2025-06-18): none.
    for version in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        let answer = initialize_raw(&addr, version);
        assert!(answer.contains(&format!(r#""protocolVersion":"{version}""#)), "{answer}");
        assert!(!answer.contains("retry:"), "{version}: {answer}");
        for line in answer.lines().filter(|l| l.starts_with("data:")) {
            let json = line.trim_start_matches("data:").trim();
            assert!(
                serde_json::from_str::<serde_json::Value>(json).is_ok(),
                "{version}: a data line not JSON: {line:?}"
            );
        }
    }
}

/// A `tools/call` POST to `path` over a raw connection: status and whole answer.
fn call_at(addr: &str, path: &str, headers: &str) -> (u16, String) {
    let body = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hoge","arguments":{"action":"calc","args":{"x":1,"y":2}}}}"#;
    raw_post(addr, path, &format!("{headers}MCP-Protocol-Version: 2025-11-25\r\n"), body)
}

/// `POST /mcp` and `POST /` skip the router (the listener calls the endpoint's checks itself);
/// `/mcp/` and `/mcp/...` still go through it. Either way the same checks and the same answer.
#[test]
fn every_path_to_the_endpoint_gets_the_same_checks_and_answer_with_or_without_the_router() {
    let (_server, addr) = http_server(&["--stateless", "--http-token", "s3cret"]);
    for path in ["/mcp", "/", "/mcp?x=1", "/mcp/", "/mcp/sub"] {
        let (status, answer) = call_at(&addr, path, "");
        assert_eq!(status, 401, "{path} without the token: {answer}");
        let (status, answer) = call_at(&addr, path, "Authorization: Bearer wrong\r\n");
        assert_eq!(status, 401, "{path} with a wrong token: {answer}");
        let (status, answer) = call_at(&addr, path, "Authorization: Bearer s3cret\r\nOrigin: http://evil.example\r\n");
        assert_eq!(status, 403, "{path} from a foreign Origin: {answer}");
        let (status, answer) = call_at(&addr, path, "Authorization: Bearer s3cret\r\n");
        assert_eq!(status, 200, "{path}: {answer}");
        assert!(answer.contains(r#""id":5"#) && answer.contains(r#"\"value\":3"#), "{path}: {answer}");
    }
    let (status, answer) = call_at(&addr, "/elsewhere", "Authorization: Bearer s3cret\r\n");
    assert_eq!(status, 404, "{answer}");
}
