//! `mcp-server-draft-post`: files manuscripts into a repository of numbered articles,
//! idempotently.
//!
//! Articles live in `<repo>/projects/<project>/NN-slug/article.md`. `draft_post` takes a
//! manuscript (usually outside the repository) and files it; the manuscript's canonical
//! absolute path, hashed, is its `source_id`, stored in the article's frontmatter, so
//! submitting the same manuscript again updates its article instead of creating `35-x/`,
//! `36-x/`, ... (spec 001). `list_posts` lists the articles.
//!
//! - [`source`]: the manuscript and its `source_id`.
//! - [`frontmatter`]: finding, validating and editing YAML frontmatter without re-serialising it.
//! - [`slug`]: slugs for directory names.
//! - [`view`]: the fast read-only view used to scan thousands of articles.
//! - [`index`]: what the server knows of the articles, and its copy on disk.
//! - [`repo`]: the index, the lock, the upsert and the listing.
//! - [`tools`]: the two MCP tools.

use std::sync::Arc;

use mcp_shared::{RegistryError, ServerIdentity, ToolRegistry};

pub mod frontmatter;
pub mod index;
pub mod repo;
pub mod slug;
pub mod source;
pub mod tools;
pub mod view;

pub use repo::{Repo, RepoConfig};

/// The binary's name, announced in `initialize`.
pub const NAME: &str = "mcp-server-draft-post";

/// Why the server could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The repository could not be opened.
    #[error(transparent)]
    Open(#[from] repo::OpenError),
    /// A tool could not be registered.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

/// Who the server is, for `initialize`.
pub fn identity() -> ServerIdentity {
    ServerIdentity {
        name: NAME.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        title: Some("mcp-suite draft-post".to_owned()),
        instructions: "Files Markdown manuscripts into this repository as \
            projects/<project>/NN-slug/article.md. Call `draft_post` with the manuscript's path \
            (`source`) to file it; after editing the manuscript, call `draft_post` again with the \
            SAME path: the path is the manuscript's identity (source_id), so its article is updated \
            in place (action \"updated\", or \"unchanged\") instead of a new numbered directory being \
            created. `project` (default: the current year-month, e.g. 2026-01) and `slug` only apply \
            to a new article. `list_posts` lists the articles with their numbers, titles and \
            source_ids."
            .to_owned(),
    }
}

/// Every tool of this server, over the repository of `config`.
pub fn registry(config: &RepoConfig) -> Result<ToolRegistry, BuildError> {
    let repo = Arc::new(Repo::open(config)?);
    let mut registry = ToolRegistry::new();
    registry.register(tools::draft_post::DraftPost::new(Arc::clone(&repo)))?;
    registry.register(tools::list_posts::ListPosts::new(repo))?;
    Ok(registry)
}
