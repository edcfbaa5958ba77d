//! Where draft-post works, per call: the repository the articles go to, and the directories
//! manuscripts may come from.
//!
//! **The repository.** `--repo DIR` when given. Without it, the client's MCP roots when it
//! declares exactly one (a host that opened one project folder); several roots are ambiguous
//! (which one is the blog?), so they choose nothing. Then the working directory, only if it is a
//! plausible project (not `/`, the home directory or a system directory: Claude Desktop starts
//! servers in `/`). Otherwise there is no repository: the server still starts and lists its
//! tools, and every call is refused with the flag to add.
//!
//! **The sources.** `--source-root DIR` (repeatable) when given. Without it: the repository
//! itself, its parent directory and the working directory, each only when it is a plausible
//! project directory (never `/`, the home directory as a whole or a system directory): the
//! places a draft written beside the blog, or in the agent's project, usually lives. When the
//! client declares MCP roots, they narrow these the way the text editor's do (never widen).
//!
//! The client's roots come from [`ToolContext::client_roots`] (asked for once per session, or
//! carried by each 2026-07-28 call: [`mcp_shared::client_roots`]).

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex, MutexGuard, OnceLock},
};

use mcp_shared::{
    ErrorCode, ToolContext, ToolError,
    sandbox::Sandbox,
    workspace::{DirectoryFlag, Startup, is_plausible_project, no_workspace_message},
};

use crate::{
    repo::{Repo, RepoConfig},
    source::Sources,
};

/// Repositories opened from client roots that are kept open.
const MAX_REPOS: usize = 16;

/// What the flags say.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `--repo`, if given.
    pub repo: Option<PathBuf>,
    /// `--source-root` (empty: the defaults).
    pub source_roots: Vec<PathBuf>,
    /// The server's working directory (relative manuscript paths are resolved against it).
    pub cwd: PathBuf,
    /// The user's home directory (never a default directory as a whole).
    pub home: Option<PathBuf>,
    /// `--max-manuscript-size`.
    pub max_manuscript_bytes: u64,
    /// Whether writes are fsync'ed (`--no-fsync` clears it).
    pub fsync: bool,
    /// Whether a manuscript may be sent as `content` (`--no-content` clears it).
    pub accept_content: bool,
    /// `--max-attachment-size` and `--max-attachments-total`.
    pub attachment_limits: crate::attach::AttachmentLimits,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `--repo` could not be opened.
    #[error(transparent)]
    Repo(#[from] crate::repo::OpenError),
    /// A `--source-root` is missing or not a directory.
    #[error("invalid --source-root: {0}; give an existing directory (an absolute path, or `~/…`)")]
    SourceRoot(#[from] mcp_shared::sandbox::SandboxError),
}

/// A repository and the source directories that go with it (before the client narrows them).
#[derive(Debug, Clone)]
struct Place {
    repo: Arc<Repo>,
    /// The default source directories of this repository, opened on the first `draft_post`
    /// (not at start: a cold start stays as short as it can be); `None` inside when there is
    /// none.
    sources: Arc<OnceLock<Option<Sandbox>>>,
}

impl Place {
    /// The default source directories (see [`default_source_roots`]).
    fn default_sources(&self, settings: &Settings) -> Option<Sandbox> {
        self.sources
            .get_or_init(|| {
                let roots = default_source_roots(self.repo.root(), &settings.cwd, settings.home.as_deref());
                Sandbox::new(&roots).ok()
            })
            .clone()
    }
}

/// Where one call works.
#[derive(Debug, Clone)]
pub struct Target {
    /// The repository.
    pub repo: Arc<Repo>,
    place: Place,
    /// The client's roots, when it declares them.
    client_roots: Option<Vec<PathBuf>>,
}

/// The configured places and, per client session, what the client's roots make of them.
pub struct Places {
    settings: Settings,
    /// `--repo`.
    fixed: Option<Place>,
    /// The working directory as the repository, when it is a plausible project.
    cwd_place: Option<Place>,
    /// `--source-root`, when given (`Some(None)`: given, but none is usable).
    explicit_sources: Option<Option<Sandbox>>,
    /// Repositories opened from client roots.
    opened: Mutex<Vec<Place>>,
    /// The start-up decision, for [`Places::log_startup`].
    startup: Startup,
}

impl std::fmt::Debug for Places {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Places").field("settings", &self.settings).finish_non_exhaustive()
    }
}

/// The default source directories for `repo`: the repository, its parent and the working
/// directory, each only when it is a plausible project directory (so never `/`, the home
/// directory as a whole or a system directory, even for an explicit `--repo ~`).
pub fn default_source_roots(repo: &Path, cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    [Some(repo), repo.parent(), Some(cwd)]
        .into_iter()
        .flatten()
        .filter(|dir| is_plausible_project(dir, home))
        .map(Path::to_path_buf)
        .collect()
}

