//! The MCP side on its own: `initialize` and `tools/list` answered with the host down, the
//! recorded tools API, argument validation, and `UNAVAILABLE` while no host runs.

use mcp_tests::{is_error, text_of};
use serde_json::json;

use super::{Env, code};

#[test]
fn initialize_and_tools_list_work_with_no_host_at_all() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge_builder(&ws, &[]).spawn().unwrap();
    let init = bridge.initialize().unwrap();
    assert_eq!(init["serverInfo"]["name"], "mcp-server-ide-bridge");
    // A person's name for it, and where to read about it (serverInfo.title, websiteUrl).
    assert_eq!(init["serverInfo"]["title"], "IDE workspace bridge");
    assert_eq!(init["serverInfo"]["websiteUrl"], "https://github.com/mcp-suite/mcp-suite/tree/main/servers/ide-bridge");
    assert!(init["capabilities"]["tools"].is_object());
    assert!(init["capabilities"]["resources"].is_object());
    assert!(init["instructions"].as_str().unwrap().contains("list_files"));
    let tools = bridge.list_tools().unwrap();
    let names: Vec<_> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "list_files",
            "read_file",
            "write_file",
            "get_diagnostics",
            "get_open_editors",
            "get_selection",
            "open_file",
            "save_file",
            "find_definition",
            "find_references",
            "describe_symbol",
            "list_symbols",
            "rename_symbol",
            "find_implementations",
            "call_hierarchy",
            "type_hierarchy",
            "signature_help",
            "code_actions",
            "apply_code_action",
            "format",
            "open_diff",
            "close_diffs",
            "ide_status"
        ]
    );
    assert_eq!(init["capabilities"]["resources"]["subscribe"], true);
}

#[test]
fn tools_list_is_the_recorded_api() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let tools = bridge.list_tools().unwrap();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("tools_list", tools);
    });
    let annotations = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["annotations"].clone();
    for read_only in ["list_files", "read_file"] {
        assert_eq!(annotations(read_only)["readOnlyHint"], true, "{read_only}");
        assert_eq!(annotations(read_only)["openWorldHint"], false, "{read_only}");
    }
    assert_eq!(annotations("write_file")["readOnlyHint"], false);
    assert_eq!(annotations("write_file")["destructiveHint"], true);
}

#[test]
fn calls_with_no_host_are_unavailable_with_a_next_step() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "a")]);
    let mut bridge = env.bridge(&ws, &[]);
    for (tool, args) in [
        ("list_files", json!({"recursive": true})),
        ("read_file", json!({"path": "a.txt"})),
        ("write_file", json!({"path": "b.txt", "content": "b"})),
    ] {
        let result = bridge.call_tool(tool, args).unwrap();
        assert_eq!(code(&result), "UNAVAILABLE", "{tool}: {result}");
        let text = text_of(&result);
        assert!(text.contains("retry") && text.contains("ide-bridge-host"), "{text}");
    }
    assert!(!ws.join("b.txt").exists());
    let mut by_url = env.bridge(&ws, &["--url", "ws://127.0.0.1:9", "--token", "x"]);
    let result = by_url.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(code(&result), "UNAVAILABLE");
    assert!(text_of(&result).contains("ws://127.0.0.1:9"), "{}", text_of(&result));
}

#[test]
fn bad_arguments_are_invalid_args_naming_the_field() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    for (tool, args, field) in [
        ("read_file", json!({}), "path"),
        ("read_file", json!({"path": 5}), "path"),
        ("read_file", json!({"path": ""}), "path"),
        ("write_file", json!({"path": "a.txt"}), "content"),
        ("list_files", json!({"recursive": "yes"}), "recursive"),
        ("list_files", json!({"recursive": true, "depth": 3}), "depth"),
    ] {
        let result = bridge.call_tool(tool, args.clone()).unwrap();
        assert!(is_error(&result), "{tool} {args}");
        assert_eq!(code(&result), "INVALID_ARGS", "{tool} {args}: {result}");
        assert!(text_of(&result).contains(field), "{tool} {args}: {}", text_of(&result));
    }
    assert!(!ws.join("a.txt").exists());
    drop(host);
}

#[test]
fn unknown_tools_are_a_json_rpc_error_and_the_bridge_keeps_serving() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let response = bridge.request("tools/call", json!({"name": "run_command", "arguments": {}})).unwrap();
    assert_eq!(response["error"]["code"], -32602);
    bridge.send_raw("{not json").unwrap();
    assert_eq!(bridge.request("ping", json!({})).unwrap()["result"], json!({}));
}

#[test]
fn the_bridge_exits_when_stdin_closes() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    bridge.call_tool("list_files", json!({})).unwrap();
    assert!(bridge.wait().unwrap().success());
}
