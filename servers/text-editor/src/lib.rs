//! `mcp-server-text-editor`: Claude's text editor tool (`view`, `create`, `str_replace`,
//! `insert`, `undo_edit`) as an MCP server — exact, confined, lossless and fast.
//!
//! - Results are byte-compatible with Anthropic's reference implementation ([`render`]).
//! - Every path stays inside the workspace: `--root`, narrowed by the client's MCP roots; without
//!   it the client's roots, else the working directory if it is a project, else none
//!   ([`workspace`], on the shared sandbox and the shared default-workspace rule).
//! - Files keep their encoding, byte-order mark, line endings, final newline and permissions
//!   ([`document`], [`lines`]); writes are atomic and, unless `--no-fsync`, durable.
//! - Every change recorded in a change journal on disk (`journal`): multi-level undo per file
//!   that survives restarts and refuses to clobber changes made by others, and `list_changes` /
//!   `revert_changes` over every file at once.
//! - Views stream, so a range of a huge file costs a few chunks of memory
//!   (`editor/view.rs`).
//!
//! `main.rs` parses flags and calls [`server`].

use std::sync::Arc;

use mcp_shared::{
    McpServer, RegistryError, ServerIdentity, ToolRegistry,
    sandbox::{Sandbox, SandboxError},
    workspace::{DirectoryFlag, Startup, no_workspace_instructions},
};

// Only `document` (the encoding round trip, fuzzed), `cli` (the binary's commands for a person)
// and the items re-exported below are used outside the crate; the rest is private.
pub mod cli;
mod command;
mod editor;
mod error;
mod fuzzy;
mod guide;
mod journal;
mod lines;
mod locks;
mod render;
mod tools;
mod view;
mod workspace;

pub mod document;

pub use editor::{Caller, Command, Edit, Editor, Limits, Origin, Reply, Request, default_journal_dir};
pub use tools::{NAMES as TOOL_NAMES, Profile};
pub use workspace::EditorRoots;

/// The binary's name, announced in `initialize`.
pub const NAME: &str = "mcp-server-text-editor";

/// The tool's default name.
pub const DEFAULT_TOOL_NAME: &str = "text_editor";

/// The directory flag, for the no-workspace messages.
pub const ROOT_FLAG: DirectoryFlag<'static> =
    DirectoryFlag { server: NAME, flag: "--root", what: "project directory", example: "/path/to/project" };

/// Everything the flags configure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The tools offered (names from [`tools::NAMES`], the tools' fixed names: `text_editor` is
    /// Claude's tool whatever `--tool-name` calls it); `--tools text_editor` is the strict
    /// drop-in for `mcp-server-text-editor`.
    pub tools: Vec<String>,
    /// The start-up workspace: `--root`, the working directory, or none
    /// ([`mcp_shared::workspace::decide`]).
    pub workspace: Startup,
    /// The tool's name.
    pub tool_name: String,
    /// `--read-only`: only tools that change nothing, and the text editor's `view` alone.
    pub read_only: bool,
    /// The editor's limits.
    pub limits: Limits,
}

/// Why the server could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A root is missing or not a directory.
    #[error("invalid --root: {0}; give an existing directory (an absolute path, or `~/…`)")]
    Root(#[from] SandboxError),
    /// The tool name is not valid.
    #[error("invalid --tool-name: {0}")]
    Registry(#[from] RegistryError),
}

/// Who the server is, for `initialize`, offering the tools of `registry`.
pub fn identity(workspace: &EditorRoots, registry: &ToolRegistry) -> ServerIdentity {
    let instructions = match workspace.configured() {
        Some(sandbox) => {
            let roots: Vec<String> = sandbox.roots().iter().map(|p| p.display().to_string()).collect();
            guide::instructions(registry, &roots)
        }
        None => format!(
            "{} {}",
            no_workspace_instructions(&ROOT_FLAG),
            guide::instructions(registry, &["the client's roots".to_owned()])
        ),
    };
    ServerIdentity {
        name: NAME.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        title: Some("Text editor (Claude's text editor tool)".to_owned()),
        website_url: Some(concat!(env!("CARGO_PKG_REPOSITORY"), "/tree/main/servers/text-editor").to_owned()),
        instructions,
    }
}

/// The server's tools: those of [`Config::tools`], in [`tools::NAMES`] order; with
/// `--read-only`, only those that change nothing (the text editor's tool then refuses every
/// command but `view`).
pub fn registry(config: &Config, workspace: Arc<EditorRoots>) -> Result<ToolRegistry, RegistryError> {
    let shared = tools::Shared {
        editor: Arc::new(Editor::new(Limits { read_only: config.read_only, ..config.limits.clone() })),
        workspace,
        locks: Arc::new(locks::FileLocks::new()),
        tool_name: config.tool_name.clone(),
        read_only: config.read_only,
        revert_tool: (config.tools.iter().any(|t| t == "revert_changes") && !config.read_only)
            .then(|| "revert_changes".to_owned()),
        undo_tool: (config.tools.iter().any(|t| t == "text_editor")
            && !config.read_only
            && config.limits.undo_depth > 0)
            .then(|| config.tool_name.clone()),
    };
    let mut registry = tools::all(&shared, |name| config.tools.iter().any(|t| t == name))?;
    if config.read_only {
        registry.retain(mcp_shared::RegisteredTool::read_only);
    }
    Ok(registry)
}

/// The whole server: identity, registry, the guide prompt and the client-roots hooks.
pub fn server(config: &Config) -> Result<McpServer, SetupError> {
    let workspace = Arc::new(match &config.workspace {
        Startup::Explicit(roots) => EditorRoots::explicit(Sandbox::new(roots)?),
        Startup::WorkingDirectory(dir) => EditorRoots::by_default(Some(Sandbox::new([dir])?)),
        Startup::None { .. } => EditorRoots::by_default(None),
    });
    let registry = registry(config, Arc::clone(&workspace))?;
    let extension = guide::Extension::new(Arc::clone(&workspace), &config.tool_name, &registry);
    Ok(McpServer::new(identity(&workspace, &registry), registry).with_extension(Arc::new(extension)))
}
