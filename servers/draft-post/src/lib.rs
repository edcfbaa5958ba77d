//! `mcp-server-draft-post`: files manuscripts into a repository of numbered articles,
//! idempotently.
//!
//! Articles live in `<repo>/projects/<project>/NN-slug/article.md`. `draft_post` takes a
//! manuscript (usually outside the repository) and files it; the manuscript's canonical
//! absolute path, hashed, is its `source_id`, stored in the article's frontmatter, so
//! submitting the same manuscript again updates its article instead of creating `35-x/`,
//! `36-x/`, ... `list_posts` lists the articles.
//!
//! - [`source`]: the manuscript and its `source_id`.
//! - [`attach`]: the images and attachments written beside an article.
//! - [`frontmatter`]: finding, validating and editing YAML frontmatter without re-serialising it.
//! - [`slug`]: slugs for directory names.
//! - [`projects`]: the fast read-only reader of `projects/`, to scan thousands of articles.
//! - [`index`]: what the server knows of the articles, and its copy on disk.
//! - [`repo`]: the index, the lock, the upsert and the listing.
//! - [`workspace`]: the repository and the source directories of a call (flags, client roots).
//! - [`tools`]: the two MCP tools.

use std::sync::Arc;

use mcp_shared::{McpServer, RegistryError, ServerExtension, ServerIdentity, ToolRegistry};

pub mod attach;
pub mod frontmatter;
mod index;
mod preview;
pub mod projects;
pub mod repo;
mod slug;
pub mod source;
mod tools;
mod workspace;

pub use repo::{Repo, RepoConfig};
pub use workspace::{Places, Settings};

/// The binary's name, announced in `initialize`.
pub const NAME: &str = "mcp-server-draft-post";

/// Why the server could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// `--repo` or a `--source-root` could not be opened.
    #[error(transparent)]
    Setup(#[from] workspace::SetupError),
    /// A tool could not be registered.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

/// Who the server is, for `initialize`.
pub fn identity(workspace: &Places) -> ServerIdentity {
    let mut instructions = "Files Markdown manuscripts into this repository as \
        projects/<project>/NN-slug/article.md. Call `draft_post` with the manuscript's path \
        (`source`: a .md, .markdown or .mdx file in an allowed source directory, not hidden; by \
        default the blog repository, the directory that holds it and the server's working directory, \
        so write drafts there, e.g. in a drafts/ folder of the repository) to file \
        it; after editing the manuscript, call `draft_post` again with the SAME path: the path is the \
        manuscript's identity (source_id), so its article is updated in place (action \"updated\", \
        with a diff, or \"unchanged\") instead of a new numbered directory being created. `project` \
        (default: the current year-month, e.g. 2026-01) and `slug` only apply to a new article. \
        `list_posts` lists the articles with their numbers, titles and source_ids."
        .to_owned();
    if !workspace.has_repository() {
        instructions.push(' ');
        instructions.push_str(&mcp_shared::workspace::no_workspace_instructions(&workspace::REPO_FLAG));
    }
    ServerIdentity {
        name: NAME.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        title: Some("mcp-suite draft-post".to_owned()),
        website_url: Some(concat!(env!("CARGO_PKG_REPOSITORY"), "/tree/main/servers/draft-post").to_owned()),
        instructions,
    }
}

/// Every tool of this server, over `workspace`.
pub fn registry(workspace: &Arc<Places>) -> Result<ToolRegistry, RegistryError> {
    tools::all(workspace, |_| true)
}

/// The server's use of the client's roots: they choose the repository and narrow the sources.
struct UsesRoots;

impl ServerExtension for UsesRoots {
    fn uses_client_roots(&self) -> bool {
        true
    }
}

/// The whole server for `settings`, and its workspace (the caller runs its
/// [`Places::log_startup`] once serving starts).
pub fn server(settings: Settings) -> Result<(McpServer, Arc<Places>), BuildError> {
    let workspace = Arc::new(Places::new(settings)?);
    let registry = registry(&workspace)?;
    let server = McpServer::new(identity(&workspace), registry).with_extension(Arc::new(UsesRoots));
    Ok((server, workspace))
}
