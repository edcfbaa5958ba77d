//! The IDE's live state through the bridge: `get_diagnostics`, `get_open_editors`,
//! `get_selection`, `open_file`, the unsaved buffer in `read_file`, `folder-name/…` paths of a
//! multi-root workspace, the subscribable `ide://selection` resource, and what a host that cannot
//! answer (the headless `ide-bridge-host`, a version 1 extension) makes of each tool.

use std::time::{Duration, Instant};

use mcp_tests::{http::HttpSession, is_error, text_of};
use serde_json::{Value, json};

use super::{
    Env, WAIT, code,
    fake_host::{FakeHost, Mode},
};

#[test]
fn an_ide_answers_each_tool_and_the_bridge_passes_its_answer_on() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Ide);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);

    let all = bridge.call_tool("get_diagnostics", json!({})).unwrap();
    assert!(!is_error(&all), "{all}");
    let d = &all["structuredContent"]["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["code"].as_str(), d["severity"].as_str()),
        (Some(1), Some("2322"), Some("error"))
    );
    let asked = fake.next("ide/diagnostics");
    assert!(asked["params"].get("path").is_none(), "{asked}");

    // An absolute path in the second folder goes to the host as `Library/…`; the options pass.
    let one = bridge
        .call_tool("get_diagnostics", json!({"path": "/w/lib/src/b.ts", "include_info": true, "wait_ms": 2000}))
        .unwrap();
    assert_eq!(one["structuredContent"]["diagnostics"][0]["path"], "Library/src/b.ts", "{one}");
    let asked = fake.next("ide/diagnostics");
    assert_eq!(asked["params"], json!({"path": "Library/src/b.ts", "includeInfo": true, "waitMs": 2000}));

    // The language server had not finished: the result says so and is still a result.
    let early = bridge.call_tool("get_diagnostics", json!({"path": "src/a.ts", "wait_ms": 1})).unwrap();
    assert!(!is_error(&early) && early["structuredContent"]["settled"] == false, "{early}");
    assert!(text_of(&early).contains("Call again"), "{early}");

    let editors = bridge.call_tool("get_open_editors", json!({})).unwrap();
    assert_eq!(editors["structuredContent"]["editors"][0]["dirty"], true, "{editors}");
    assert_eq!(editors["structuredContent"]["outside"], 1, "{editors}");

    let selection = bridge.call_tool("get_selection", json!({})).unwrap();
    assert_eq!(selection["structuredContent"]["selection"]["text"], "const", "{selection}");
    assert_eq!(selection["structuredContent"]["active"], true, "{selection}");

    let opened = bridge.call_tool("open_file", json!({"path": "src/a.ts", "line": 3, "end_line": 5})).unwrap();
    assert_eq!(opened["structuredContent"]["path"], "src/a.ts", "{opened}");
    let asked = fake.next("ide/openFile");
    assert_eq!(asked["params"], json!({"path": "src/a.ts", "line": 3, "endLine": 5, "preview": false}));

    // The unsaved buffer is the content, and a second block says it is unsaved.
    let read = bridge.call_tool("read_file", json!({"path": "src/a.ts"})).unwrap();
    let blocks = read["content"].as_array().unwrap();
    assert_eq!(blocks[0]["text"], "buffer of src/a.ts", "{read}");
    assert!(blocks[1]["text"].as_str().unwrap().contains("unsaved changes"), "{read}");
}

#[test]
fn bad_arguments_are_refused_before_the_host_is_asked() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Ide);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    for (tool, args) in [
        ("open_file", json!({"path": "a.ts", "line": 0})),
        ("open_file", json!({"path": "a.ts", "end_line": 4})),
        ("open_file", json!({"path": "a.ts", "line": 5, "end_line": 4})),
        ("open_file", json!({"path": ""})),
        ("get_diagnostics", json!({"wait_ms": 30001})),
        ("get_diagnostics", json!({"path": ""})),
        ("get_selection", json!({"extra": 1})),
    ] {
        let result = bridge.call_tool(tool, args.clone()).unwrap();
        assert!(is_error(&result), "{tool} {args}: {result}");
        assert_eq!(code(&result), "INVALID_ARGS", "{tool} {args}: {result}");
    }
    let sent: Vec<Value> =
        fake.drain().into_iter().filter(|m| m["method"].as_str().is_some_and(|m| m.starts_with("ide/"))).collect();
    assert!(sent.is_empty(), "nothing reached the host: {sent:?}");
}

