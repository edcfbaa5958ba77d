//! `countdown {seconds}`: the template of a long-running tool. It sends a progress notification
//! each second (when the client asked with `_meta.progressToken`), stops at once when the call
//! is cancelled, and is cut by `--tool-timeout` like any tool.

use std::{borrow::Cow, time::Duration};

use mcp_shared::{Tool, ToolContext, ToolError, ToolOutput, ToolResult, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The input of `countdown`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct CountdownInput {
    /// How many seconds to count down, 1 to 3600.
    #[garde(range(min = 1, max = 3600))]
    pub seconds: u32,
}

/// Counts down, reporting progress.
pub struct Countdown;

impl Tool for Countdown {
    type Params = CountdownInput;

    fn name(&self) -> Cow<'static, str> {
        "countdown".into()
    }

    fn description(&self) -> Cow<'static, str> {
        "Waits `seconds` seconds (1-3600), sending a progress notification each second when the \
         request carries _meta.progressToken. Shows how a long tool reports progress, stops on \
         cancellation and is cut by the server's --tool-timeout."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Countdown").read_only(true).destructive(false).idempotent(true).open_world(false)
    }

    async fn run(&self, input: CountdownInput, ctx: ToolContext) -> ToolResult {
        let total = f64::from(input.seconds);
        let mut ticker = tokio::time::interval(Duration::from_secs(1));
        ticker.tick().await; // the first tick is immediate
        for done in 1..=input.seconds {
            tokio::select! {
                _ = ticker.tick() => {}
                () = ctx.cancellation().cancelled() => {
                    return Err(ToolError::new(mcp_shared::ErrorCode::Cancelled, "countdown cancelled"));
                }
            }
            let left = input.seconds - done;
            ctx.progress(f64::from(done), Some(total), Some(format!("{left} s left"))).await;
        }
        Ok(ToolOutput::text_and_json(
            format!("Countdown of {} s finished.", input.seconds),
            json!({"seconds": input.seconds}),
        ))
    }
}

#[cfg(test)]
mod tests {
    use mcp_shared::{ErrorCode, reexports::rmcp::model::JsonObject};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn finishes_after_the_given_seconds() {
        let out = Countdown.run(CountdownInput { seconds: 3 }, ToolContext::detached()).await;
        assert!(out.is_ok_and(|out| !out.is_error()));
    }

    #[tokio::test(start_paused = true)]
    async fn stops_when_cancelled() {
        let ctx = ToolContext::detached();
        ctx.cancellation().cancel();
        let out = Countdown.run(CountdownInput { seconds: 3600 }, ctx).await;
        assert_eq!(out.err().map(|e| e.code), Some(ErrorCode::Cancelled));
    }

    #[test]
    fn validates_seconds() {
        let args = |v: serde_json::Value| v.as_object().cloned();
        let bad: Option<JsonObject> = args(json!({"seconds": 0}));
        assert!(Countdown.parse(bad).is_err());
        assert!(Countdown.parse(args(json!({"seconds": 5000}))).is_err());
        assert!(Countdown.parse(args(json!({"seconds": "5"}))).is_err());
        assert!(Countdown.parse(args(json!({"seconds": 2}))).is_ok());
    }
}
