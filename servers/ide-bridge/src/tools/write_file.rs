//! `write_file {path, content}`: create or replace one text file of the workspace.
//!
//! Never retried by the bridge: if the connection drops before the host answers, the result says
//! that the write may or may not have happened.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{METHOD_WRITE, WriteParams, WriteResult},
};

/// The tool's name.
pub const NAME: &str = "write_file";

/// The input of `write_file`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct WriteFileParams {
    /// The file, relative to the workspace root (e.g. `src/new.rs`); missing directories are created.
    #[garde(length(min = 1))]
    pub path: String,
    /// The complete new text of the file (it replaces the whole file).
    #[garde(skip)]
    pub content: String,
}

/// The structured result of `write_file`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WriteFileOutput {
    /// The path, as given.
    pub path: String,
    /// Bytes written (UTF-8).
    pub bytes: u64,
    /// Whether the file is new (false: an existing file was replaced).
    pub created: bool,
    /// Lines the write added to the replaced file (replaced files whose old text the host sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_added: Option<usize>,
    /// Lines the write removed from the replaced file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_removed: Option<usize>,
    /// The unified diff of the replaced file, at most 8 KiB, with a note when cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Whether `diff` was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_truncated: Option<bool>,
}

/// The largest diff a result carries.
pub const MAX_DIFF_BYTES: usize = 8 * 1024;

/// `write_file`.
#[derive(Debug, Clone)]
pub struct WriteFile {
    bridge: Bridge,
}

impl WriteFile {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        WriteFile { bridge }
    }
}

/// The description, and what `tools/list` says instead while the host is read-only.
pub const DESCRIPTION: &str = "Create or overwrite a text file in the IDE workspace with `content`, the \
     complete new text (`path` relative to the workspace root; missing directories are created). \
     Atomic; the IDE's user is notified. Returns {path, bytes, created}, and for a replaced file \
     lines_added, lines_removed and a unified diff (at most 8 KiB). READ_ONLY when the host is \
     read-only, FILE_TOO_LARGE over its size limit (100 KB by default).";

/// The note put before [`DESCRIPTION`] while the connected host is read-only.
pub const READ_ONLY_NOTE: &str =
    "The connected IDE workspace host is READ-ONLY: this tool currently fails with READ_ONLY and writes nothing. ";

impl Tool for WriteFile {
    type Params = WriteFileParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("write_file creates or replaces a file with the complete new content (the IDE's user is notified).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Write workspace file")
            .read_only(false)
            .destructive(true)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<WriteFileOutput>())
    }

    async fn run(&self, params: WriteFileParams, _ctx: ToolContext) -> ToolResult {
        let wire = WriteParams { path: super::host_path(&self.bridge, &params.path).await, content: params.content };
        let written: WriteResult = super::call(&self.bridge, METHOD_WRITE, &wire, Op::Write(&params.path)).await?;
        let mut output = WriteFileOutput {
            path: params.path,
            bytes: written.bytes,
            created: written.created,
            lines_added: None,
            lines_removed: None,
            diff: None,
            diff_truncated: None,
        };
        let text = match (written.created, &written.previous) {
            (true, _) => format!("Created {} ({} bytes).", output.path, output.bytes),
            (false, Some(old)) => {
                let name = output.path.trim_start_matches('/');
                let change = mcp_shared::diff::unified(
                    old,
                    &wire.content,
                    &format!("a/{name}"),
                    &format!("b/{name}"),
                    MAX_DIFF_BYTES,
                );
                let summary = if change.text.is_empty() {
                    format!("Replaced {} ({} bytes): the content is unchanged.", output.path, output.bytes)
                } else {
                    format!(
                        "Replaced {} ({} bytes): +{} -{} lines.\n{}",
                        output.path, output.bytes, change.added, change.removed, change.text
                    )
                };
                output.lines_added = Some(change.added);
                output.lines_removed = Some(change.removed);
                output.diff = Some(change.text);
                output.diff_truncated = Some(change.truncated);
                summary
            }
            (false, None) => format!(
                "Replaced {} ({} bytes); the host did not send the previous text (binary, too large, or an older host), \
                 so there is no diff.",
                output.path, output.bytes
            ),
        };
        Ok(ToolOutput::text_and_json(text, json!(output)))
    }
}
