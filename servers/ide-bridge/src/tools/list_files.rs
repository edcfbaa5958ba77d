//! `list_files {recursive, path?}`: the workspace's files, relative to its root.

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
    protocol::{ListParams, ListResult, METHOD_LIST},
};

/// The input of `list_files`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct ListFilesParams {
    /// `true`: every file of the tree under `path`; `false` (default): only the entries of `path`
    /// itself, its files and its subdirectories (these end with `/`).
    #[garde(skip)]
    #[serde(default)]
    pub recursive: bool,
    /// The directory to list, relative to the workspace root. Default: the root.
    #[garde(inner(length(min = 1)))]
    #[serde(default)]
    pub path: Option<String>,
}

/// The structured result of `list_files`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListFilesOutput {
    /// Paths relative to the workspace root, sorted.
    pub files: Vec<String>,
    /// Whether the host cut the listing at its entry cap.
    pub truncated: bool,
}

/// `list_files`.
#[derive(Debug, Clone)]
pub struct ListFiles {
    bridge: Bridge,
}

impl ListFiles {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        ListFiles { bridge }
    }
}

impl Tool for ListFiles {
    type Params = ListFilesParams;

    fn name(&self) -> Cow<'static, str> {
        "list_files".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("Start with list_files (recursive: true for the whole tree; .gitignored and hidden files are left out).".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "List the files of the IDE workspace, as paths relative to its root. `recursive: true` lists \
         every file of the tree (under `path`, default the root); `recursive: false` lists one \
         directory: its files and its subdirectories (ending with `/`). Files ignored by .gitignore \
         and hidden files (dot-files) are left out. Returns {files, truncated}."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("List workspace files")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<ListFilesOutput>())
    }

    async fn run(&self, params: ListFilesParams, _ctx: ToolContext) -> ToolResult {
        let wire = ListParams {
            recursive: params.recursive,
            path: super::host_path_opt(&self.bridge, params.path.as_deref()).await,
        };
        let listed: ListResult = super::call(&self.bridge, METHOD_LIST, &wire, Op::List).await?;
        let output = json!(ListFilesOutput { files: listed.files, truncated: listed.truncated });
        if listed.truncated {
            Ok(ToolOutput::text_and_json(
                "The listing was cut at the host's entry limit: list a subdirectory with `path` to see the rest.",
                output,
            ))
        } else {
            Ok(ToolOutput::json(output))
        }
    }
}
