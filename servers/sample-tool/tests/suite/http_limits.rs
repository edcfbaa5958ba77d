//! What an HTTP client may hold, through the real binary: TCP_NODELAY on every connection (no
//! ~40 ms Nagle/delayed-ACK stall per call), the header-read timeout, the connection cap against
//! slowloris, the session cap (eviction of idle sessions) and idle timeout, the status of
//! malformed bodies, late bodies, duplicate `Host` headers and unknown sessions, `/healthz`, `--allow-host` / `--allow-origin`,
//! the refusal of a public address without a token, `--stateless`, and the graceful SIGTERM.

use std::{
    io::{Read, Write},
    net::TcpStream,
    process::Command,
    time::Duration,
};

use mcp_tests::{StdioClient, http::HttpSession};
use serde_json::{Value, json};

use super::BIN;

/// How long any wait lasts before it is a failure.
const WAIT: Duration = Duration::from_secs(20);

/// The server on `--http 127.0.0.1:0` with `extra` flags and log filter `log`; its address.
fn server(extra: &[&str], log: &str) -> (StdioClient, String) {
    let mut args = vec!["--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    // The address comes from the start-up line (info), whatever else `log` asks for.
    let log = format!("{log},mcp_shared::transport::http=info");
    let client = StdioClient::builder(BIN).args(&args).env("RUST_LOG", log).spawn().unwrap();
    let stderr = client.wait_for_stderr("/mcp").unwrap();
    let start = stderr.find("http://").unwrap() + "http://".len();
    let end = start + stderr[start..].find("/mcp").unwrap();
    let addr = stderr[start..end].to_owned();
    (client, addr)
}

fn url(addr: &str) -> String {
    format!("http://{addr}/mcp")
}

fn hoge() -> Value {
    json!({"action": "calc", "args": {"x": 1, "y": 2}})
}

fn assert_hoge_works(session: &mut HttpSession) {
    let answer = session.call_tool("hoge", &hoge()).unwrap();
    assert_eq!(answer["result"]["structuredContent"]["value"], 3, "{answer}");
}

/// A connection that sent half a request head and nothing more.
fn half_open(addr: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty").unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream
}

/// Reads until the server closes `stream`; what it sent meanwhile. A read timeout is a failure.
fn read_to_close(stream: &mut TcpStream) -> String {
    let mut all = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return String::from_utf8_lossy(&all).into_owned(),
            Ok(n) => all.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return String::from_utf8_lossy(&all).into_owned();
            }
            Err(e) => panic!("the server did not close the connection: {e}"),
        }
    }
}

/// One raw request on a new connection; the whole response text (the server closes it).
fn raw(addr: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    read_to_close(&mut stream)
}

fn initialize_request(addr_header: &str, extra_headers: &str) -> String {
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": StdioClient::default_initialize_params()})
            .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr_header}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n{extra_headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn every_accepted_connection_has_tcp_nodelay() {
    // Nagle's algorithm met the client's delayed ACK on a response written in two segments:
    // ~44 ms per call on a kept-alive connection. The server logs the option as read back from
    // the accepted socket.
    let (server, addr) = server(&[], "warn,mcp_shared::transport::http::listener=debug");
    let mut session = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut session);
    let log = server.wait_for_stderr("accepted a connection").unwrap();
    assert!(log.contains("accepted a connection nodelay=true"), "{log}");
    assert!(!log.contains("nodelay=false"), "{log}");
}

#[test]
fn a_request_head_not_sent_in_time_closes_the_connection() {
    let (_server, addr) = server(&["--header-read-timeout", "0.2"], "warn");
    let mut stream = half_open(&addr);
    let answer = read_to_close(&mut stream);
    assert!(!answer.contains("200 OK"), "{answer}");
}

#[test]
fn a_body_that_does_not_arrive_in_time_closes_the_connection() {
    // A complete head, then a body that stops short (R.U.D.Y.): the connection is not held.
    let (_server, addr) = server(&["--header-read-timeout", "0.2"], "warn");
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).unwrap();
    let answer = read_to_close(&mut stream);
    assert_eq!(status(&answer), 408, "Request Timeout, not a server error: {answer}");
    // and the server serves the next client
    let mut session = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut session);
}

