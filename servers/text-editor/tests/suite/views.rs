//! The MCP Apps change view through the real binary: the writing tools name it, `resources/read`
//! serves it, results carry its data in `_meta` while the text the model reads is the same for a
//! client that declares the extension and one that does not; `--no-views` leaves it all out; and
//! `if_sha256` refuses a write to a file changed since it was read, writing nothing.

use mcp_tests::StdioClient;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{BIN, Server, TOOL, first_text};

const VIEW: &str = "ui://text-editor/change";
const DATA: &str = "mcp-suite/view";

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Calls the view's `{name, arguments}` as the host does.
fn call_from_view(s: &mut Server, call: &Value) -> Value {
    s.client.call_tool(call["name"].as_str().unwrap(), call["arguments"].clone()).unwrap()
}

#[test]
fn the_writing_tools_name_the_change_view_and_it_is_served() {
    let mut s = Server::start();
    let tools = s.client.list_tools().unwrap();
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let named = tool["_meta"]["ui"]["resourceUri"].as_str();
        let writes = ["text_editor", "edit_file", "move_file", "delete_file"].contains(&name);
        let changes = ["list_changes", "revert_changes"].contains(&name);
        let expected = if changes { Some("ui://text-editor/changes") } else { writes.then_some(VIEW) };
        assert_eq!(named, expected, "{name}");
    }
    // Found through the tools and read by URI; not offered in resources/list (a host would show
    // it to the user as something to attach).
    let listed = s.client.request("resources/list", json!({})).unwrap();
    assert_eq!(listed["result"]["resources"], json!([]), "{listed}");
    let read = s.client.request("resources/read", json!({"uri": VIEW})).unwrap();
    let content = &read["result"]["contents"][0];
    assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
    let html = content["text"].as_str().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.len() <= 150 * 1024, "{} bytes", html.len());
    assert!(!html.contains("http://") && !html.contains("https://"), "no outside origin");
}

