//! `list_tree`: the directories and files under a directory, with file sizes, to a depth and up
//! to a number of entries, skipping what `search_text` skips (hidden entries, `.gitignore`d
//! paths); how many entries were left out is said.

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{
    ErrorCode, Tool, ToolContext, ToolOutput, ToolResult, blocking,
    reexports::rmcp::model::ToolAnnotations,
    sandbox::{Sandbox, WalkOptions},
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{error::ToolError, tools::search_text, workspace::EditorRoots};

/// The default `depth`.
pub const DEFAULT_DEPTH: usize = 2;
/// The largest `depth`.
pub const MAX_DEPTH: usize = 20;
/// The default `limit`.
pub const DEFAULT_LIMIT: usize = 200;
/// The largest `limit`.
pub const MAX_LIMIT: usize = 5_000;
/// The most entries counted beyond `limit` (past it, "more than").
const MAX_COUNTED: usize = 100_000;

/// The tree to list. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct ListTreeInput {
    /// The directory to list, absolute or relative to the first root. Default: every root.
    #[serde(default)]
    pub path: Option<String>,
    /// How many levels below it (1: its own entries). Default 2, at most 20.
    #[serde(default)]
    pub depth: Option<u32>,
    /// The most entries listed (1 to 5000). Default 200; the rest are counted.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The tool.
pub struct ListTree {
    workspace: Arc<EditorRoots>,
}

impl ListTree {
    /// The tool over `workspace`.
    pub fn new(workspace: Arc<EditorRoots>) -> ListTree {
        ListTree { workspace }
    }
}

/// The tool's description.
pub const DESCRIPTION: &str = "List a directory as a tree: subdirectories (ending in `/`) and files with their sizes, indented by level, to `depth` levels (default 2) and at most `limit` entries (default 200), then a line saying how many entries were left out. Hidden files and .gitignored paths are skipped, as in search_text; symlinks are shown, not followed.";

/// A size as a person reads it.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The tree of every place `path` names (blocking).
fn tree(sandbox: &Sandbox, path: Option<&str>, depth: usize, limit: usize) -> Result<String, ToolError> {
    let mut out = String::new();
    let mut shown = 0usize;
    let mut left = 0usize;
    let mut more = false;
    for (place, absolute) in search_text::places_of(sandbox, path)? {
        let options = WalkOptions {
            max_depth: Some(depth),
            hidden: false,
            respect_gitignore: true,
            max_entries: Some(MAX_COUNTED),
        };
        let walk = sandbox.walk(&place, &options).map_err(|e| match e {
            mcp_shared::sandbox::SandboxError::NotADirectory { .. } => ToolError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "{} is a file, not a directory: give a directory as `path` (view a file with the text editor).",
                    absolute.display()
                ),
            ),
            other => other.into(),
        })?;
        more |= walk.truncated;
        out.push_str(&format!("{}/\n", absolute.display()));
        for entry in &walk.entries {
            if shown == limit {
                left += 1;
                continue;
            }
            shown += 1;
            let level = entry.rel.components().count();
            let name = entry.rel.file_name().map(mcp_shared::sandbox::shown_name).unwrap_or_default();
            out.push_str(&"  ".repeat(level));
            out.push_str(&name);
            if entry.is_dir {
                out.push('/');
                if entry.unreadable {
                    out.push_str(" (unreadable: permission denied)");
                }
            } else if entry.is_symlink {
                out.push_str(" (symlink)");
            } else if let Some(len) = entry.len {
                out.push_str(&format!(" ({})", size(len)));
            }
            out.push('\n');
        }
    }
    if left > 0 || more {
        let count = if more { format!("more than {left}") } else { left.to_string() };
        out.push_str(&format!(
            "[{count} more entries not shown (the first {shown} listed). List a subdirectory with `path`, lower `depth`, or raise `limit` (at most {MAX_LIMIT}).]\n"
        ));
    }
    Ok(out)
}

impl Tool for ListTree {
    type Params = ListTreeInput;

    fn name(&self) -> Cow<'static, str> {
        "list_tree".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`list_tree` shows a directory tree with file sizes.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("List directory tree")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    async fn run(&self, input: ListTreeInput, ctx: ToolContext) -> ToolResult {
        let depth = input.depth.map_or(DEFAULT_DEPTH, |d| d as usize);
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(ToolError::invalid_args(format!("`depth` is {depth}; it must be 1 to {MAX_DEPTH}.")));
        }
        let limit = input.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(ToolError::invalid_args(format!("`limit` is {limit}; it must be 1 to {MAX_LIMIT}.")));
        }
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let path = input.path.clone();
        let text = blocking("The listing", move || tree(&sandbox, path.as_deref(), depth, limit)).await??;
        Ok(ToolOutput::text(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_to_a_depth_with_sizes_and_what_was_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/deep/deeper")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join("src/deep/deeper/x.rs"), "").unwrap();
        std::fs::write(root.join("big.bin"), vec![0u8; 2048]).unwrap();
        std::fs::write(root.join(".hidden"), "").unwrap();
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        std::fs::create_dir(root.join("ignored")).unwrap();
        let sandbox = Sandbox::new([&root]).unwrap();
        let out = tree(&sandbox, None, 2, 200).unwrap();
        assert_eq!(out, format!("{}/\n  big.bin (2.0 KB)\n  src/\n    deep/\n    main.rs (13 B)\n", root.display()));
        let out = tree(&sandbox, None, 5, 2).unwrap();
        assert!(out.ends_with("[4 more entries not shown (the first 2 listed). List a subdirectory with `path`, lower `depth`, or raise `limit` (at most 5000).]\n"), "{out}");
        assert!(tree(&sandbox, Some("big.bin"), 2, 10).is_err());
    }
}