/// Whether the directory `root` (as given, relative to `cwd`) is a symlink, or is reached
/// through one, that leads into a hidden directory: `--source-root ~/drafts` where `~/drafts` is
/// a link to `~/.ssh`. The hidden components of its real path must all be in the path as given
/// (a root the user names inside a hidden directory, or a temporary directory such as
/// `/tmp/.tmpXYZ`, is their explicit choice); such a root is not used, and the log says why.
fn leads_into_hidden(root: &Path, cwd: &Path) -> bool {
    let hidden = |p: &Path| -> Vec<std::ffi::OsString> {
        p.components()
            .filter_map(|c| match c {
                std::path::Component::Normal(name) if name.as_encoded_bytes().starts_with(b".") => {
                    Some(name.to_owned())
                }
                _ => None,
            })
            .collect()
    };
    let given = cwd.join(root);
    let introduced = std::fs::canonicalize(&given).is_ok_and(|real| {
        let named = hidden(&given);
        hidden(&real).iter().any(|h| !named.contains(h))
    });
    if introduced {
        tracing::warn!(
            root = %root.display(),
            "--source-root leads through a symlink into a hidden directory: not used (name the directory itself if \
             that is really meant)"
        );
    }
    introduced
}

/// How the messages name `--repo`.
pub const REPO_FLAG: DirectoryFlag<'static> =
    DirectoryFlag { server: crate::NAME, flag: "--repo", what: "blog repository", example: "/path/to/blog" };

/// The message of every call when there is no repository.
pub fn no_repository_message(client_roots: Option<usize>) -> String {
    let mut message = no_workspace_message(&REPO_FLAG);
    if let Some(n) = client_roots.filter(|n| *n > 1) {
        message.push_str(&format!(
            " (The client declared {n} roots: the repository is taken from a client's roots only when there is \
             exactly one.)"
        ));
    }
    message
}

impl Places {
    /// The workspace of `settings`: `--repo` and `--source-root` are opened now (a missing one
    /// is an error), the working directory if it is a plausible project. What was decided is
    /// logged by [`Places::log_startup`] (here only when opening fails), so that a stdio start
    /// answers `initialize` before it pays for its first log line.
    pub fn new(settings: Settings) -> Result<Places, SetupError> {
        let explicit_sources = if settings.source_roots.is_empty() {
            None
        } else {
            // Missing or not a directory: an error at start, as for --repo.
            Sandbox::new(&settings.source_roots)?;
            let usable: Vec<&PathBuf> =
                settings.source_roots.iter().filter(|root| !leads_into_hidden(root, &settings.cwd)).collect();
            Some(if usable.is_empty() { None } else { Some(Sandbox::new(usable)?) })
        };
        let startup = mcp_shared::workspace::decide(
            settings.repo.iter().cloned().collect(),
            Ok(settings.cwd.clone()),
            settings.home.as_deref(),
        );
        let (fixed, cwd_place) = match &startup {
            Startup::Explicit(dirs) => match dirs.first().map(|repo| Self::place(&settings, repo)).transpose() {
                Ok(fixed) => (fixed, None),
                Err(error) => {
                    startup.log(&REPO_FLAG, settings.home.as_deref());
                    return Err(error);
                }
            },
            Startup::WorkingDirectory(cwd) => (None, Self::place(&settings, cwd).ok()),
            Startup::None { .. } => (None, None),
        };
        Ok(Places { settings, fixed, cwd_place, explicit_sources, opened: Mutex::new(Vec::new()), startup })
    }

    /// Logs the start-up decision: where the repository is, and a warning for `--source-root /`.
    pub fn log_startup(&self) {
        self.startup.log(&REPO_FLAG, self.settings.home.as_deref());
        if let Some(Some(sources)) = &self.explicit_sources {
            for root in sources.roots() {
                if root.parent().is_none() {
                    tracing::warn!("--source-root / lets any Markdown file of the machine be filed: explicit choice");
                }
            }
        }
    }

    /// Whether a repository is known without asking the client (`--repo`, or the working
    /// directory as a project).
    pub fn has_repository(&self) -> bool {
        self.fixed.is_some() || self.cwd_place.is_some()
    }

    fn place(settings: &Settings, repo: &Path) -> Result<Place, SetupError> {
        let repo = Arc::new(Repo::open(&RepoConfig { repo: repo.to_path_buf(), fsync: settings.fsync })?);
        Ok(Place { repo, sources: Arc::new(OnceLock::new()) })
    }