#[test]
fn the_model_reads_the_same_text_with_or_without_the_extension() {
    let mut plain = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut apps = StdioClient::spawn(BIN, &["--root", root.to_str().unwrap()]).unwrap();
    let mut params = StdioClient::default_initialize_params();
    params["capabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    let info = apps.initialize_with(params).unwrap();
    assert!(info["capabilities"]["extensions"]["io.modelcontextprotocol/ui"].is_object(), "{info}");
    let steps = |root: &str| {
        vec![
            (TOOL, json!({"command": "create", "path": format!("{root}/a.txt"), "file_text": "one\r\ntwo\r\n"})),
            (
                TOOL,
                json!({"command": "str_replace", "path": format!("{root}/a.txt"), "old_str": "two", "new_str": "2"}),
            ),
            (TOOL, json!({"command": "insert", "path": format!("{root}/a.txt"), "insert_line": 0, "new_str": "zero"})),
            (TOOL, json!({"command": "undo_edit", "path": format!("{root}/a.txt")})),
            (
                "edit_file",
                json!({"path": format!("{root}/a.txt"), "edits": [{"old_str": "one", "new_str": "1"}], "dry_run": true}),
            ),
            ("edit_file", json!({"path": format!("{root}/a.txt"), "edits": [{"old_str": "one", "new_str": "1"}]})),
            ("move_file", json!({"source": format!("{root}/a.txt"), "destination": format!("{root}/b.txt")})),
            ("delete_file", json!({"path": format!("{root}/b.txt")})),
        ]
    };
    let (plain_root, apps_root) = (plain.path(""), root.display().to_string());
    for ((tool, a), (_, b)) in steps(&plain_root).into_iter().zip(steps(&apps_root)) {
        let (x, y) = (plain.client.call_tool(tool, a).unwrap(), apps.call_tool(tool, b).unwrap());
        let text = |r: &Value, root: &str| first_text(r).replace(root, "ROOT");
        assert_eq!(text(&x, &plain_root), text(&y, &apps_root), "{tool}");
        assert_eq!(x["content"].as_array().unwrap().len(), y["content"].as_array().unwrap().len(), "{tool}");
        assert!(y["_meta"][DATA]["action"].is_string(), "{tool}: {y}");
    }
}

#[test]
fn a_change_carries_its_diff_hash_and_undo_and_the_reference_text_is_unchanged() {
    let mut s = Server::start();
    s.write("n.txt", "alpha\r\nbeta\r\n");
    let path = s.path("n.txt");
    let result = s.call(json!({"command": "str_replace", "path": path, "old_str": "beta", "new_str": "BETA"}));
    assert!(
        first_text(&result)
            .starts_with(&format!("The file {path} has been edited. Here's the result of running `cat -n`"))
    );
    let data = &result["_meta"][DATA];
    assert_eq!(data["action"], "edited");
    assert_eq!(data["lineEndings"], "CRLF");
    assert_eq!(data["sha256"], sha256(b"alpha\r\nBETA\r\n").as_str());
    assert!(data["diff"].as_str().unwrap().contains("-beta\r\n+BETA\r\n"), "{data}");
    assert_eq!(data["undo"]["arguments"]["command"], "undo_edit");
    // The Undo the view sends reverts exactly this change.
    let undo = data["undo"].clone();
    let undone = call_from_view(&mut s, &undo);
    assert!(!mcp_tests::is_error(&undone), "{undone}");
    assert_eq!(s.read_string("n.txt"), "alpha\r\nbeta\r\n");
}

#[test]
fn if_sha256_refuses_a_write_to_a_changed_file_and_writes_nothing() {
    let mut s = Server::start();
    s.write("f.txt", "one\ntwo\n");
    let path = s.path("f.txt");
    let stale = sha256(b"something else\n");
    let fresh = sha256(b"one\ntwo\n");
    for (tool, args) in [
        (TOOL, json!({"command": "str_replace", "path": path, "old_str": "one", "new_str": "1", "if_sha256": stale})),
        (TOOL, json!({"command": "insert", "path": path, "insert_line": 0, "new_str": "zero", "if_sha256": stale})),
        ("edit_file", json!({"path": path, "edits": [{"old_str": "one", "new_str": "1"}], "if_sha256": stale})),
        ("move_file", json!({"source": path, "destination": s.path("g.txt"), "if_sha256": stale})),
        ("delete_file", json!({"path": path, "if_sha256": stale})),
        (TOOL, json!({"command": "view", "path": path, "if_sha256": stale})),
        (TOOL, json!({"command": "create", "path": s.path("new.txt"), "file_text": "x", "if_sha256": fresh})),
    ] {
        let result = s.client.call_tool(tool, args.clone()).unwrap();
        assert_eq!(mcp_tests::error_code(&result).as_deref(), Some("CONFLICT"), "{args}: {result}");
        assert!(first_text(&result).starts_with("No change was made: "), "{result}");
        assert_eq!(s.read_string("f.txt"), "one\ntwo\n", "{args}");
    }
    assert!(!s.root.join("g.txt").exists() && !s.root.join("new.txt").exists());
    let bad = s.client.call_tool(TOOL, json!({"command": "view", "path": path, "if_sha256": "xyz"})).unwrap();
    assert_eq!(mcp_tests::error_code(&bad).as_deref(), Some("INVALID_ARGS"), "{bad}");
    // The right hash (any case) lets the write through.
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "one", "new_str": "1", "if_sha256": fresh.to_uppercase()}));
    assert_eq!(s.read_string("f.txt"), "1\ntwo\n");
    // A dry run's hash is the file's as previewed: its edits apply while the file is unchanged.
    let preview = s
        .client
        .call_tool("edit_file", json!({"path": path, "edits": [{"old_str": "two", "new_str": "2"}], "dry_run": true}))
        .unwrap();
    let apply = preview["_meta"][DATA]["apply"].clone();
    assert_eq!(apply["arguments"]["if_sha256"], sha256(b"1\ntwo\n").as_str());
    let applied = call_from_view(&mut s, &apply);
    assert!(!mcp_tests::is_error(&applied), "{applied}");
    assert_eq!(s.read_string("f.txt"), "1\n2\n");
}

