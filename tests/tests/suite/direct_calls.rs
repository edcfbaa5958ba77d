//! The direct answer to a sessionless `tools/call` over HTTP (`shared/src/transport/http/direct.rs`)
//! answers exactly as rmcp's per-request service does: the same requests, good and hostile, sent
//! to a server with it and to one started with `--no-direct-calls` get the same status, headers
//! (but `date`) and body, byte for byte. The server's debug log says which requests the direct
//! path took, and that is checked too, so the comparison cannot pass by both going through rmcp.
//! A session's `tools/call` is always rmcp's.

use std::{
    io::{BufReader, Write},
    net::TcpStream,
    path::Path,
    time::Duration,
};

use mcp_tests::{StdioClient, find_server_binary, http::read_response};
use serde_json::{Value, json};

/// What the direct path logs for each call it answers.
const DIRECT: &str = "tools/call answered directly";

struct Server {
    client: StdioClient,
    addr: String,
}

fn start(binary: &str, args: &[&str], dir: &Path) -> Server {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let client = StdioClient::builder(find_server_binary(binary).unwrap())
        .args(&all)
        .current_dir(dir)
        .env("RUST_LOG", "info,mcp_shared::transport::http::direct=debug")
        .spawn()
        .unwrap();
    let stderr = client.wait_for_stderr("url=http://").unwrap();
    let start = stderr.find("url=http://").unwrap() + "url=http://".len();
    let end = start + stderr[start..].find("/mcp").unwrap();
    Server { addr: stderr[start..end].to_owned(), client }
}

/// One request: `headers` as given (`{addr}` in a value is the server's address), then the body.
fn send(addr: &str, headers: &[(&str, String)], body: &str) -> (u16, Vec<(String, String)>, String) {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!("POST /mcp HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {}\r\n", value.replace("{addr}", addr)));
    }
    head.push_str("\r\n");
    let mut writer = stream.try_clone().unwrap();
    writer.write_all(head.as_bytes()).unwrap();
    writer.write_all(body.as_bytes()).unwrap();
    let response = read_response(&mut BufReader::new(stream)).unwrap();
    let mut headers: Vec<(String, String)> = response.headers.into_iter().filter(|(name, _)| name != "date").collect();
    headers.sort();
    (response.status, headers, String::from_utf8_lossy(&response.body).into_owned())
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "direct-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn base(version: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Host", "{addr}".to_owned()),
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
    ];
    if let Some(version) = version {
        headers.push(("MCP-Protocol-Version", version.to_owned()));
    }
    headers
}

fn with(mut headers: Vec<(&'static str, String)>, extra: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    for (name, value) in extra {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if !value.is_empty() {
            headers.push((name, (*value).to_owned()));
        }
    }
    headers
}

/// A case: a label, the headers, the body, and whether the direct path takes it.
type Case = (&'static str, Vec<(&'static str, String)>, String, bool);

fn call(id: Value, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
}

fn call_2026(id: Value, name: &str, arguments: Value, capabilities: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"_meta": meta(capabilities), "name": name, "arguments": arguments}})
    .to_string()
}