    /// Where a call works, or the refusal when there is no repository. A client's root is
    /// opened as the repository on the blocking pool.
    pub async fn target(self: &Arc<Self>, ctx: &ToolContext) -> Result<Target, ToolError> {
        let client_roots = ctx.client_roots().await.map(|roots| mcp_shared::client_roots::paths(&roots));
        let place = match (&self.fixed, client_roots.as_deref()) {
            (Some(fixed), _) => fixed.clone(),
            (None, Some([only])) => {
                let (this, only) = (Arc::clone(self), only.clone());
                match mcp_shared::blocking("Opening the repository", move || this.opened_place(&only)).await? {
                    Some(place) => place,
                    None => self.cwd_place.clone().ok_or_else(|| no_repository(Some(1)))?,
                }
            }
            (None, roots) => self.cwd_place.clone().ok_or_else(|| no_repository(roots.map(<[PathBuf]>::len)))?,
        };
        Ok(Target { repo: Arc::clone(&place.repo), place, client_roots })
    }

    /// Where manuscripts may come from for a call to `target` (asked only by `draft_post`):
    /// `--source-root` or the defaults, narrowed by the client's roots; or why nowhere. It looks
    /// directories up: call it off the runtime.
    pub fn sources(&self, target: &Target) -> Result<Sources, ToolError> {
        let configured = match &self.explicit_sources {
            Some(explicit) => explicit.clone(),
            None => target.place.default_sources(&self.settings),
        };
        let Some(configured) = configured else {
            return Err(ToolError::new(
                ErrorCode::OutsideRoot,
                "No directory is allowed for manuscripts; ask the user to start the server with --source-root DIR \
                 (the directory the drafts are written in).",
            ));
        };
        let roots = match target.client_roots.as_deref() {
            Some(roots) if !roots.is_empty() => configured.narrowed(roots).map_err(|error| match error {
                mcp_shared::sandbox::SandboxError::OutsideRoot { .. } => ToolError::new(
                    ErrorCode::OutsideRoot,
                    "No directory is allowed for manuscripts: none of the client's roots lies inside the allowed \
                     source directories (the blog repository, the directory that holds it, the server's working \
                     directory, or those given with --source-root). Ask the user to add a root there.",
                ),
                other => ToolError::from(other),
            })?,
            _ => configured,
        };
        Ok(Sources { roots, base: self.settings.cwd.clone(), max_bytes: self.settings.max_manuscript_bytes })
    }

    /// Whether a manuscript may be sent as `content` (not `--no-content`).
    pub fn accepts_content(&self) -> bool {
        self.settings.accept_content
    }

    /// The bounds of a call's attachments.
    pub fn attachment_limits(&self) -> crate::attach::AttachmentLimits {
        self.settings.attachment_limits
    }

    /// What a manuscript sent as content is judged by: the directory a relative `source` is
    /// taken from (the working directory, as for a file), and the largest manuscript.
    pub fn content_rules(&self) -> (PathBuf, u64) {
        (self.settings.cwd.clone(), self.settings.max_manuscript_bytes)
    }

    /// The repository at the client's root `dir`, opened once.
    fn opened_place(&self, dir: &Path) -> Option<Place> {
        let canonical = std::fs::canonicalize(dir).ok()?;
        let mut opened = lock(&self.opened);
        if let Some(place) = opened.iter().find(|p| p.repo.root() == canonical) {
            return Some(place.clone());
        }
        match Self::place(&self.settings, &canonical) {
            Ok(place) => {
                tracing::info!(repo = %canonical.display(), "the repository is the client's root");
                if opened.len() >= MAX_REPOS {
                    opened.remove(0);
                }
                opened.push(place.clone());
                Some(place)
            }
            Err(error) => {
                tracing::warn!(%error, "cannot open the client's root as the repository");
                None
            }
        }
    }
}

fn no_repository(client_roots: Option<usize>) -> ToolError {
    ToolError::new(ErrorCode::Unavailable, no_repository_message(client_roots))
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sources_never_take_the_root_or_home_as_a_whole() {
        let home = Path::new("/home/someone");
        let roots = default_source_roots(Path::new("/home/someone/blog"), Path::new("/"), Some(home));
        assert_eq!(roots, vec![PathBuf::from("/home/someone/blog")]);
        let roots = default_source_roots(Path::new("/work/blogs/a"), Path::new("/work/agent"), Some(home));
        assert_eq!(roots, vec![PathBuf::from("/work/blogs/a"), "/work/blogs".into(), "/work/agent".into()]);
        let roots = default_source_roots(Path::new("/blog"), Path::new("/home/someone"), Some(home));
        assert_eq!(roots, vec![PathBuf::from("/blog")]);
        // An explicit repository that is the home directory is no source directory by default.
        assert!(default_source_roots(Path::new("/home/someone"), Path::new("/"), Some(home)).is_empty());
    }
}