#[test]
fn no_views_leaves_the_extension_out() {
    let mut s = Server::with_args(&["--no-views"]);
    let tools = s.client.list_tools().unwrap();
    assert!(
        tools.iter().all(|t| t.get("_meta").is_none_or(|m| m.get("ui").is_none() && m.get("ui/resourceUri").is_none())),
        "{tools:?}"
    );
    let listed = s.client.request("resources/list", json!({})).unwrap();
    assert!(listed.get("error").is_some() || listed["result"]["resources"].as_array().unwrap().is_empty(), "{listed}");
    let read = s.client.request("resources/read", json!({"uri": VIEW})).unwrap();
    assert!(read.get("error").is_some(), "{read}");
    let path = s.path("c.txt");
    let result = s.call(json!({"command": "create", "path": path, "file_text": "x\n"}));
    assert!(result.get("_meta").is_none_or(|m| m.get(DATA).is_none()), "{result}");
}

#[test]
fn undo_from_a_view_reverts_that_change_or_nothing_even_when_the_content_came_back() {
    let mut s = Server::start();
    s.write("g.txt", "alpha\n");
    let path = s.path("g.txt");
    // View 1: alpha -> beta. Then beta -> gamma and gamma -> beta: the file has view 1's content
    // again, but its latest change is another one.
    let first = s.call(json!({"command": "str_replace", "path": path, "old_str": "alpha", "new_str": "beta"}));
    let view1 = first["_meta"][DATA].clone();
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "beta", "new_str": "gamma"}));
    let third = s.call(json!({"command": "str_replace", "path": path, "old_str": "gamma", "new_str": "beta"}));
    let view3 = third["_meta"][DATA].clone();
    assert_ne!(view1["change"], view3["change"], "each change has its own id");
    for call in [&view1["check"]["call"], &view1["undo"]] {
        let refused = call_from_view(&mut s, call);
        assert_eq!(mcp_tests::error_code(&refused).as_deref(), Some("CONFLICT"), "{call}: {refused}");
        assert!(first_text(&refused).contains("no longer the latest change"), "{refused}");
        assert_eq!(s.read_string("g.txt"), "beta\n", "nothing was undone");
    }
    // The latest view's check passes and its Undo reverts exactly its change.
    assert!(!mcp_tests::is_error(&call_from_view(&mut s, &view3["check"]["call"])));
    let undone = call_from_view(&mut s, &view3["undo"]);
    assert!(!mcp_tests::is_error(&undone), "{undone}");
    assert_eq!(s.read_string("g.txt"), "gamma\n");
    // Undone once: the same Undo again is refused, and says why.
    let again = call_from_view(&mut s, &view3["undo"]);
    assert_eq!(mcp_tests::error_code(&again).as_deref(), Some("CONFLICT"), "{again}");
    assert_eq!(s.read_string("g.txt"), "gamma\n");
    // A deleted file: its view's Undo restores it, once.
    let deleted = s.client.call_tool("delete_file", json!({"path": path})).unwrap();
    let view = deleted["_meta"][DATA].clone();
    assert!(!mcp_tests::is_error(&call_from_view(&mut s, &view["check"]["call"])), "{view}");
    assert!(!mcp_tests::is_error(&call_from_view(&mut s, &view["undo"])));
    assert_eq!(s.read_string("g.txt"), "gamma\n");
    // A made-up id is refused.
    let forged = s.client.call_tool(TOOL, json!({"command": "undo_edit", "path": path, "if_change": "0-0"})).unwrap();
    assert_eq!(mcp_tests::error_code(&forged).as_deref(), Some("CONFLICT"), "{forged}");
}

#[test]
fn apply_from_a_preview_writes_what_it_showed_or_nothing() {
    let mut s = Server::start();
    s.write("p.txt", "one\ntwo\n");
    let path = s.path("p.txt");
    let edits = json!([{"old_str": "two", "new_str": "2"}]);
    let preview = s.client.call_tool("edit_file", json!({"path": path, "edits": edits, "dry_run": true})).unwrap();
    let apply = preview["_meta"][DATA]["apply"].clone();
    assert_eq!(apply["arguments"]["if_result_sha256"], sha256(b"one\n2\n").as_str());
    // The same edits with another result hash: refused, nothing written.
    let mut other = apply.clone();
    other["arguments"]["if_result_sha256"] = json!(sha256(b"something else"));
    let refused = call_from_view(&mut s, &other);
    assert_eq!(mcp_tests::error_code(&refused).as_deref(), Some("CONFLICT"), "{refused}");
    assert!(first_text(&refused).contains("if_result_sha256"), "{refused}");
    other["arguments"]["if_result_sha256"] = json!("not-a-hash");
    assert_eq!(mcp_tests::error_code(&call_from_view(&mut s, &other)).as_deref(), Some("INVALID_ARGS"));
    assert_eq!(s.read_string("p.txt"), "one\ntwo\n");
    // The file moved since the preview: refused.
    s.write("p.txt", "one\ntwo\nthree\n");
    assert_eq!(mcp_tests::error_code(&call_from_view(&mut s, &apply)).as_deref(), Some("CONFLICT"));
    assert_eq!(s.read_string("p.txt"), "one\ntwo\nthree\n");
    s.write("p.txt", "one\ntwo\n");
    assert!(!mcp_tests::is_error(&call_from_view(&mut s, &apply)));
    assert_eq!(s.read_string("p.txt"), "one\n2\n");
}