fn sample_tool_cases() -> Vec<Case> {
    let v25 = || base(Some("2025-11-25"));
    let v26 = || with(base(Some("2026-07-28")), &[("Mcp-Method", "tools/call"), ("Mcp-Name", "hoge")]);
    let calc = json!({"action": "calc", "args": {"x": 1, "y": 2}});
    let ok = call(json!(1), "hoge", calc.clone());
    vec![
        ("2025-11-25 call", v25(), ok.clone(), true),
        ("2025-06-18 call", base(Some("2025-06-18")), ok.clone(), true),
        ("a string id", v25(), call(json!("ab\"c"), "hoge", calc.clone()), true),
        ("bad arguments: isError", v25(), call(json!(2), "hoge", json!({"action": "calc", "args": {"x": "q"}})), true),
        ("no arguments", v25(), json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "hoge"}}).to_string(), true),
        ("trace context in _meta", v25(), json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "_meta": {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, "name": "hoge", "arguments": calc}}).to_string(), true),
        ("escaped method", v25(), ok.replace("tools/call", "tools\\/call"), true),
        ("charset parameter", with(v25(), &[("Content-Type", "application/json; charset=utf-8")]), ok.clone(), true),
        ("allowed Origin", with(v25(), &[("Origin", "http://{addr}")]), ok.clone(), true),
        ("localhost Host", with(v25(), &[("Host", "localhost:{port}")]), ok.clone(), true),
        ("2026-07-28 call", v26(), call_2026(json!(5), "hoge", calc.clone(), json!({})), true),
        // Everything below is rmcp's to answer.
        ("unknown tool", v25(), call(json!(6), "nope", json!({})), false),
        ("a progress token", v25(), json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "_meta": {"progressToken": "p"}, "name": "hoge", "arguments": calc}}).to_string(), false),
        ("tools/list", v25(), json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}).to_string(), false),
        ("jsonrpc 1.0", v25(), ok.replace("\"2.0\"", "\"1.0\""), false),
        ("a stray result", v25(), ok.replace("\"id\":1", "\"id\":1,\"result\":{}"), false),
        ("a stray member", v25(), ok.replace("\"id\":1", "\"id\":1,\"extra\":true"), false),
        ("duplicate id", v25(), ok.replace("\"id\":1", "\"id\":1,\"id\":2"), false),
        ("id null", v25(), call(json!(null), "hoge", calc.clone()), false),
        ("id too large", v25(), ok.replace("\"id\":1", "\"id\":18446744073709551616"), false),
        ("params null", v25(), json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": null}).to_string(), false),
        ("not JSON", v25(), "{\"jsonrpc\":".to_owned(), false),
        ("Accept JSON only", with(v25(), &[("Accept", "application/json")]), ok.clone(), false),
        ("Accept with q=0", with(v25(), &[("Accept", "application/json;q=0, text/event-stream")]), ok.clone(), false),
        ("no Content-Type", with(v25(), &[("Content-Type", "")]), ok.clone(), false),
        ("text/plain", with(v25(), &[("Content-Type", "text/plain")]), ok.clone(), false),
        ("foreign Host", with(v25(), &[("Host", "evil.example")]), ok.clone(), false),
        ("foreign Origin", with(v25(), &[("Origin", "http://evil.example")]), ok.clone(), false),
        ("unknown version", base(Some("1999-01-01")), ok.clone(), false),
        ("no version header", base(None), ok.clone(), false),
        ("a session id", with(v25(), &[("Mcp-Session-Id", "abc")]), ok.clone(), false),
        ("2025 with Mcp-Method", with(v25(), &[("Mcp-Method", "tools/call")]), ok.clone(), false),
        ("2026 wrong Mcp-Name", with(v26(), &[("Mcp-Name", "other")]), call_2026(json!(10), "hoge", calc.clone(), json!({})), false),
        ("2026 no Mcp-Method", with(v26(), &[("Mcp-Method", "")]), call_2026(json!(11), "hoge", calc.clone(), json!({})), false),
        ("2026 Base64 Mcp-Name", with(v26(), &[("Mcp-Name", "=?base64?aG9nZQ==?=")]), call_2026(json!(12), "hoge", calc.clone(), json!({})), false),
        ("2026 Mcp-Param header", with(v26(), &[("Mcp-Param-X", "1")]), call_2026(json!(13), "hoge", calc.clone(), json!({})), false),
        ("2026 meta without capabilities", v26(), json!({"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "x", "version": "1"}},
            "name": "hoge", "arguments": calc}}).to_string(), false),
        ("2026 meta under a 2025 header", with(v26(), &[("MCP-Protocol-Version", "2025-11-25")]), call_2026(json!(15), "hoge", calc.clone(), json!({})), false),
        ("2026 header without meta", v26(), ok.clone(), false),
    ]
}

/// Sends every case to both servers; returns how many the direct server took directly.
fn compare(direct: &Server, plain: &Server, cases: &[Case]) -> usize {
    let port = |addr: &str| addr.rsplit(':').next().unwrap().to_owned();
    let mut expected = 0;
    for (label, headers, body, takes) in cases {
        let for_server = |server: &Server| -> Vec<(&str, String)> {
            headers.iter().map(|(n, v)| (*n, v.replace("{port}", &port(&server.addr)))).collect()
        };
        let (status_d, headers_d, body_d) = send(&direct.addr, &for_server(direct), body);
        let (status_p, headers_p, body_p) = send(&plain.addr, &for_server(plain), body);
        assert_eq!((status_d, &body_d), (status_p, &body_p), "{label}: direct vs rmcp");
        assert_eq!(headers_d, headers_p, "{label}: headers, direct vs rmcp");
        if *takes {
            expected += 1;
            assert_eq!(status_d, 200, "{label}: {body_d}");
        }
    }
    assert_eq!(plain.client.stderr_text().matches(DIRECT).count(), 0, "--no-direct-calls answers nothing directly");
    expected
}