#[test]
fn half_open_connections_cannot_lock_out_a_client() {
    // Slowloris: more half-sent heads than the cap, a long header timeout; a real client is
    // still served, each new connection taking the place of the oldest that sent nothing.
    let (_server, addr) = server(&["--max-connections", "8", "--header-read-timeout", "60"], "warn");
    let mut attackers: Vec<TcpStream> = (0..20).map(|_| half_open(&addr)).collect();
    let mut session = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut session);
    // the oldest half-open connections were closed to make room
    let first = read_to_close(&mut attackers[0]);
    assert!(first.is_empty(), "{first}");
    assert_hoge_works(&mut session);
}

#[test]
fn past_the_cap_of_busy_connections_a_new_one_gets_503_at_once() {
    let (_server, addr) = server(&["--max-connections", "2"], "warn");
    let mut one = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    let mut two = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    let answer = raw(&addr, &initialize_request(&addr, ""));
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains("Retry-After: 1"), "{answer}");
    assert_hoge_works(&mut one);
    assert_hoge_works(&mut two);
}

#[test]
fn at_the_session_cap_a_newcomer_takes_the_place_of_an_idle_session_never_a_busy_one() {
    let (_server, addr) = server(&["--max-sessions", "3"], "warn");
    let mut a = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    let mut b = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    // An abandoned `initialize` (never followed by anything): the first to give way.
    assert!(raw(&addr, &initialize_request(&addr, "")).starts_with("HTTP/1.1 200 "));
    for _ in 0..5 {
        let answer = raw(&addr, &initialize_request(&addr, ""));
        assert!(answer.starts_with("HTTP/1.1 200 "), "a newcomer is served at the cap: {answer}");
    }
    assert_hoge_works(&mut b);
    assert_hoge_works(&mut a);
    // Every session established now: the least recently used idle one (b) gives way.
    let mut c = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    let mut d = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut a);
    assert_hoge_works(&mut c);
    assert_hoge_works(&mut d);
    let gone = b.call_tool("hoge", &hoge()).unwrap_err().to_string();
    assert!(gone.contains("HTTP 404"), "{gone}");

    // A session with a call in flight is never ended: with every place busy, the newcomer is
    // refused at once, and served once the call is done.
    let (_server, addr) = server(&["--max-sessions", "1"], "warn");
    let mut busy = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    let call = std::thread::spawn(move || {
        let answer = busy.call_tool("countdown", &json!({"seconds": 2})).unwrap();
        (busy, answer)
    });
    std::thread::sleep(Duration::from_millis(500));
    let refused = raw(&addr, &initialize_request(&addr, ""));
    assert!(refused.starts_with("HTTP/1.1 503 "), "{refused}");
    assert!(refused.to_ascii_lowercase().contains("retry-after: 10"), "{refused}");
    assert!(refused.contains("each with a call in progress"), "{refused}");
    let (_busy, answer) = call.join().unwrap();
    assert_eq!(answer["result"]["isError"], false, "the busy session's call finished: {answer}");
    let mut next = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut next);
}

#[test]
fn a_flood_of_abandoned_sessions_never_locks_a_client_out() {
    let (_server, addr) = server(&["--max-sessions", "8"], "warn");
    let mut first = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    for _ in 0..200 {
        let answer = raw(&addr, &initialize_request(&addr, ""));
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    }
    let mut late = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut late);
    assert_hoge_works(&mut first);
}