#[test]
fn a_dry_run_too_large_to_show_offers_no_apply() {
    let mut s = Server::start();
    let big = format!("head\n{}", "x\n".repeat(2_200_000));
    s.write("big.txt", &big);
    let path = s.path("big.txt");
    let preview = s
        .client
        .call_tool(
            "edit_file",
            json!({"path": path, "edits": [{"old_str": "head", "new_str": "HEAD"}], "dry_run": true}),
        )
        .unwrap();
    let data = &preview["_meta"][DATA];
    assert_eq!(data["note"], "The file is too large to show its change here.", "{data}");
    assert!(data.get("apply").is_none(), "{data}");
    assert!(data["applyUnavailable"].as_str().unwrap().contains("too large to show"));
}

/// The rows the change view shows a diff as, applied to `old` by the view's own script
/// (`shared/tests/view_rows.mjs`, over `ui.rows` of `view.js`): `None` where a row disagrees
/// with `old`.
fn shown_applied(diff: &str, old: &str) -> Option<String> {
    use std::io::Write as _;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/tests/view_rows.mjs");
    let mut child = std::process::Command::new("node")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("Node.js (`node` on PATH) runs the view's script for this test");
    let input = json!([{"diff": diff, "old": old}]).to_string();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "view_rows.mjs failed");
    let answers: Value = serde_json::from_slice(&out.stdout).unwrap();
    answers[0]["applied"].as_str().map(str::to_owned)
}

fn hostile_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c ]{0,4}",
        Just("-- keep backups".to_owned()),
        Just("++ DROP TABLE t;".to_owned()),
        Just("--- a/x".to_owned()),
        Just("+++ b/x".to_owned()),
        Just("@@ -1 +1 @@".to_owned()),
        Just("\\ No newline at end of file".to_owned()),
        Just("a\rb".to_owned()),
        Just("\u{202e}x".to_owned()),
        "[x]{300,500}",
    ]
}

fn hostile_text() -> impl Strategy<Value = String> {
    (proptest::collection::vec(hostile_line(), 1..10), any::<bool>()).prop_map(|(lines, last)| {
        let mut text = lines.join("\n");
        if last {
            text.push('\n');
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// What the change view shows of a dry run is what its Apply writes: the view's rows applied
    /// to the file as it was give, byte for byte, the file Apply wrote.
    #[test]
    fn the_diff_a_preview_shows_applied_to_the_old_text_is_what_apply_writes(old in hostile_text(), new in hostile_text()) {
        prop_assume!(!old.is_empty() && old != new);
        let mut s = Server::start();
        s.write("f.txt", &old);
        let path = s.path("f.txt");
        let preview = s.client.call_tool("edit_file", json!({"path": path, "edits": [{"old_str": old, "new_str": new}], "dry_run": true})).unwrap();
        prop_assert!(!mcp_tests::is_error(&preview), "{}", preview);
        let data = preview["_meta"][DATA].clone();
        prop_assume!(data["truncated"] == false && data["apply"].is_object());
        let shown = shown_applied(data["diff"].as_str().unwrap(), &old);
        let applied = call_from_view(&mut s, &data["apply"]);
        prop_assert!(!mcp_tests::is_error(&applied), "{}", applied);
        let written = s.read_string("f.txt");
        prop_assert_eq!(shown.as_deref(), Some(written.as_str()), "{}", data["diff"]);
    }
}