fn direct_count(server: &Server, expected: usize) -> usize {
    // The log line is written before the answer, so every one is there by now; wait a little
    // for the stderr reader all the same.
    for _ in 0..100 {
        let count = server.client.stderr_text().matches(DIRECT).count();
        if count >= expected {
            return count;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    server.client.stderr_text().matches(DIRECT).count()
}

#[test]
fn a_stateless_server_answers_directly_exactly_as_rmcp_does() {
    let dir = tempfile::tempdir().unwrap();
    let direct = start("mcp-server-sample-tool", &["--stateless"], dir.path());
    let plain = start("mcp-server-sample-tool", &["--stateless", "--no-direct-calls"], dir.path());
    let cases = sample_tool_cases();
    let expected = compare(&direct, &plain, &cases);
    assert_eq!(expected, 11);
    assert_eq!(direct_count(&direct, expected), expected, "{}", direct.client.stderr_text());
}

#[test]
fn a_session_server_answers_only_2026_calls_directly() {
    let dir = tempfile::tempdir().unwrap();
    let direct = start("mcp-server-sample-tool", &[], dir.path());
    let plain = start("mcp-server-sample-tool", &["--no-direct-calls"], dir.path());
    // With sessions, a 2025 call without a session is refused (by rmcp); a 2026-07-28 one is
    // sessionless and answered directly.
    let cases: Vec<Case> = sample_tool_cases()
        .into_iter()
        .map(|(label, headers, body, takes)| {
            let is_2026 = headers.iter().any(|(n, v)| *n == "MCP-Protocol-Version" && v == "2026-07-28");
            (label, headers, body, takes && is_2026)
        })
        .collect();
    let expected = compare(&direct, &plain, &cases);
    assert_eq!(expected, 1);
    assert_eq!(direct_count(&direct, expected), expected, "{}", direct.client.stderr_text());
}

#[test]
fn the_text_editor_asks_for_roots_and_reads_files_directly_as_rmcp_does() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::write(workspace.join("notes.txt"), "one\ntwo\n").unwrap();
    let root = workspace.to_str().unwrap();
    let direct = start("mcp-server-text-editor", &["--stateless", "--root", root], &workspace);
    let plain = start("mcp-server-text-editor", &["--stateless", "--no-direct-calls", "--root", root], &workspace);
    let v26 = with(base(Some("2026-07-28")), &[("Mcp-Method", "tools/call"), ("Mcp-Name", "text_editor")]);
    let view = json!({"command": "view", "path": "notes.txt"});
    let with_roots = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "_meta": meta(json!({"roots": {}})), "name": "text_editor", "arguments": view,
        "inputResponses": {"roots": {"roots": [{"uri": format!("file://{root}")}]}}}})
    .to_string();
    let cases: Vec<Case> = vec![
        ("2025 view", base(Some("2025-11-25")), call(json!(1), "text_editor", view.clone()), true),
        (
            "2026 view, roots declared: asked for",
            v26.clone(),
            call_2026(json!(2), "text_editor", view.clone(), json!({"roots": {}})),
            true,
        ),
        ("2026 view with the roots", v26.clone(), with_roots, true),
        (
            "2026 view outside",
            v26.clone(),
            call_2026(json!(4), "text_editor", json!({"command": "view", "path": "/etc/passwd"}), json!({})),
            true,
        ),
        (
            "2025 create refused twice alike",
            base(Some("2025-11-25")),
            call(json!(5), "text_editor", json!({"command": "create", "path": "../x", "file_text": "x"})),
            true,
        ),
    ];
    let expected = compare(&direct, &plain, &cases);
    assert_eq!(direct_count(&direct, expected), expected, "{}", direct.client.stderr_text());
    assert!(!dir.path().join("x").exists());
}
