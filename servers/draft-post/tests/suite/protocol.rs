//! The server as an MCP peer: identity, instructions, the recorded `tools/list`, annotations.

use serde_json::json;

use super::Fixture;

#[test]
fn initialize_names_the_server_and_says_what_it_is_for() {
    let fx = Fixture::new();
    let mut client = fx.spawn(&[]);
    let result = client.initialize().unwrap();
    assert_eq!(result["serverInfo"]["name"], "mcp-server-draft-post");
    // A person's name for it, and where to read about it (serverInfo.title, websiteUrl).
    assert_eq!(result["serverInfo"]["title"], "mcp-suite draft-post");
    assert_eq!(
        result["serverInfo"]["websiteUrl"],
        "https://github.com/mcp-suite/mcp-suite/tree/main/servers/draft-post"
    );
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    let instructions = result["instructions"].as_str().unwrap();
    assert!(instructions.contains("draft_post") && instructions.to_lowercase().contains("same path"), "{instructions}");
    assert!(result["capabilities"]["tools"].is_object());
    assert!(!result.to_string().contains("rmcp"));
}

#[test]
fn tools_list_is_the_recorded_api() {
    let fx = Fixture::new();
    let mut client = fx.server();
    let tools = client.list_tools().unwrap();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("tools_list", tools);
    });

    let draft = tools.iter().find(|t| t["name"] == "draft_post").unwrap();
    assert_eq!(
        draft["annotations"],
        json!({"title": "Draft post", "readOnlyHint": false, "destructiveHint": false,
               "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(draft["inputSchema"]["required"], json!(["source"]));
    assert!(draft["outputSchema"]["properties"]["source_id"].is_object());
    // An update's diff and counts are optional fields of the derived output schema.
    for field in ["lines_added", "lines_removed", "diff", "diff_truncated", "warnings"] {
        assert!(draft["outputSchema"]["properties"][field].is_object(), "{field}: {}", draft["outputSchema"]);
    }

    let list = tools.iter().find(|t| t["name"] == "list_posts").unwrap();
    assert_eq!(list["annotations"]["readOnlyHint"], true);
    assert_eq!(list["annotations"]["openWorldHint"], false);
}

#[test]
fn a_missing_repository_is_refused_at_start() {
    let fx = Fixture::new();
    let mut client = mcp_tests::StdioClient::builder(super::BIN)
        .args(["--repo", fx.root().join("nope").to_str().unwrap()])
        .spawn()
        .unwrap();
    let status = client.wait().unwrap();
    assert!(!status.success());
    assert!(client.stderr_text().contains("nope"), "{}", client.stderr_text());
}

#[test]
fn stdout_carries_only_json_rpc_and_the_server_exits_when_stdin_closes() {
    let fx = Fixture::new();
    let draft = fx.draft("seed.md", "# Hi\n");
    let mut client = fx.server_with(&[]);
    client.set_timeout(std::time::Duration::from_secs(30));
    let _ = client.call_tool("draft_post", super::src(&draft)).unwrap();
    let _ = client.call_tool("list_posts", json!({})).unwrap();
    // A line that is not JSON would have failed the client already.
    let status = client.wait().unwrap();
    assert!(status.success(), "{status}");
}