/// The status code of an HTTP response text.
fn status(answer: &str) -> u16 {
    answer.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// A raw `POST /mcp` with `body` and `content_type`.
fn post_body(addr: &str, content_type: &str, body: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    read_to_close(&mut stream)
}

#[test]
fn malformed_bodies_are_400_with_a_json_rpc_error_under_their_id() {
    let (_server, addr) = server(&[], "warn");
    for (body, id, code) in [
        (&b"{not json"[..], Value::Null, -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{\"x\":\"\xff\"}}", json!(7), -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"initialize\",\"params\":{\"x\":\"\\ud83d\"}}", json!(8), -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":7}", json!(9), -32600),
    ] {
        let answer = post_body(&addr, "application/json", body);
        assert_eq!(status(&answer), 400, "{answer}");
        assert!(answer.to_ascii_lowercase().contains("content-type: application/json"), "{answer}");
        let json: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(json["id"], id, "{answer}");
        assert_eq!(json["error"]["code"], code, "{answer}");
    }
    // The wrong media type stays 415.
    assert_eq!(status(&post_body(&addr, "text/plain", b"{}")), 415);
    // A batch (2025-03-26) says what it is and what to send instead.
    let answer = post_body(&addr, "application/json", b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
    assert_eq!(status(&answer), 400, "{answer}");
    assert!(answer.contains("JSON-RPC batch") && answer.contains("POST each message on its own"), "{answer}");
}

#[test]
fn two_host_headers_are_400() {
    let (_server, addr) = server(&["--allow-host", "evil.example"], "warn");
    let request = initialize_request(&addr, "Host: evil.example\r\n");
    let answer = raw(&addr, &request);
    assert_eq!(status(&answer), 400, "{answer}");
    assert!(answer.contains("more than one Host header"), "{answer}");
    assert_eq!(status(&raw(&addr, &initialize_request(&addr, ""))), 200);
}

#[test]
fn deleting_a_session_that_does_not_exist_is_404() {
    let (_server, addr) = server(&[], "warn");
    let request =
        format!("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: no-such-session\r\nConnection: close\r\n\r\n");
    let answer = raw(&addr, &request);
    assert_eq!(status(&answer), 404, "{answer}");
}

#[test]
fn an_idle_session_ends_and_frees_its_place() {
    let (server, addr) = server(
        &["--max-sessions", "1", "--session-idle-timeout", "0.3"],
        "warn,mcp_shared::transport::http::session_gate=debug",
    );
    let mut first = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    server.wait_for_stderr("session ended after --session-idle-timeout").unwrap();
    let gone = first.post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})).unwrap();
    assert_eq!(gone.status, 404, "the ended session is unknown: {gone:?}");
    let mut second = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut second);
}

#[test]
fn a_session_in_use_does_not_end() {
    // The idle clock is the session gate's, which every request resets.
    let (server, addr) =
        server(&["--session-idle-timeout", "0.4"], "warn,mcp_shared::transport::http::session_gate=debug");
    let mut session = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    for _ in 0..12 {
        assert_hoge_works(&mut session);
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = server.stderr_text();
    assert!(!log.contains("session ended after"), "{log}");
    // Left alone, it ends.
    server.wait_for_stderr("session ended after --session-idle-timeout").unwrap();
    let gone = session.post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})).unwrap();
    assert_eq!(gone.status, 404, "{gone:?}");
}

