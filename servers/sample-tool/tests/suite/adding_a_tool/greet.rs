//! `greet`: says hello to someone by name.

use std::borrow::Cow;

use mcp_shared::{Tool, ToolContext, ToolOutput, ToolResult, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

/// The input of `greet`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct GreetInput {
    /// Who to greet (1-100 characters).
    #[garde(length(min = 1, max = 100))]
    pub name: String,
}

/// The tool.
pub struct Greet;

impl Tool for Greet {
    type Params = GreetInput;

    fn name(&self) -> Cow<'static, str> {
        "greet".into()
    }

    fn description(&self) -> Cow<'static, str> {
        "Greets someone by name.".into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Greet").read_only(true).idempotent(true).open_world(false)
    }

    async fn run(&self, input: GreetInput, _ctx: ToolContext) -> ToolResult {
        Ok(ToolOutput::text(format!("Hello, {}!", input.name)))
    }
}
