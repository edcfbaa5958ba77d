//! `mcp-server-text-editor`: Claude's text editor tool (`view`, `create`, `str_replace`,
//! `insert`, `undo_edit`) as an MCP server — exact, confined, lossless and fast.
//!
//! - Results are byte-compatible with Anthropic's reference implementation ([`render`]).
//! - Every path stays inside the workspace: `--root`, narrowed by the client's MCP roots; without
//!   it the client's roots, else the working directory if it is a project, else none
//!   ([`workspace`], on the shared sandbox and the shared default-workspace rule).
//! - Files keep their encoding, byte-order mark, line endings, final newline and permissions
//!   ([`document`], [`lines`]); writes are atomic and, unless `--no-fsync`, durable.
//! - Multi-level undo per file that refuses to clobber changes made by others ([`history`]).
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

// Only `document` (the encoding round trip, fuzzed) and the items re-exported below are used
// outside the crate; the rest is private.
mod editor;
mod error;
mod fuzzy;
mod guide;
mod history;
mod lines;
mod locks;
mod render;
mod tools;
mod workspace;

pub mod document;

pub use editor::{Command, Edit, Editor, Limits, Reply, Request};
pub use workspace::EditorRoots;

/// The binary's name, announced in `initialize`.
pub const NAME: &str = "mcp-server-text-editor";

/// The tool's default name.
pub const DEFAULT_TOOL_NAME: &str = "text_editor";

/// The directory flag, for the no-workspace messages.
pub const ROOT_FLAG: DirectoryFlag<'static> =
    DirectoryFlag { server: NAME, flag: "--root", what: "project directory", example: "/path/to/project" };

/// The tools a server can offer (`--tools`), by their fixed names (`text_editor` is the
/// text editor tool whatever `--tool-name` calls it).
pub const TOOLS: [&str; 8] =
    ["text_editor", "search_text", "find_files", "move_file", "delete_file", "edit_file", "read_files", "list_tree"];

/// The tools that change files: not offered with `--read-only`.
pub const WRITING_TOOLS: [&str; 3] = ["move_file", "delete_file", "edit_file"];

/// Everything the flags configure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The tools offered (names from [`TOOLS`]); `--tools text_editor` is the strict drop-in for
    /// `mcp-server-text-editor`.
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

/// Who the server is, for `initialize`.
pub fn identity(config: &Config, workspace: &EditorRoots) -> ServerIdentity {
    let instructions = match workspace.configured() {
        Some(sandbox) => {
            let roots: Vec<String> = sandbox.roots().iter().map(|p| p.display().to_string()).collect();
            guide::instructions(&config.tool_name, &roots, &config.tools)
        }
        None => format!(
            "{} {}",
            no_workspace_instructions(&ROOT_FLAG),
            guide::instructions(&config.tool_name, &["the client's roots".to_owned()], &config.tools)
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

/// The server's tools: those of [`Config::tools`], in [`TOOLS`] order.
pub fn registry(config: &Config, workspace: Arc<EditorRoots>) -> Result<ToolRegistry, RegistryError> {
    let editor = Arc::new(Editor::new(config.limits.clone()));
    let mut registry = ToolRegistry::new();
    let offered =
        |name: &str| config.tools.iter().any(|t| t == name) && !(config.read_only && WRITING_TOOLS.contains(&name));
    // One undo history and one set of per-file locks for every tool that writes.
    let locks = Arc::new(locks::FileLocks::new());
    if offered("text_editor") {
        let tool = tools::text_editor::TextEditor::with_locks(
            config.tool_name.clone(),
            Arc::clone(&editor),
            Arc::clone(&workspace),
            Arc::clone(&locks),
        )
        .read_only(config.read_only);
        registry.register(tool)?;
    }
    if offered("search_text") {
        let limits = tools::search_text::SearchLimits {
            max_output_chars: config.limits.max_output_chars,
            max_file_size: config.limits.max_file_size,
        };
        registry.register(tools::search_text::SearchText::new(Arc::clone(&workspace), limits))?;
    }
    if offered("find_files") {
        registry.register(tools::find_files::FindFiles::new(Arc::clone(&workspace)))?;
    }
    if offered("move_file") {
        let tool = tools::move_file::MoveFile::new(Arc::clone(&editor), Arc::clone(&workspace), Arc::clone(&locks));
        registry.register(tool)?;
    }
    if offered("delete_file") {
        let tool = tools::delete_file::DeleteFile::new(Arc::clone(&editor), Arc::clone(&workspace), Arc::clone(&locks));
        registry.register(tool)?;
    }
    if offered("edit_file") {
        let tool = tools::edit_file::EditFile::new(Arc::clone(&editor), Arc::clone(&workspace), locks);
        registry.register(tool)?;
    }
    if offered("read_files") {
        registry.register(tools::read_files::ReadFiles::new(editor, Arc::clone(&workspace)))?;
    }
    if offered("list_tree") {
        registry.register(tools::list_tree::ListTree::new(workspace))?;
    }
    Ok(registry)
}

/// The value of `--tools`: the chosen tool names, in [`TOOLS`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolChoice(pub Vec<String>);

/// Parses `--tools`: a comma-separated list of [`TOOLS`] names (`all` for every one).
pub fn parse_tools(list: &str) -> Result<ToolChoice, String> {
    let mut chosen = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "all" {
            chosen.extend(TOOLS.iter().map(|t| (*t).to_owned()));
        } else if TOOLS.contains(&name) {
            chosen.push(name.to_owned());
        } else {
            return Err(format!("unknown tool `{name}`; the tools are: {} (or `all`)", TOOLS.join(", ")));
        }
    }
    if chosen.is_empty() {
        return Err(format!("no tool chosen; the tools are: {} (or `all`)", TOOLS.join(", ")));
    }
    chosen.sort_by_key(|t| TOOLS.iter().position(|x| x == t));
    chosen.dedup();
    Ok(ToolChoice(chosen))
}

/// The whole server: identity, registry, the guide prompt and the client-roots hooks.
pub fn server(config: &Config) -> Result<McpServer, SetupError> {
    let workspace = Arc::new(match &config.workspace {
        Startup::Explicit(roots) => EditorRoots::explicit(Sandbox::new(roots)?),
        Startup::WorkingDirectory(dir) => EditorRoots::by_default(Some(Sandbox::new([dir])?)),
        Startup::None { .. } => EditorRoots::by_default(None),
    });
    let registry = registry(config, Arc::clone(&workspace))?;
    let extension = guide::Extension::new(Arc::clone(&workspace), &config.tool_name, &config.tools);
    Ok(McpServer::new(identity(config, &workspace), registry).with_extension(Arc::new(extension)))
}
