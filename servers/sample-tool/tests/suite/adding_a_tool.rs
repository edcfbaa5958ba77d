//! docs/adding-a-tool.md's example, compiled: the code between the two marker lines below is
//! the document's `rust` block (its indent removed), byte for byte, so the tutorial cannot rot
//! without this test failing; the tool is then registered and called as a server would.

use std::borrow::Cow;

use garde::Validate as _;
use mcp_shared::{Tool, ToolContext, ToolOutput, ToolRegistry, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

// ---- the example of docs/adding-a-tool.md ----
/// The input of `greet`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct GreetInput {
    /// Who to greet (1-100 characters).
    #[garde(length(min = 1, max = 100))]
    pub name: String,
}

pub struct Greet;

impl Tool for Greet {
    type Params = GreetInput;
    fn name(&self) -> Cow<'static, str> {
        "greet".into()
    }
    fn title(&self) -> Cow<'static, str> {
        "Greet".into()
    }
    fn description(&self) -> Cow<'static, str> {
        "Greets someone by name.".into()
    }
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::new().read_only(true).idempotent(true).open_world(false)
    }
    async fn run(&self, input: GreetInput, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::text(format!("Hello, {}!", input.name))
    }
}
// ---- end of the example ----

/// The document's `rust` block, its list-item indent removed.
fn documented() -> String {
    let doc = include_str!("../../../../docs/adding-a-tool.md");
    let block = doc.split("   ```rust\n").nth(1).unwrap().split("   ```").next().unwrap();
    block.lines().map(|l| format!("{}\n", l.strip_prefix("   ").unwrap_or(l.trim_start()))).collect()
}

#[test]
fn the_documented_example_is_the_compiled_one() {
    let this = include_str!("adding_a_tool.rs");
    let compiled = this
        .split("// ---- the example of docs/adding-a-tool.md ----\n")
        .nth(1)
        .unwrap()
        .split("// ---- end of the example ----")
        .next()
        .unwrap();
    assert_eq!(documented(), compiled, "docs/adding-a-tool.md and this file must hold the same example");
}

#[test]
fn the_documented_tool_registers_and_its_input_is_checked() {
    let mut registry = ToolRegistry::new();
    registry.register(Greet).unwrap();
    assert!(registry.names().contains(&"greet"), "{:?}", registry.names());
    assert!(GreetInput { name: "Ada".into() }.validate().is_ok());
    assert!(GreetInput { name: String::new() }.validate().is_err(), "the garde bound of the example holds");
    assert_eq!(Greet.title(), "Greet");
}

#[tokio::test]
async fn the_documented_tool_answers() {
    let output = Greet.run(GreetInput { name: "Ada".into() }, ToolContext::detached()).await;
    assert_eq!(serde_json::to_value(output.into_call_tool_result()).unwrap()["content"][0]["text"], "Hello, Ada!");
}
