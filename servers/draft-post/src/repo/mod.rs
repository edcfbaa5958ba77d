//! The repository: an index of its articles, the upsert (`draft_post`) and the listing
//! (`list_posts`) over it.
//!
//! - [`layout`]: the names: `projects/<project>/NN-slug/article.md`.
//! - `scan`: bringing the index up to date with the disk, and saving it for the next process.
//! - `pool`: running a scan's reads on several threads.
//! - `upsert`: `draft_post` under the repository's lock.
//! - `list`: `list_posts` and the warnings for what was skipped.
//! - `messages`: the failures a model reads.
//!
//! # Layout
//! `<repo>/projects/<project>/<NN>-<slug>/article.md`. A numbered entry is any directory (or
//! symlink) of a project whose name is digits, `-`, anything; its number is taken whatever it
//! holds. Hidden names (`.…`) are never projects.
//!
//! # Index and revalidation
//! A process starts from the index an earlier one saved in `projects/.draft-post-index` (see
//! [`crate::index`]), or else reads the frontmatter of every article (only the first bytes of
//! each file, on several threads). Every call then revalidates cheaply: `projects/` and each
//! project directory are `stat`ed, and listed again only when their stamp changed or is too
//! recent to trust (the "racy git" rule: a timestamp less than [`index::RACY_NS`] older than the
//! moment it was read may hide a later change), which catches every directory added, removed,
//! renamed or copied by hand. Articles are `stat`ed (and read again when their stamp changed)
//! when they were missing or malformed, when their project directory had to be listed again,
//! and, on a full revalidation, all of them (then one with a stamp too recent to trust is read
//! again too). A full revalidation is every `list_posts`, and every call in a repository of at
//! most `FULL_REVALIDATION_MAX` (1,000) articles. An article found by its `source_id` is always read
//! whole, and checked to still carry that id, before it is rewritten.
//!
//! # Concurrency and crash safety
//! `draft_post` holds an exclusive lock on `projects/.draft-post/lock` (std `File::lock`, so
//! across processes) from the scan to the write. A new number is claimed with `create_dir`
//! (atomic: it fails if the name exists), and `article.md` is written atomically inside it
//! (temporary file, fsync, rename). A process killed between the claim and the rename leaves a
//! numbered directory holding nothing but a temporary file: the next new article of that
//! project takes that number again (reusing the directory, or replacing it when its slug
//! differs), so no number is ever skipped over.

mod layout;
mod list;
mod messages;
pub mod pool;
mod scan;
mod upsert;

use std::{
    io,
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard},
};

use mcp_shared::{
    ToolError,
    diff::BoundedDiff,
    sandbox::{Sandbox, SandboxError, SandboxPath},
};

pub use layout::{MAX_PROJECT_CHARS, dir_name, parse_dir_name, validate_project};
pub use messages::source_failure;
pub use scan::FULL_REVALIDATION_MAX;
pub use upsert::MAX_DIFF_BYTES;

use crate::{index::Index, projects::View};

/// The directory of the lock, in `projects/`: it holds `lock` and a `.gitignore` of `*`, so
/// that `git status` never shows it (the `.gitignore` ignores itself too).
pub const LOCK_DIR: &str = ".draft-post";

/// The lock file, in [`LOCK_DIR`].
pub const LOCK_FILE: &str = "lock";

/// The `.gitignore` the server writes in [`LOCK_DIR`].
pub const LOCK_DIR_GITIGNORE: &str = "# Written by mcp-server-draft-post: its lock, nothing to commit.\n*\n";

pub use crate::projects::ARTICLE;

/// Why the repository could not be opened at start.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The sandbox refused the directory (missing, not a directory, ...).
    #[error(
        "cannot use the repository {path}: {source}; give --repo an existing directory (an absolute path, or `~/…`)"
    )]
    Sandbox {
        /// The directory as given.
        path: String,
        /// Why.
        #[source]
        source: SandboxError,
    },
    /// The directory could not be opened for reading.
    #[error("cannot open the repository {path}: {source}")]
    Io {
        /// The directory as given.
        path: String,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// How the server is configured.
#[derive(Debug, Clone)]
pub struct RepoConfig {
    /// The repository directory (`--repo`).
    pub repo: PathBuf,
    /// Whether writes are fsync'ed (`--no-fsync` clears it).
    pub fsync: bool,
}

/// What `draft_post` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// A new numbered directory and article.
    Created,
    /// The existing article was rewritten.
    Updated,
    /// The existing article already had this content; nothing was written.
    Unchanged,
}

