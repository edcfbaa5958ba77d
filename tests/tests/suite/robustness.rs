//! Every request line answered exactly once, ids echoed byte-exact, batches and requests before
//! `initialize` answered: the cases a fuzzing campaign found, through each of the four real
//! binaries (they share the stdio transport, and each must keep the promise).

use std::{path::Path, process::Command, time::Duration};

use mcp_tests::{find_server_binary, raw::RawStdio};
use serde_json::{Value, json};

/// How long an answer may take before it counts as never given.
const WAIT: Duration = Duration::from_secs(20);

/// The four servers, each started in `dir` the way its README says (a workspace to confine to,
/// a repository, no IDE running for the bridge).
pub(super) fn servers(dir: &Path) -> Vec<(&'static str, Command)> {
    std::fs::create_dir_all(dir.join("repo")).unwrap();
    std::fs::create_dir_all(dir.join("xdg")).unwrap();
    let mut out = Vec::new();
    for name in ["mcp-server-sample-tool", "mcp-server-text-editor", "mcp-server-draft-post", "mcp-server-ide-bridge"] {
        let mut command = Command::new(find_server_binary(name).unwrap());
        command.current_dir(dir).env("XDG_RUNTIME_DIR", dir.join("xdg")).env_remove("IDE_BRIDGE_TOKEN");
        match name {
            "mcp-server-text-editor" => {
                command.arg("--root").arg(dir);
            }
            "mcp-server-draft-post" => {
                command.arg("--repo").arg(dir.join("repo"));
            }
            _ => {}
        }
        out.push((name, command));
    }
    out
}

fn initialize(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "robustness", "version": "1"}}})
    .to_string()
}

fn started(command: Command, version: &str) -> RawStdio {
    let mut server = RawStdio::start(command).unwrap();
    server.send(&initialize(version)).unwrap();
    let answer: Value = serde_json::from_str(&server.line(WAIT).unwrap()).unwrap();
    assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
    server
}

fn parsed(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

#[test]
fn what_the_parser_refuses_is_answered_under_its_id_by_every_server() {
    let dir = tempfile::tempdir().unwrap();
    for (name, command) in servers(dir.path()) {
        let mut server = started(command, "2025-11-25");
        let nested = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"text_editor","arguments":{"command":"create","path":"s.txt","file_text":"\ud83d"}}}"#.to_owned(),
                "7",
                -32700,
                "unpaired UTF-16 surrogate",
            ),
            (nested, "8", -32700, "128 levels"),
            (r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"n":1e400}}}"#.to_owned(), "9", -32700, "64-bit float"),
            ("{not json".to_owned(), "null", -32700, "Parse error"),
            (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.to_owned(), "null", -32600, "not a string or an integer"),
        ];
        for (line, id, code, says) in &cases {
            server.send(line).unwrap();
            let answer = server.line(WAIT).unwrap_or_else(|e| panic!("{name}: {line}: {e}"));
            assert!(answer.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"#)), "{name}: {answer}");
            let answer = parsed(&answer);
            assert_eq!(answer["error"]["code"], *code, "{name}: {answer}");
            assert!(answer["error"]["message"].as_str().unwrap().contains(says), "{name}: {answer}");
        }
        assert!(!dir.path().join("s.txt").exists(), "{name}: nothing was created");
        // Ids of every kind come back as they were sent.
        for id in ["18446744073709551616", "1.0", "-0", r#""é-\"q\"""#, "1e2"] {
            server.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).unwrap();
            assert_eq!(server.line(WAIT).unwrap(), format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#), "{name}");
        }
        assert!(server.alive(), "{name}");
    }
}

#[test]
fn batches_are_answered_per_the_negotiated_revision_by_every_server() {
    let dir = tempfile::tempdir().unwrap();
    for (name, command) in servers(dir.path()) {
        let mut server = started(command, "2025-03-26");
        server
            .send(r#"[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":"l","method":"tools/list"}]"#)
            .unwrap();
        let batch = parsed(&server.line(WAIT).unwrap());
        let batch = batch.as_array().unwrap_or_else(|| panic!("{name}: not an array: {batch}"));
        let mut ids: Vec<String> = batch.iter().map(|m| m["id"].to_string()).collect();
        ids.sort();
        assert_eq!(ids, ["\"l\"", "6"], "{name}: {batch:?}");
        assert!(batch.iter().any(|m| m["result"]["tools"].is_array()), "{name}");
    }
    for (name, command) in servers(dir.path()) {
        let mut server = started(command, "2025-11-25");
        server.send(r#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#).unwrap();
        let answer = parsed(&server.line(WAIT).unwrap());
        assert_eq!((answer["id"].clone(), answer["error"]["code"].clone()), (Value::Null, json!(-32600)), "{name}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("2025-11-25"), "{name}: {answer}");
        assert!(server.maybe_line(Duration::from_millis(300)).is_none(), "{name}: the ping in it was not run");
    }
}

#[test]
fn a_request_before_initialize_is_told_to_initialize_first_by_every_server() {
    let dir = tempfile::tempdir().unwrap();
    for (name, command) in servers(dir.path()) {
        let mut server = RawStdio::start(command).unwrap();
        server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).unwrap();
        let answer = parsed(&server.line(WAIT).unwrap());
        assert_eq!(answer["id"], 1, "{name}");
        assert_eq!(answer["error"]["code"], -32600, "{name}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("Not initialized") && message.contains("`initialize` first"), "{name}: {message}");
        server.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).unwrap();
        assert_eq!(
            server.line(WAIT).unwrap(),
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
            "{name}: ping may come first"
        );
        server.send(&initialize("2025-11-25")).unwrap();
        assert_eq!(parsed(&server.line(WAIT).unwrap())["id"], 0, "{name}: initialize works after all that");
    }
}

#[test]
fn a_second_request_under_an_id_in_flight_is_refused_not_merged() {
    let dir = tempfile::tempdir().unwrap();
    let (_, command) = servers(dir.path()).into_iter().next().unwrap();
    let mut server = started(command, "2025-11-25");
    server
        .send(
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"countdown","arguments":{"seconds":1}}}"#,
        )
        .unwrap();
    server.send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).unwrap();
    let refused = parsed(&server.line(WAIT).unwrap());
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (json!(5), json!(-32600)), "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("already used"), "{refused}");
    // The countdown's progress notifications, then its one answer.
    loop {
        let message = parsed(&server.line(WAIT).unwrap());
        if message.get("method").is_some() {
            continue;
        }
        assert_eq!(message["id"], 5);
        assert_eq!(message["result"]["isError"], false, "{message}");
        break;
    }
    assert!(server.maybe_line(Duration::from_millis(300)).is_none(), "exactly one answer per request");
    server.send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).unwrap();
    assert_eq!(server.line(WAIT).unwrap(), r#"{"jsonrpc":"2.0","id":5,"result":{}}"#, "free again once answered");
}