#[test]
fn healthz_answers_without_the_token() {
    let (_server, addr) = server(&["--http-token", "s3cret"], "warn");
    let answer = raw(&addr, &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nok\n"), "{answer}");
    let answer = raw(&addr, &initialize_request(&addr, ""));
    assert!(answer.starts_with("HTTP/1.1 401 "), "/mcp still needs it: {answer}");
    let answer = raw(&addr, &initialize_request(&addr, "Authorization: bEaReR s3cret\r\n"));
    assert!(answer.starts_with("HTTP/1.1 200 "), "the scheme is case-insensitive: {answer}");
}

#[test]
fn allow_host_and_allow_origin_add_to_the_defaults() {
    let (_server, addr) =
        server(&["--allow-host", "mcp.internal:8080", "--allow-origin", "https://app.example"], "warn");
    let answer = raw(&addr, &initialize_request("mcp.internal:8080", ""));
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    let answer = raw(&addr, &initialize_request("other.internal:8080", ""));
    assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
    let answer = raw(&addr, &initialize_request(&addr, "Origin: https://app.example\r\n"));
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    let answer = raw(&addr, &initialize_request(&addr, "Origin: https://evil.example\r\n"));
    assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
    let answer = raw(&addr, &initialize_request(&addr, ""));
    assert!(answer.starts_with("HTTP/1.1 200 "), "the bound address still works: {answer}");
}

#[test]
fn a_public_address_without_a_token_is_refused_at_start() {
    let output = Command::new(BIN).args(["--http", "0.0.0.0:0"]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("without --http-token") && stderr.contains("--insecure-no-token"), "{stderr}");
    // said explicitly, it serves
    let (_server, addr) = {
        let client = StdioClient::builder(BIN)
            .args(["--http", "0.0.0.0:0", "--insecure-no-token"])
            .env("RUST_LOG", "warn,mcp=info")
            .spawn()
            .unwrap();
        let log = client.wait_for_stderr("/mcp").unwrap();
        let port = log.split("http://0.0.0.0:").nth(1).unwrap().split('/').next().unwrap().to_owned();
        (client, format!("127.0.0.1:{port}"))
    };
    let answer = raw(&addr, &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
}

#[test]
fn stateless_mode_keeps_no_session() {
    let (_server, addr) = server(&["--stateless"], "warn");
    let mut one = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_eq!(one.session, None, "no Mcp-Session-Id in stateless mode");
    assert_hoge_works(&mut one);
    // a request on a fresh connection with no initialize at all is served too
    let mut bare = HttpSession::connect(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut bare);
}

#[test]
fn sigterm_lets_an_in_flight_call_finish_then_exits_0() {
    let (mut server, addr) = server(&["--shutdown-grace", "20"], "warn,mcp_shared::transport=info");
    let mut session = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    // a call that takes a second; its response head (200, an event stream) says it is in flight
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "countdown", "arguments": {"seconds": 1}}})
        .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Mcp-Session-Id: {}\r\nContent-Length: {}\r\n\r\n{body}",
        session.session.clone().unwrap(),
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !String::from_utf8_lossy(&seen).contains("\r\n\r\n") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the response head");
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&seen).starts_with("HTTP/1.1 200 "));

    let status = Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(status.success());
    server.wait_for_stderr("shutting down").unwrap();
    // no new connection is served
    assert!(TcpStream::connect(&addr).is_err() || raw(&addr, "GET /healthz HTTP/1.1\r\n\r\n").is_empty());
    // the in-flight call still gets its result
    while !String::from_utf8_lossy(&seen).contains("\"id\":9") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the in-flight call was cut: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&seen);
    assert!(text.contains("Countdown of 1 s finished."), "{text}");
    assert!(server.wait().unwrap().success(), "{}", server.stderr_text());
    let _ = session.call_tool("hoge", &hoge()).err();
}

/// A first `curl` gets refusals that say what to send instead.
#[test]
fn each_refusal_of_a_requests_form_says_what_to_send() {
    let (_server, addr) = server(&[], "warn");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hoge","arguments":{}}}"#;
    let post = |headers: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let answer = raw(&addr, &post("Content-Type: application/json\r\n"));
    assert_eq!(status(&answer), 406, "{answer}");
    assert!(answer.contains("send `Accept: application/json, text/event-stream`"), "{answer}");
    let answer = raw(
        &addr,
        &post("Content-Type: application/x-www-form-urlencoded\r\nAccept: application/json, text/event-stream\r\n"),
    );
    assert_eq!(status(&answer), 415, "{answer}");
    assert!(answer.contains("`Content-Type: application/json`"), "{answer}");
    let answer = raw(&addr, &post("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"));
    assert_eq!(status(&answer), 400, "{answer}");
    assert!(answer.contains("Send `initialize` first") && answer.contains("Mcp-Session-Id"), "{answer}");
    // A body that is not JSON: the HTTP wording (no "on one line").
    let answer = post_body(&addr, "application/json", b"{bad");
    assert!(
        answer.contains("A request body must be one JSON-RPC message") && !answer.contains("on one line"),
        "{answer}"
    );
}
