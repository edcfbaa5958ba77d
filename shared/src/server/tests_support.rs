//! A tool for the shared crate's tests: `echo {text}` answers the text.

use std::borrow::Cow;

use rmcp::model::ToolAnnotations;

use crate::{
    output::ToolOutput,
    registry::{Tool, ToolContext, ToolResult},
};

/// The input of `echo`.
#[derive(serde::Deserialize, schemars::JsonSchema, garde::Validate)]
pub(crate) struct EchoParams {
    /// The text to answer.
    #[garde(length(min = 1))]
    text: String,
}

/// `echo`.
pub(crate) struct Echo;

impl Tool for Echo {
    type Params = EchoParams;

    fn name(&self) -> Cow<'static, str> {
        "echo".into()
    }

    fn description(&self) -> Cow<'static, str> {
        "Answers the text.".into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Echo").read_only(true)
    }

    async fn run(&self, params: EchoParams, _ctx: ToolContext) -> ToolResult {
        Ok(ToolOutput::text(params.text))
    }
}