#[test]
fn a_subscriber_to_the_selection_hears_when_it_changes() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Ide);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    let listed = bridge.request("resources/list", json!({})).unwrap();
    let uris: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().filter_map(|r| r["uri"].as_str()).collect();
    assert_eq!(&uris[..2], ["ide://selection", "ide://diagnostics"], "{listed}");
    let read = bridge.request("resources/read", json!({"uri": "ide://selection"})).unwrap();
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "application/json", "{read}");
    let value: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
    assert_eq!(value["selection"]["path"], "src/a.ts");

    let refused = bridge.request("resources/subscribe", json!({"uri": "file:///a.txt"})).unwrap();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let ok = bridge.request("resources/subscribe", json!({"uri": "ide://selection"})).unwrap();
    assert_eq!(ok["result"], json!({}), "{ok}");
    bridge.take_notifications();
    // The fake IDE's selection changes when it opens a file.
    bridge.call_tool("open_file", json!({"path": "src/a.ts"})).unwrap();
    let deadline = Instant::now() + WAIT;
    let updated = loop {
        assert!(Instant::now() < deadline, "no notifications/resources/updated: {:?}", bridge.notifications());
        if let Some(n) =
            bridge.take_notifications().into_iter().find(|n| n["method"] == "notifications/resources/updated")
        {
            break n;
        }
        if let Some(message) = bridge.try_read_message(Duration::from_millis(100)).unwrap()
            && message["method"] == "notifications/resources/updated"
        {
            break message;
        }
    };
    assert_eq!(updated["params"]["uri"], "ide://selection", "{updated}");

    // Unsubscribed: no more updates.
    let ok = bridge.request("resources/unsubscribe", json!({"uri": "ide://selection"})).unwrap();
    assert_eq!(ok["result"], json!({}), "{ok}");
    bridge.take_notifications();
    bridge.call_tool("open_file", json!({"path": "src/a.ts"})).unwrap();
    assert!(bridge.request("ping", json!({})).is_ok());
    let late: Vec<Value> =
        bridge.take_notifications().into_iter().filter(|n| n["method"] == "notifications/resources/updated").collect();
    assert!(late.is_empty(), "{late:?}");
}

#[test]
fn hosts_without_an_editor_say_plainly_what_they_cannot_do() {
    let env = Env::new();
    // The headless host: no tabs and no selection are answers; diagnostics and open_file are not.
    let ws = env.workspace("ws", &[("a.ts", "const n: number = 'x';\n")]);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let editors = bridge.call_tool("get_open_editors", json!({})).unwrap();
    assert!(!is_error(&editors), "{editors}");
    assert_eq!(editors["structuredContent"], json!({"editors": [], "outside": 0}));
    let selection = bridge.call_tool("get_selection", json!({})).unwrap();
    assert_eq!(selection["structuredContent"], json!({"active": false}), "{selection}");
    assert!(text_of(&selection).contains("No workspace file is active"), "{selection}");
    for (tool, args) in [("get_diagnostics", json!({"path": "a.ts"})), ("open_file", json!({"path": "a.ts"}))] {
        let result = bridge.call_tool(tool, args).unwrap();
        assert_eq!(code(&result), "UNAVAILABLE", "{result}");
        let text = text_of(&result);
        assert!(text.contains(&format!("does not support {tool}")) && text.contains("headless"), "{text}");
        assert!(text.contains("Do not retry"), "{text}");
    }
    // A path that escapes is still refused by the host's sandbox.
    let read = bridge.call_tool("read_file", json!({"path": "../outside.txt"})).unwrap();
    assert_eq!(code(&read), "ACCESS_DENIED", "{read}");

    // A version 1 extension: every IDE tool is a plain "does not support" with the way out.
    let fake = FakeHost::start(Mode::V1);
    let mut old = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    for tool in ["get_diagnostics", "get_open_editors", "get_selection"] {
        let result = old.call_tool(tool, json!({})).unwrap();
        assert_eq!(code(&result), "UNAVAILABLE", "{result}");
        assert!(text_of(&result).contains("extension 0.2 or later"), "{}", text_of(&result));
    }
}