impl Action {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Updated => "updated",
            Action::Unchanged => "unchanged",
        }
    }
}

/// What `draft_post` asks for.
#[derive(Debug, Clone)]
pub struct DraftRequest {
    /// The manuscript path (a `FILE:` prefix allowed).
    pub source: String,
    /// The project for a new article (validated).
    pub project: String,
    /// The slug for a new article, from the argument (already a slug).
    pub slug: Option<String>,
    /// Say what would happen, and write nothing.
    pub dry_run: bool,
}

/// What a call files: the manuscript (read from disk, or sent as content), the files to write
/// beside its article, and the warnings about image links left as they are.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The manuscript.
    pub manuscript: crate::source::Manuscript,
    /// The files written beside the article.
    pub attachments: Vec<crate::attach::Attachment>,
    /// What was left alone, and why.
    pub warnings: Vec<String>,
}

/// The structured result of `draft_post`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "DraftPostOutput")]
pub struct Outcome {
    /// What happened to the article.
    pub action: Action,
    /// The article's project.
    pub project: String,
    /// The article's number in its project.
    pub number: u32,
    /// The slug part of the article's directory name.
    pub slug: String,
    /// The article's directory, relative to the repository.
    pub dir: String,
    /// The article file, relative to the repository.
    pub article: String,
    /// The manuscript's identity: 16 hex digits of the SHA-256 of its canonical path.
    pub source_id: String,
    /// What an update changed (only for "updated").
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// Image links left as they are, and malformed articles elsewhere that were skipped (only
    /// when there are some).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The files written beside the article, relative to the repository (with `dry_run`: those
    /// that would be); one whose bytes were already there is not rewritten and not listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
    /// Present and true for a dry run: nothing was written; the rest says what would happen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

/// What an update changed in the article (frontmatter included).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Change {
    /// Lines the update added to the article (only for "updated").
    pub lines_added: usize,
    /// Lines the update removed from the article (only for "updated").
    pub lines_removed: usize,
    /// The unified diff of the article, frontmatter included, at most 8 KiB, with a note when
    /// cut (only for "updated").
    pub diff: String,
    /// Whether `diff` was cut (only for "updated").
    pub diff_truncated: bool,
}

impl From<BoundedDiff> for Change {
    fn from(diff: BoundedDiff) -> Change {
        Change { lines_added: diff.added, lines_removed: diff.removed, diff: diff.text, diff_truncated: diff.truncated }
    }
}

/// One article, as `list_posts` gives it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Post {
    /// The article's project.
    pub project: String,
    /// The article's number in its project.
    pub number: u32,
    /// The slug part of the article's directory name.
    pub slug: String,
    /// Its frontmatter `title` (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its frontmatter `date`, as written (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Its frontmatter `status`, as written (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Its frontmatter `source_id` (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    /// The article file, relative to the repository.
    pub path: String,
}

/// The repository and the index of its articles.
#[derive(Debug)]
pub struct Repo {
    sandbox: Sandbox,
    view: View,
    fsync: bool,
    index: Mutex<Index>,
}

impl Repo {
    /// Opens the repository `config.repo` (it must exist).
    pub fn open(config: &RepoConfig) -> Result<Repo, OpenError> {
        let shown = config.repo.display().to_string();
        let sandbox =
            Sandbox::new([&config.repo]).map_err(|source| OpenError::Sandbox { path: shown.clone(), source })?;
        let view = sandbox
            .resolve_rel(".")
            .and_then(|root| sandbox.open_dir_handle(&root))
            .map(View::from_dir)
            .map_err(|source| OpenError::Sandbox { path: shown, source })?;
        Ok(Repo { sandbox, view, fsync: config.fsync, index: Mutex::new(Index::default()) })
    }

    /// The repository's canonical path.
    pub fn root(&self) -> &Path {
        self.sandbox.roots().first().map_or(Path::new("."), PathBuf::as_path)
    }

    pub(super) fn index(&self) -> MutexGuard<'_, Index> {
        match self.index.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                // A panic mid-update: start from scratch rather than trust the index.
                let mut guard = poisoned.into_inner();
                *guard = Index::default();
                guard
            }
        }
    }

    pub(super) fn resolve(&self, rel: &str) -> Result<SandboxPath, ToolError> {
        self.sandbox.resolve_rel(rel).map_err(|e| messages::sandbox_failure(&e, "resolve a path in the repository"))
    }
}
