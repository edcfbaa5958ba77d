//! `open_diff {path, new_text, wait_ms?}`: show a proposed change in the IDE's diff view and wait
//! for the user's decision: accepted (the file written with the final text, the user's own edits
//! in the diff included), rejected, or still pending when the wait runs out.

use std::{borrow::Cow, time::Duration};

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{DEFAULT_DIFF_WAIT_MS, DiffStatus, MAX_DIFF_WAIT_MS, METHOD_OPEN_DIFF, OpenDiffParams, OpenDiffResult},
};

/// The tool's name.
pub const NAME: &str = "open_diff";

/// The largest diff of the user's own edits a result carries.
pub const MAX_EDIT_DIFF_BYTES: usize = 8 * 1024;

/// The input of `open_diff`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct OpenDiffToolParams {
    /// The file the change is for, relative to the workspace root (it may not exist yet).
    #[garde(length(min = 1))]
    pub path: String,
    /// The complete proposed text of the file.
    #[garde(skip)]
    pub new_text: String,
    /// How long to wait for the user's decision, in milliseconds (default 25000, at most 600000,
    /// and always within the server's --tool-timeout).
    #[garde(inner(range(max = MAX_DIFF_WAIT_MS)))]
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// The structured result of `open_diff`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OpenDiffOutput {
    /// The file.
    pub path: String,
    /// `accepted` (written), `rejected` (nothing written) or `pending` (no decision yet; the diff
    /// stays open, nothing written).
    pub status: DiffStatus,
    /// Accepted: the text now in the file, the user's edits included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_text: Option<String>,
    /// Accepted: the user changed the proposal before accepting.
    pub user_edited: bool,
    /// Accepted with edits: the unified diff from the proposal to the final text (at most 8 KiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_edits: Option<String>,
    /// The file did not exist before.
    pub created: bool,
    /// The same proposal was already open: this call waited on it again.
    pub reused: bool,
    /// How long this call waited for the user, in milliseconds.
    pub waited_ms: u64,
}

/// `open_diff`.
#[derive(Debug, Clone)]
pub struct OpenDiff {
    bridge: Bridge,
}

impl OpenDiff {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        OpenDiff { bridge }
    }
}

impl Tool for OpenDiff {
    type Params = OpenDiffToolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("To let the user approve a change, open_diff shows it in the IDE's diff view and returns their decision (accepted, with their own edits; rejected; or pending).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Propose a change to the user: the IDE shows the diff of `path` against `new_text` (the complete \
         proposed text); the user accepts it (maybe after editing it) or rejects it. Waits up to \
         `wait_ms` (default 25 s); returns {path, status, final_text, user_edited, user_edits, created, \
         reused}. `accepted`: written with final_text; `rejected`: nothing written, ask the user; \
         `pending`: nothing written yet, call again with the same path and new_text to keep waiting, or \
         close_diffs to withdraw it."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Propose a change (diff)")
            .read_only(false)
            .destructive(true)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<OpenDiffOutput>())
    }

    async fn run(&self, params: OpenDiffToolParams, _ctx: ToolContext) -> ToolResult {
        let limit = u64::try_from(self.bridge.max_wait().as_millis()).unwrap_or(u64::MAX);
        let asked = params.wait_ms.unwrap_or(DEFAULT_DIFF_WAIT_MS);
        let wait = asked.min(limit);
        let wire = OpenDiffParams {
            path: super::host_path(&self.bridge, &params.path).await,
            new_text: params.new_text,
            wait_ms: Some(wait),
        };
        let started = tokio::time::Instant::now();
        let result: OpenDiffResult =
            crate::protocol::Untrusted::bounded(self.bridge.request_waiting(METHOD_OPEN_DIFF, &wire, Duration::from_millis(wait)).await.map_err(|error| error.to_error(Op::Change(NAME, &params.path)))?);
        let waited_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let user_edits = match (&result.final_text, result.user_edited) {
            (Some(final_text), true) => Some(
                mcp_shared::diff::unified(
                    &wire.new_text,
                    final_text,
                    &format!("proposed/{}", params.path),
                    &format!("accepted/{}", params.path),
                    MAX_EDIT_DIFF_BYTES,
                )
                .text,
            ),
            _ => None,
        };
        let path = params.path;
        let text = match result.status {
            DiffStatus::Accepted if result.user_edited => format!(
                "The user accepted the change to {path} after editing it; the file is written with their version. What they changed in your proposal:\n{}",
                user_edits.as_deref().unwrap_or_default()
            ),
            DiffStatus::Accepted => format!("The user accepted the change to {path} as proposed; the file is written."),
            DiffStatus::Rejected => {
                format!(
                    "The user rejected the change to {path}; nothing was written. Ask the user what they want instead."
                )
            }
            DiffStatus::Pending => {
                let clamped = if asked > wait {
                    format!(" (the wait was cut to {} s by the server's --tool-timeout)", wait / 1000)
                } else {
                    String::new()
                };
                format!(
                    "No decision yet after {:.0} s{clamped}: the diff of {path} stays open in the IDE and nothing is written. Call open_diff again with the same path and new_text to keep waiting (no second diff opens), or close_diffs to withdraw it.",
                    waited_ms as f64 / 1000.0
                )
            }
        };
        let output = OpenDiffOutput {
            path,
            status: result.status,
            final_text: result.final_text,
            user_edited: result.user_edited,
            user_edits,
            created: result.created,
            reused: result.reused,
            waited_ms,
        };
        Ok(ToolOutput::text_and_json(text, json!(output)))
    }
}