#[test]
fn a_2026_07_28_subscription_hears_the_resources_it_named() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Ide);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge_builder(&ws, &["--url", &fake.url(), "--token", "t"]).spawn().unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "ide-state-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    bridge
        .send_message(&json!({"jsonrpc": "2.0", "id": 80, "method": "subscriptions/listen", "params": {
            "_meta": meta, "notifications": {"resourceSubscriptions": ["ide://selection", "file:///not-subscribable"]}}}))
        .unwrap();
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    let ack = loop {
        assert!(Instant::now() < deadline, "no acknowledgement: {seen:?}");
        if let Some(m) = bridge.try_read_message(Duration::from_millis(100)).unwrap() {
            if m["method"].as_str().is_some_and(|m| m.contains("subscriptions")) {
                break m;
            }
            seen.push(m);
        }
    };
    // 2026-07-28 has no resources/subscribe (rmcp answers it as an unknown method).
    bridge
        .send_message(&json!({"jsonrpc": "2.0", "id": 79, "method": "resources/subscribe", "params": {
            "_meta": meta, "uri": "ide://selection"}}))
        .unwrap();
    let refused = loop {
        assert!(Instant::now() < deadline, "no answer to resources/subscribe: {seen:?}");
        if let Some(m) = bridge.try_read_message(Duration::from_millis(100)).unwrap() {
            if m["id"] == 79 {
                break m;
            }
            seen.push(m);
        }
    };
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    // Only what can change is accepted.
    let accepted = ack["params"]["notifications"]["resourceSubscriptions"].clone();
    assert_eq!(accepted, json!(["ide://selection"]), "{ack}");
    bridge
        .send_message(&json!({"jsonrpc": "2.0", "id": 81, "method": "tools/call", "params": {
            "_meta": meta, "name": "open_file", "arguments": {"path": "src/a.ts"}}}))
        .unwrap();
    let updated = loop {
        assert!(Instant::now() < deadline, "no notifications/resources/updated: {seen:?}");
        if let Some(m) = bridge.try_read_message(Duration::from_millis(100)).unwrap() {
            if m["method"] == "notifications/resources/updated" {
                break m;
            }
            seen.push(m);
        }
    };
    assert_eq!(updated["params"]["uri"], "ide://selection", "{updated}");
    assert_eq!(updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 80, "{updated}");
}

#[test]
fn a_stateless_http_request_cannot_subscribe_and_is_told_why() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Ide);
    let ws = env.workspace("ws", &[]);
    let bridge = env
        .bridge_builder(&ws, &["--url", &fake.url(), "--token", "t", "--http", "127.0.0.1:0", "--stateless"])
        .spawn()
        .unwrap();
    let log = bridge.wait_for_stderr("url=http://").unwrap();
    let start = log.find("url=http://").unwrap() + "url=".len();
    let end = start + log[start..].find("/mcp").unwrap() + "/mcp".len();
    let mut http = HttpSession::connect(&log[start..end], None, WAIT).unwrap();
    let response = http
        .post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": "ide://selection"}}),
        )
        .unwrap();
    let answer = response.messages().into_iter().find(|m| m["id"] == 1).unwrap();
    let message = answer["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("needs a session") && message.contains("subscriptions/listen"), "{answer}");
    // Reading the resource works without a session.
    let read = http
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "ide://selection"}}))
        .unwrap();
    let answer = read.messages().into_iter().find(|m| m["id"] == 2).unwrap();
    assert_eq!(answer["result"]["contents"][0]["mimeType"], "application/json", "{answer}");
}

