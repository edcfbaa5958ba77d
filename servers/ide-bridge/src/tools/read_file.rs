//! `read_file {path}`: one text file of the workspace, exactly as stored.

use std::borrow::Cow;

use mcp_shared::{ContentItem, Tool, ToolContext, ToolResult, ToolOutput, reexports::rmcp::model::ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    bridge::{Bridge, error::Op},
    protocol::{METHOD_READ, ReadParams, ReadResult},
};

/// The input of `read_file`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct ReadFileParams {
    /// The file, relative to the workspace root as list_files shows it (e.g. `src/main.rs`).
    #[garde(length(min = 1))]
    pub path: String,
}

/// `read_file`.
#[derive(Debug, Clone)]
pub struct ReadFile {
    bridge: Bridge,
}

impl ReadFile {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        ReadFile { bridge }
    }
}

impl Tool for ReadFile {
    type Params = ReadFileParams;

    fn name(&self) -> Cow<'static, str> {
        "read_file".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("read_file reads a file (an open file with unsaved changes: the editor's text).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Read a text file of the IDE workspace, exactly as stored (`path` as list_files shows it). A \
         file with unsaved changes in the IDE comes as the editor shows it, with a second text block \
         saying so. FILE_TOO_LARGE over the host's size limit (100 KB by default), BINARY_FILE, \
         NOT_FOUND."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Read workspace file")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    async fn run(&self, params: ReadFileParams, _ctx: ToolContext) -> ToolResult {
        let wire = ReadParams { path: super::host_path(&self.bridge, &params.path).await };
        match super::call::<_, ReadResult>(&self.bridge, METHOD_READ, &wire, Op::Read(&params.path)).await {
            Ok(read) if read.unsaved => {
                let note = format!(
                    "`{}` has unsaved changes in the IDE: this is the editor's text, not the file on disk.",
                    params.path
                );
                Ok(ToolOutput { content: vec![ContentItem::Text { text: read.content }, ContentItem::Text { text: note }] })
            }
            Ok(read) if read.editor_dirty => {
                let note = format!(
                    "`{}` has unsaved edits in the IDE that this text (the file on disk) does not include; write_file refuses it until the user saves (save_file) or discards them.",
                    params.path
                );
                Ok(ToolOutput { content: vec![ContentItem::Text { text: read.content }, ContentItem::Text { text: note }] })
            }
            Ok(read) => Ok(ToolOutput::text(read.content)),
            Err(error) => Err(error),
        }
    }
}
