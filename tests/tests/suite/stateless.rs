//! MCP 2026-07-28 (the stateless revision) through each of the four real binaries, over stdio
//! and Streamable HTTP: `server/discover`, requests without `initialize` that carry their
//! version and capabilities in `_meta`, `resultType`, cache hints and `serverInfo` on results,
//! -32022 with the supported list, the session revisions beside it, and client roots through
//! `InputRequiredResult` (multi round-trip requests).

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use mcp_tests::{find_server_binary, http::HttpSession, raw::RawStdio};
use serde_json::{Value, json};

use super::robustness::servers;

/// How long an answer may take before it counts as never given.
const WAIT: Duration = Duration::from_secs(20);

const V2026: &str = "2026-07-28";

/// The `_meta` every 2026-07-28 request carries.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V2026,
        "io.modelcontextprotocol/clientInfo": {"name": "stateless-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A 2026-07-28 request line: `params` with the `_meta` added.
fn request(id: u64, method: &str, mut params: Value, capabilities: Value) -> String {
    params["_meta"] = meta(capabilities);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn ask(server: &mut RawStdio, line: &str) -> Value {
    server.send(line).unwrap();
    let answer = server.line(WAIT).unwrap_or_else(|e| panic!("no answer to {line}: {e}"));
    serde_json::from_str(&answer).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"))
}

#[test]
fn every_server_speaks_2026_07_28_without_a_handshake() {
    let dir = tempfile::tempdir().unwrap();
    for (name, command) in servers(dir.path()) {
        let mut server = RawStdio::start(command).unwrap();
        let discovered = ask(&mut server, &request(1, "server/discover", json!({}), json!({})));
        let result = &discovered["result"];
        let versions: Vec<&str> =
            result["supportedVersions"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(versions, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", V2026], "{name}");
        assert_eq!(result["resultType"], "complete", "{name}: {discovered}");
        assert!(result["capabilities"]["tools"].is_object(), "{name}: {discovered}");
        assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], name, "{name}: {discovered}");
        assert!(result["ttlMs"].as_u64().is_some() && result["cacheScope"] == "private", "{name}: {discovered}");

        // No initialize: every request carries its own version, and is answered.
        let listed = ask(&mut server, &request(2, "tools/list", json!({}), json!({})));
        let result = &listed["result"];
        assert_eq!(result["resultType"], "complete", "{name}: {listed}");
        assert!(result["ttlMs"].is_u64() && result["cacheScope"].is_string(), "{name}: {listed}");
        assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], name, "{name}");
        let first: Vec<Value> = result["tools"].as_array().unwrap().iter().map(|t| t["name"].clone()).collect();
        assert!(!first.is_empty(), "{name}");
        let again = ask(&mut server, &request(3, "tools/list", json!({}), json!({})));
        let second: Vec<Value> =
            again["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].clone()).collect();
        assert_eq!(first, second, "{name}: tools/list is in a deterministic order");

        // A refused call is a complete result with isError, never a protocol error.
        let tool = first[0].as_str().unwrap();
        let called = ask(
            &mut server,
            &request(4, "tools/call", json!({"name": tool, "arguments": {"no_such_argument": [1]}}), json!({})),
        );
        assert_eq!(called["result"]["resultType"], "complete", "{name}: {called}");
        assert_eq!(called["result"]["isError"], true, "{name}: {called}");
        assert_eq!(called["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], name, "{name}");

        // A version it does not speak: -32022 with the list.
        let mut future = serde_json::from_str::<Value>(&request(5, "tools/list", json!({}), json!({}))).unwrap();
        future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
        let refused = ask(&mut server, &future.to_string());
        assert_eq!(refused["error"]["code"], -32022, "{name}: {refused}");
        assert!(refused["error"]["data"]["supported"].as_array().unwrap().contains(&json!(V2026)), "{name}");

        // `ping` went with the handshake.
        let ping = ask(&mut server, &request(6, "ping", json!({}), json!({})));
        assert_eq!(ping["error"]["code"], -32601, "{name}: {ping}");
        assert!(server.alive(), "{name}");
    }
}

#[test]
fn the_session_revisions_are_unchanged_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    for (name, command) in servers(dir.path()) {
        let mut server = RawStdio::start(command).unwrap();
        // A request that is neither 2026-07-28 nor after `initialize` says what to send.
        let early = ask(&mut server, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        assert_eq!(early["error"]["code"], -32600, "{name}: {early}");
        let message = early["error"]["message"].as_str().unwrap();
        assert!(message.contains("`initialize` first") && message.contains("2026-07-28"), "{name}: {message}");
        // `initialize` naming 2026-07-28 (which has no handshake) settles on 2025-11-25.
        let init = ask(
            &mut server,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
                "protocolVersion": V2026, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{name}: {init}");
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        let listed = ask(&mut server, r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
        assert!(listed["result"]["tools"].is_array(), "{name}: {listed}");
        // Session results keep their shape: no resultType, no cache hints.
        assert!(listed["result"].get("resultType").is_none(), "{name}: {listed}");
        assert!(listed["result"].get("ttlMs").is_none(), "{name}: {listed}");
    }
}

#[test]
fn the_text_editor_asks_a_2026_client_for_its_roots_and_narrows_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/in.txt"), "inside\n").unwrap();
    std::fs::write(root.join("out.txt"), "outside\n").unwrap();
    let binary = find_server_binary("mcp-server-text-editor").unwrap();
    let mut server = RawStdio::spawn(&binary, &["--root", root.to_str().unwrap()], &root).unwrap();
    let roots = json!({"roots": {}});
    let view = |path: &Path| json!({"name": "text_editor", "arguments": {"command": "view", "path": path}});

    // The first call gets the roots/list request, not a result.
    let asked = ask(&mut server, &request(1, "tools/call", view(&root.join("sub/in.txt")), roots.clone()));
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert_eq!(asked["result"]["inputRequests"]["roots"], json!({"method": "roots/list"}), "{asked}");

    // The retry carries them: inside works, outside is refused.
    let answers = json!({"roots": {"roots": [{"uri": format!("file://{}", root.join("sub").display())}]}});
    let mut retry = view(&root.join("sub/in.txt"));
    retry["inputResponses"] = answers.clone();
    let inside = ask(&mut server, &request(2, "tools/call", retry, roots.clone()));
    assert_eq!(inside["result"]["resultType"], "complete", "{inside}");
    assert_eq!(inside["result"]["isError"], false, "{inside}");
    assert!(inside["result"]["content"][0]["text"].as_str().unwrap().contains("inside"), "{inside}");
    let mut outside = view(&root.join("out.txt"));
    outside["inputResponses"] = answers;
    let outside = ask(&mut server, &request(3, "tools/call", outside, roots.clone()));
    assert_eq!(outside["result"]["isError"], true, "{outside}");
    assert_eq!(outside["result"]["structuredContent"]["error"]["code"], "OUTSIDE_ROOT", "{outside}");

    // An answer that is not a roots/list result is a -32602 that says what was expected.
    let mut bad = view(&root.join("sub/in.txt"));
    bad["inputResponses"] = json!({"roots": {"roots": "file:///"}});
    let bad = ask(&mut server, &request(4, "tools/call", bad, roots));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(bad["error"]["message"].as_str().unwrap().contains("inputResponses.roots"), "{bad}");

    // A client without the roots capability is not asked.
    let plain = ask(&mut server, &request(5, "tools/call", view(&root.join("out.txt")), json!({})));
    assert_eq!(plain["result"]["isError"], false, "{plain}");
}

#[test]
fn draft_post_takes_its_repository_from_a_2026_clients_one_root() {
    let dir = tempfile::tempdir().unwrap();
    let blog = dir.path().canonicalize().unwrap().join("blog");
    std::fs::create_dir(&blog).unwrap();
    let binary = find_server_binary("mcp-server-draft-post").unwrap();
    // Started in `/`, which is never a project: without roots there is no repository.
    let mut server = RawStdio::spawn(&binary, &[], Path::new("/")).unwrap();
    let roots = json!({"roots": {}});
    let list = json!({"name": "list_posts", "arguments": {}});
    let plain = ask(&mut server, &request(1, "tools/call", list.clone(), json!({})));
    assert_eq!(plain["result"]["isError"], true, "{plain}");
    let asked = ask(&mut server, &request(2, "tools/call", list.clone(), roots.clone()));
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let mut retry = list;
    retry["inputResponses"] = json!({"roots": {"roots": [{"uri": format!("file://{}", blog.display())}]}});
    let listed = ask(&mut server, &request(3, "tools/call", retry, roots));
    assert_eq!(listed["result"]["isError"], false, "{listed}");
}

/// A server on a free loopback port, killed when dropped.
struct Http(Child, String);

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_server(dir: &Path, extra: &[&str]) -> Http {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let address = format!("127.0.0.1:{port}");
    let child = Command::new(find_server_binary("mcp-server-text-editor").unwrap())
        .args(["--root", dir.to_str().unwrap(), "--http", &address])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + WAIT;
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    Http(child, format!("http://{address}/mcp"))
}

#[test]
fn over_http_a_2026_request_needs_no_session_and_its_headers_must_match() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hi\n").unwrap();
    for extra in [&[][..], &["--stateless"][..]] {
        let server = http_server(dir.path(), extra);
        let mut http = HttpSession::connect(&server.1, None, WAIT).unwrap();
        let call: Value = serde_json::from_str(&request(
            1,
            "tools/call",
            json!({"name": "text_editor", "arguments": {"command": "view", "path": "a.txt"}}),
            json!({}),
        ))
        .unwrap();
        let headers = [("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/call"), ("Mcp-Name", "text_editor")];
        let response = http.post_with(&call, &headers).unwrap();
        assert_eq!(response.status, 200, "{extra:?}: {}", String::from_utf8_lossy(&response.body));
        assert!(response.header("mcp-session-id").is_none(), "{extra:?}: no session for 2026-07-28");
        let answer = response.messages().into_iter().find(|m| m["id"] == 1).unwrap();
        assert_eq!(answer["result"]["resultType"], "complete", "{extra:?}: {answer}");
        assert!(answer["result"]["content"][0]["text"].as_str().unwrap().contains("hi"), "{answer}");

        // The headers must say what the body says.
        let wrong = [("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/list"), ("Mcp-Name", "text_editor")];
        let response = http.post_with(&call, &wrong).unwrap();
        assert_eq!(response.status, 400, "{extra:?}");
        let refused = response.messages().into_iter().next().unwrap();
        assert_eq!(refused["error"]["code"], -32020, "{extra:?}: {refused}");
        let response = http.post_with(&call, &[("MCP-Protocol-Version", V2026)]).unwrap();
        assert_eq!(response.status, 400, "{extra:?}: Mcp-Method is required");

        // The session revisions still get a session (unless --stateless).
        let session = HttpSession::open(&server.1, None, WAIT).unwrap();
        assert_eq!(session.session.is_some(), extra.is_empty(), "{extra:?}");
    }
}