/// The URL a bridge started with `--http 127.0.0.1:0` serves at, from its log.
fn http_url(bridge: &mcp_tests::StdioClient) -> String {
    let log = bridge.wait_for_stderr("url=http://").unwrap();
    let start = log.find("url=http://").unwrap() + "url=".len();
    let end = start + log[start..].find("/mcp").unwrap() + "/mcp".len();
    log[start..end].to_owned()
}

/// 512 HTTP sessions subscribe to both resources and end (`DELETE`): their slots are free
/// again, so a new session can subscribe (every later subscribe was refused, for good with the
/// headless host, whose resources never change).
#[test]
fn subscriptions_of_ended_http_sessions_are_freed() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Ide);
    let ws = env.workspace("ws", &[]);
    let bridge =
        env.bridge_builder(&ws, &["--url", &fake.url(), "--token", "t", "--http", "127.0.0.1:0"]).spawn().unwrap();
    let url = http_url(&bridge);
    let subscribe = |http: &mut HttpSession, id: u64, uri: &str| {
        let response = http
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}}))
            .unwrap();
        response.messages().into_iter().find(|m| m["id"] == id).unwrap()
    };
    for _ in 0..512 {
        let mut http = HttpSession::open(&url, None, WAIT).unwrap();
        for (id, uri) in [(1, "ide://selection"), (2, "ide://diagnostics")] {
            let answer = subscribe(&mut http, id, uri);
            assert_eq!(answer["result"], json!({}), "{answer}");
        }
        let ended = http.delete().unwrap();
        assert!((200..300).contains(&ended.status), "DELETE: HTTP {}", ended.status);
    }
    let mut http = HttpSession::open(&url, None, WAIT).unwrap();
    let answer = subscribe(&mut http, 1, "ide://selection");
    assert_eq!(answer["result"], json!({}), "a new session subscribes: {answer}");
    // One session's quota: the same URI again is the same subscription, not a new one.
    let again = subscribe(&mut http, 2, "ide://selection");
    assert_eq!(again["result"], json!({}), "{again}");
}

/// `subscriptions/listen` takes each resource once before its cut (64 copies of the selection
/// crowded the diagnostics out), and holds at most 256 streams open at once.
#[test]
fn listen_takes_each_resource_once_and_streams_are_bounded() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Ide);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge_builder(&ws, &["--url", &fake.url(), "--token", "t"]).spawn().unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "ide-state-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut uris = vec!["ide://selection"; 64];
    uris.push("ide://diagnostics");
    let deadline = Instant::now() + WAIT;
    for id in 0..257u64 {
        let named = if id == 0 { uris.clone() } else { vec!["ide://selection"] };
        bridge
            .send_message(&json!({"jsonrpc": "2.0", "id": 1000 + id, "method": "subscriptions/listen", "params": {
                "_meta": meta, "notifications": {"resourceSubscriptions": named}}}))
            .unwrap();
    }
    let (mut ack, mut refused) = (None, None);
    while ack.is_none() || refused.is_none() {
        assert!(Instant::now() < deadline, "no acknowledgement of the first or answer to the last");
        if let Some(m) = bridge.try_read_message(Duration::from_millis(100)).unwrap() {
            let listen = &m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
            if m["method"].as_str().is_some_and(|m| m.contains("subscriptions")) && *listen == 1000 {
                ack = Some(m.clone());
            }
            if m["id"] == 1256 {
                refused = Some(m);
            }
        }
    }
    let ack = ack.unwrap();
    // rmcp acknowledges the request's own list filtered by what the server accepts (duplicates
    // and all); what counts is that the diagnostics are in it.
    let accepted: std::collections::BTreeSet<&str> = ack["params"]["notifications"]["resourceSubscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(accepted, ["ide://diagnostics", "ide://selection"].into(), "{ack}");
    let refused = refused.unwrap();
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("maximum of 256 subscriptions/listen streams"), "{refused}");
}
