//! What an HTTP client may hold, through the real binary: TCP_NODELAY on every connection (no
//! ~40 ms Nagle/delayed-ACK stall per call), the header-read timeout, the connection cap against
//! slowloris, the session cap and idle timeout, `/healthz`, `--allow-host` / `--allow-origin`,
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
    let (server, addr) = server(&[], "warn,mcp_shared::transport::listener=debug");
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
    assert!(!answer.contains("200 OK"), "{answer}");
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
fn sessions_past_the_cap_get_503_with_retry_after_and_the_first_keeps_working() {
    let (_server, addr) = server(&["--max-sessions", "3"], "warn");
    let mut sessions: Vec<HttpSession> = (0..3).map(|_| HttpSession::open(&url(&addr), None, WAIT).unwrap()).collect();
    let answer = raw(&addr, &initialize_request(&addr, ""));
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("retry-after: 10"), "{answer}");
    assert!(answer.contains("Too many open sessions (3, the limit is 3)"), "{answer}");
    for session in &mut sessions {
        assert_hoge_works(session);
    }
}

#[test]
fn an_idle_session_ends_and_frees_its_place() {
    let (server, addr) =
        server(&["--max-sessions", "1", "--session-idle-timeout", "0.3"], "warn,rmcp::transport::worker=debug");
    let first = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    server.wait_for_stderr("IdleTimeout").unwrap();
    let mut second = HttpSession::open(&url(&addr), None, WAIT).unwrap();
    assert_hoge_works(&mut second);
    drop(first);
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
