//! The MCP surface: initialize, the recorded `tools/list`, the guide prompt, `--tool-name`,
//! and the parameters existing clients send (`description`, `insert_text`, nulls).

use mcp_tests::StdioClient;
use serde_json::{Value, json};

use super::{BIN, Server, TOOL, spawn_on};

#[test]
fn initialize_names_the_server_and_gives_short_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = StdioClient::spawn(BIN, &["--root", dir.path().to_str().unwrap()]).unwrap();
    let result = client.initialize().unwrap();
    assert_eq!(result["serverInfo"]["name"], "mcp-server-text-editor");
    // A person's name for it, and where to read about it (serverInfo.title, websiteUrl).
    assert_eq!(result["serverInfo"]["title"], "Text editor (Claude's text editor tool)");
    assert_eq!(
        result["serverInfo"]["websiteUrl"],
        "https://github.com/mcp-suite/mcp-suite/tree/main/servers/text-editor"
    );
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    let instructions = result["instructions"].as_str().unwrap();
    for word in ["view", "create", "str_replace", "insert", "undo_edit", "text_editor_guide"] {
        assert!(instructions.contains(word), "{word} missing from {instructions}");
    }
    assert!(instructions.contains(&dir.path().canonicalize().unwrap().display().to_string()));
    assert!(result["capabilities"]["tools"].is_object());
    assert!(result["capabilities"]["prompts"].is_object());
    assert!(!result.to_string().contains("rmcp"));
}

#[test]
fn tools_list_is_the_recorded_api() {
    let mut s = Server::start();
    let tools = s.client.list_tools().unwrap();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("tools_list", tools);
    });
    assert_eq!(
        tools.len(),
        10,
        "text_editor, search_text, find_files, move_file, delete_file, edit_file, read_files, list_tree, list_changes, revert_changes"
    );
    let tool = &tools[0];
    assert_eq!(tool["name"], TOOL);
    assert_eq!(tool["annotations"]["readOnlyHint"], false);
    assert_eq!(tool["annotations"]["destructiveHint"], true);
    assert_eq!(tool["annotations"]["idempotentHint"], false);
    assert_eq!(tool["annotations"]["openWorldHint"], false);
    let schema = &tool["inputSchema"];
    assert_eq!(schema["required"], json!(["command", "path"]));
    assert_eq!(
        schema["properties"]["command"]["enum"],
        json!(["view", "create", "str_replace", "insert", "undo_edit"])
    );
    for field in ["path", "file_text", "insert_line", "new_str", "insert_text", "old_str", "view_range", "description"]
    {
        assert!(schema["properties"][field]["description"].is_string(), "{field} has no description");
    }
}

#[test]
fn the_tool_name_is_configurable() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = spawn_on(dir.path(), &["--tool-name", "str_replace_based_edit_tool"]);
    let tools = client.list_tools().unwrap();
    assert_eq!(tools[0]["name"], "str_replace_based_edit_tool");
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    let result = client
        .call_tool("str_replace_based_edit_tool", json!({"command": "view", "path": dir.path().join("a.txt")}))
        .unwrap();
    assert!(!mcp_tests::is_error(&result), "{result}");
    let result = client.call_tool("str_replace_based_edit_tool", json!({"command": "nope", "path": "a.txt"})).unwrap();
    assert_eq!(
        mcp_tests::text_of(&result),
        "Unrecognized command nope. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert, undo_edit"
    );
    assert_eq!(mcp_tests::error_code(&result).as_deref(), Some("UNKNOWN_ACTION"));
    // the old name is unknown: a JSON-RPC error
    assert!(client.call_tool(TOOL, json!({"command": "view", "path": "a.txt"})).is_err());
    // an invalid name does not start
    let out = std::process::Command::new(BIN)
        .args(["--root", dir.path().to_str().unwrap(), "--tool-name", "bad name"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
}

#[test]
fn the_guide_is_a_prompt() {
    let mut s = Server::start();
    let list = s.client.request("prompts/list", json!({})).unwrap();
    let prompts = list["result"]["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0]["name"], "text_editor_guide");
    let got = s.client.request("prompts/get", json!({"name": "text_editor_guide"})).unwrap();
    let text = got["result"]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.starts_with("## Text Editor Tool\n"), "{text}");
    for part in [
        "#### 1. view",
        "#### 2. create",
        "#### 3. str_replace",
        "#### 4. insert",
        "#### 5. undo_edit",
        "git push origin <branch_name>",
        "git rebase --continue",
    ] {
        assert!(text.contains(part), "{part} missing");
    }
    assert!(text.contains(&format!("\"path\": \"{}/src/main.py\"", s.root.display())));
    assert!(text.contains("(`text_editor`)"));
    let unknown = s.client.request("prompts/get", json!({"name": "nope"})).unwrap();
    assert!(unknown.get("error").is_some(), "{unknown}");
}

#[test]
fn description_is_accepted_and_ignored_and_insert_text_is_new_str() {
    let mut s = Server::start();
    s.write("a.txt", "one\ntwo\n");
    let path = s.path("a.txt");
    s.ok(json!({"command": "view", "path": path, "description": "look at the file"}));
    s.ok(json!({"command": "insert", "path": path, "insert_line": 1, "insert_text": "inserted", "description": "x"}));
    assert_eq!(s.read_string("a.txt"), "one\ninserted\ntwo\n");
    // nulls count as absent, unknown fields are ignored
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "two", "new_str": "2", "view_range": null, "file_text": null, "extra": 1}));
    assert_eq!(s.read_string("a.txt"), "one\ninserted\n2\n");
}

#[test]
fn wrong_argument_types_are_invalid_args_naming_the_field() {
    let mut s = Server::start();
    for (args, field) in [
        (json!({"path": "a"}), "command"),
        (json!({"command": "view"}), "path"),
        (json!({"command": "create", "path": "a", "file_text": 5}), "file_text"),
        (json!({"command": "str_replace", "path": "a", "old_str": ["x"]}), "old_str"),
    ] {
        let r = s.call(args.clone());
        assert_eq!(mcp_tests::error_code(&r).as_deref(), Some("INVALID_ARGS"), "{args}: {r}");
        assert!(mcp_tests::text_of(&r).contains(field), "{args}: {r}");
    }
    assert!(!s.root.join("a").exists());
}

#[test]
fn the_server_keeps_serving_and_exits_when_stdin_closes() {
    let mut s = Server::start();
    for _ in 0..3 {
        let r: Value = s.call(json!({"command": "view", "path": "/nonexistent/../../x"}));
        assert!(mcp_tests::is_error(&r));
    }
    s.ok(json!({"command": "view", "path": "."}));
    let status = s.client.wait().unwrap();
    assert!(status.success(), "{status}");
}
