//! docs/adding-a-tool.md's example, compiled: `greet.rs` here is the document's first
//! `rust` block and the `tools!` line below its second, byte for byte, so the tutorial cannot rot
//! without this test failing; the tool is then registered through that line and called as a
//! server would.

use garde::Validate as _;
use mcp_shared::{McpServer, ServerIdentity, Tool, ToolContext};

mcp_shared::tools! {
    fn all(_unused: &()) {
        // ---- the line of docs/adding-a-tool.md ----
        greet => greet::Greet,
    }
}

/// The document's `rust` blocks, their list-item indent removed.
fn documented() -> Vec<String> {
    let doc = include_str!("../../../../../docs/adding-a-tool.md");
    doc.split("   ```rust\n")
        .skip(1)
        .map(|rest| {
            let block = rest.split("   ```").next().unwrap();
            block.lines().map(|l| format!("{}\n", l.strip_prefix("   ").unwrap_or(l.trim_start()))).collect()
        })
        .collect()
}

#[test]
fn the_documented_example_is_the_compiled_one() {
    let blocks = documented();
    assert_eq!(blocks.len(), 2, "docs/adding-a-tool.md holds the tool's file and its line");
    assert_eq!(blocks[0], include_str!("greet.rs"), "docs/adding-a-tool.md and greet.rs must match");
    let line = include_str!("mod.rs")
        .split("// ---- the line of docs/adding-a-tool.md ----\n")
        .nth(1)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .trim();
    assert_eq!(blocks[1].trim(), line, "docs/adding-a-tool.md and the tools! line must match");
}

#[test]
fn the_documented_line_registers_the_tool_and_names_it() {
    let registry = all(&(), |_| true).unwrap();
    assert_eq!(registry.names(), ["greet"]);
    assert_eq!(NAMES, ["greet"], "--tools takes the module's name");
    let listed = serde_json::to_value(registry.list()).unwrap();
    assert_eq!(listed[0]["title"], "Greet");
    assert_eq!(listed[0]["annotations"]["readOnlyHint"], true);
    assert!(greet::GreetInput { name: "Ada".into() }.validate().is_ok());
    assert!(greet::GreetInput { name: String::new() }.validate().is_err(), "the garde bound of the example holds");
}

#[tokio::test]
async fn the_documented_tool_answers_through_a_server() {
    let identity = ServerIdentity {
        name: "greeter".into(),
        version: "0".into(),
        title: None,
        website_url: None,
        instructions: String::new(),
    };
    let server = McpServer::new(identity, all(&(), |_| true).unwrap());
    let arguments = serde_json::json!({"name": "Ada"}).as_object().cloned();
    let output = server.call("greet", arguments, ToolContext::detached()).await.unwrap();
    assert_eq!(serde_json::to_value(output.into_call_tool_result()).unwrap()["content"][0]["text"], "Hello, Ada!");
    let refused = server.call("greet", serde_json::json!({"name": ""}).as_object().cloned(), ToolContext::detached());
    assert!(refused.await.unwrap().is_error(), "an empty name is INVALID_ARGS");
    let direct = greet::Greet.run(greet::GreetInput { name: "Bo".into() }, ToolContext::detached()).await.unwrap();
    assert!(!direct.is_error());
}

#[test]
fn the_documented_view_lines_are_hoges() {
    let doc = include_str!("../../../../../docs/adding-a-tool.md");
    let section = doc.split("## Giving a tool a view").nth(1).unwrap();
    let hoge = include_str!("../../../src/tools/hoge.rs");
    let blocks: Vec<&str> = section.split("```rust\n").skip(1).map(|rest| rest.split("```").next().unwrap()).collect();
    assert_eq!(blocks.len(), 2, "the static and the fn");
    for block in blocks {
        assert!(hoge.contains(block), "docs/adding-a-tool.md shows lines tools/hoge.rs does not hold:\n{block}");
    }
}
