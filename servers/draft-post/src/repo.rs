//! The repository: an index of its articles, the upsert (`draft_post`) and the listing
//! (`list_posts`) over it.
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
//! most [`FULL_REVALIDATION_MAX`] articles. An article found by its `source_id` is always read
//! whole, and checked to still carry that id, before it is rewritten.
//!
//! # Concurrency and crash safety
//! `draft_post` holds an exclusive lock on `projects/.draft-post.lock` (std `File::lock`, so
//! across processes) from the scan to the write. A new number is claimed with `create_dir`
//! (atomic: it fails if the name exists), and `article.md` is written atomically inside it
//! (temporary file, fsync, rename). A process killed between the claim and the rename leaves a
//! numbered directory holding nothing but a temporary file: the next new article of that
//! project takes that number again (reusing the directory, or replacing it when its slug
//! differs), so no number is ever skipped over.

use std::{
    collections::BTreeSet,
    io,
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard},
};

use cap_std::fs::Dir;
use mcp_shared::{
    ErrorCode,
    diff::BoundedDiff,
    sandbox::{Sandbox, SandboxError, SandboxPath, WriteOptions},
};

use crate::{
    frontmatter::{self, Located},
    index::{self, ArticleState, Entry, INDEX_FILE, Index, ProjectIndex, Seen, racy},
    slug,
    source::{self, SourceError, Sources},
    view::{self, Kind, Stamp, View, now_ns},
};

/// The lock file, in `projects/`.
pub const LOCK_FILE: &str = ".draft-post.lock";

/// The article's file name in its directory.
pub const ARTICLE: &str = "article.md";

/// Up to this many articles, every call `stat`s every article.
pub const FULL_REVALIDATION_MAX: usize = 1_000;

/// From this many directories to list or articles to read or `stat`, the work runs on several
/// threads.
const PARALLEL_MIN: usize = 64;

/// After this many articles (and a tenth of the index) were read, the index is saved to disk
/// for the next process.
const SAVE_AFTER_LOADS: usize = 64;

/// The most warnings a result carries (the rest are counted).
const MAX_WARNINGS: usize = 20;

/// The longest project name, in characters.
pub const MAX_PROJECT_CHARS: usize = 100;

/// The largest diff text an update's result carries (the counts are always whole).
pub const MAX_DIFF_BYTES: usize = 8 * 1024;

/// How often an allocation is retried when a number is taken under our feet.
const CLAIM_ATTEMPTS: usize = 8;

/// A failed call: the error code and a message a model can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The code.
    pub code: ErrorCode,
    /// The message.
    pub message: String,
}

impl Failure {
    /// A failure with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into() }
    }
}

/// Why the repository could not be opened at start.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The sandbox refused the directory (missing, not a directory, ...).
    #[error("cannot use the repository {path}: {source}")]
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
}

/// The outcome of `draft_post`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// What happened.
    pub action: Action,
    /// The article's project.
    pub project: String,
    /// Its number.
    pub number: u32,
    /// The slug of its directory name.
    pub slug: String,
    /// Its directory, relative to the repository.
    pub dir: String,
    /// Its `article.md`, relative to the repository.
    pub article: String,
    /// The manuscript's `source_id`.
    pub source_id: String,
    /// Malformed articles elsewhere, skipped.
    pub warnings: Vec<String>,
    /// For an update, what changed in the article (frontmatter included).
    pub diff: Option<BoundedDiff>,
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
    /// Its frontmatter `title` (null when it has none).
    #[schemars(required, extend("type" = ["string", "null"]))]
    pub title: Option<String>,
    /// Its frontmatter `source_id` (null when it has none).
    #[schemars(required, extend("type" = ["string", "null"]))]
    pub source_id: Option<String>,
    /// The article file, relative to the repository.
    pub path: String,
}

/// How thoroughly a refresh revalidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// Directories by mtime; articles only when in doubt (see the module docs).
    Fast,
    /// Every article `stat`ed too.
    Full,
}

/// `NN-slug` → (NN, slug).
pub fn parse_dir_name(name: &str) -> Option<(u32, &str)> {
    let (digits, rest) = name.split_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, rest))
}

/// The directory name of article `number` with `slug`: the number zero-padded to 2 digits
/// (3 and more past 99).
pub fn dir_name(number: u32, slug: &str) -> String {
    format!("{number:02}-{slug}")
}

/// Checks a project name: one path segment of letters, digits, `-`, `_` and `.`, not starting
/// with `.`, at most [`MAX_PROJECT_CHARS`] characters.
pub fn validate_project(project: &str) -> Result<(), String> {
    let why = if project.is_empty() {
        "it is empty".to_owned()
    } else if project.chars().count() > MAX_PROJECT_CHARS {
        format!("it is longer than {MAX_PROJECT_CHARS} characters")
    } else if project == "." || project == ".." {
        "it is not a directory name".to_owned()
    } else if project.starts_with('.') {
        "it starts with `.` (hidden directories are not projects)".to_owned()
    } else if let Some(c) = project.chars().find(|&c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))) {
        format!("it contains {c:?}")
    } else {
        return Ok(());
    };
    Err(format!(
        "Invalid `project` {project:?}: {why}. A project is one directory name of letters, digits, `-`, `_` and `.`, \
         e.g. \"2026-01\"; omit it for the current year-month."
    ))
}

/// A message for a sandbox failure on a path (our relative path: no host path is revealed).
fn sandbox_failure(error: &SandboxError, doing: &str) -> Failure {
    tracing::warn!(%error, doing, "repository operation failed");
    let path = error.path();
    let code = ErrorCode::parse(error.kind_code()).unwrap_or(ErrorCode::InternalError);
    let message = match error {
        SandboxError::OutsideRoot { .. } => format!(
            "Cannot {doing}: {path} leads outside the repository (a symlink pointing out of it?). Nothing was \
             written; remove that symlink, or file the article in another project."
        ),
        SandboxError::NotFound { .. } => {
            format!("Cannot {doing}: {path} disappeared meanwhile. Nothing was written; call draft_post again.")
        }
        SandboxError::AlreadyExists { .. } => format!("Cannot {doing}: {path} already exists. Call draft_post again."),
        SandboxError::IsADirectory { .. } => {
            format!("Cannot {doing}: {path} is a directory. Remove or rename it, then call again.")
        }
        SandboxError::NotADirectory { .. } => format!(
            "Cannot {doing}: something on the way to {path} is a file, not a directory. Remove or rename it, then \
             call again."
        ),
        SandboxError::PermissionDenied { .. } => format!(
            "Cannot {doing}: permission denied on {path}. Nothing was written; check the repository's permissions."
        ),
        SandboxError::InvalidPath { reason, .. } => format!("Cannot {doing}: {path}: {reason}."),
        SandboxError::Io { kind, .. } => format!(
            "Cannot {doing}: {path}: {kind}. Nothing was written; check free space and permissions, then call again."
        ),
    };
    Failure::new(code, message)
}

/// A message for a failure to scan `what` (relative to the repository).
fn scan_failure(error: &io::Error, what: &str) -> Failure {
    tracing::warn!(%error, what, "cannot scan the repository");
    let code = if error.kind() == io::ErrorKind::PermissionDenied {
        ErrorCode::AccessDenied
    } else {
        ErrorCode::InternalError
    };
    Failure::new(
        code,
        format!(
            "Cannot read {what} ({}): the articles cannot be looked up, so nothing was written. Check the \
             repository's permissions, then call again.",
            error.kind()
        ),
    )
}

/// Why an article could not be read, in words (never the OS text: it may name host paths).
fn describe_read_error(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::IsADirectory => "`article.md` is a directory".to_owned(),
        io::ErrorKind::PermissionDenied => {
            "it cannot be read (permission denied, or a symlink leading out of the repository)".to_owned()
        }
        io::ErrorKind::InvalidInput => "it is not a regular file".to_owned(),
        kind => format!("it cannot be read ({kind})"),
    }
}

/// Reads the state of one article from the start of its file.
fn classify(head: &view::Head, seen_at: i128) -> ArticleState {
    classify_bytes(&head.bytes, head.complete, head.stamp, seen_at)
}

/// [`classify`] of the first bytes of an article, `complete` when they are the whole file.
fn classify_bytes(bytes: &[u8], complete: bool, stamp: Stamp, seen_at: i128) -> ArticleState {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    match frontmatter::locate(bytes) {
        Located::None => ArticleState::Ok { seen: Seen { stamp, at: seen_at }, source_id: None, title: None },
        Located::Unclosed => ArticleState::Bad {
            stamp: Some(stamp),
            problem: if complete {
                "line 1, column 1: its frontmatter is never closed (no second `---` line)".to_owned()
            } else {
                format!(
                    "line 1, column 1: its frontmatter is not closed within the first {} bytes",
                    view::MAX_FRONTMATTER_BYTES
                )
            },
            hint: None,
        },
        Located::Found { yaml_start, yaml_end, .. } => match std::str::from_utf8(&bytes[yaml_start..yaml_end]) {
            Err(_) => {
                ArticleState::Bad { stamp: Some(stamp), problem: "its frontmatter is not UTF-8".to_owned(), hint: None }
            }
            Ok(yaml) => match frontmatter::read_meta(yaml, 2) {
                Ok(meta) => {
                    ArticleState::Ok { seen: Seen { stamp, at: seen_at }, source_id: meta.source_id, title: meta.title }
                }
                Err(e) => ArticleState::Bad {
                    stamp: Some(stamp),
                    problem: format!("malformed frontmatter at {e}"),
                    hint: frontmatter::source_id_hint(yaml),
                },
            },
        },
    }
}

/// Reads the state of `projects/<project>/<dir>/article.md`.
fn load(projects: &Dir, project: &str, dir: &str) -> ArticleState {
    let rel = format!("{project}/{dir}/{ARTICLE}");
    let seen_at = now_ns();
    match view::read_head(projects, &rel) {
        Ok(head) => classify(&head, seen_at),
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => ArticleState::Missing,
        Err(e) => {
            tracing::debug!(error = %e, project, dir, "cannot read an article");
            ArticleState::Bad { stamp: None, problem: describe_read_error(&e), hint: None }
        }
    }
}

/// The most articles one task of a scan reads (one open of their project directory each).
const LOAD_UNIT: usize = 256;

/// Reads the state of the articles `dirs` of `project` (`projects/<project>/<dir>/article.md`):
/// the project directory is opened once and each article beneath it, into one buffer.
fn load_unit(projects: &Dir, project: &str, dirs: &[String]) -> Vec<ArticleState> {
    let Ok(project_dir) = view::open_dir(projects, project) else {
        // Gone or unreadable meanwhile: each article says why.
        return dirs.iter().map(|dir| load(projects, project, dir)).collect();
    };
    let mut buf = Vec::new();
    let mut rel = String::with_capacity(64);
    // Taken before anything is read: an earlier moment only makes the "racy" rule stricter.
    let seen_at = now_ns();
    dirs.iter()
        .map(|dir| {
            rel.clear();
            rel.push_str(dir);
            rel.push('/');
            rel.push_str(ARTICLE);
            match view::read_head_into(&project_dir, Path::new(&rel), &mut buf) {
                Ok((filled, complete, stamp)) => classify_bytes(&buf[..filled], complete, stamp, seen_at),
                Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
                    ArticleState::Missing
                }
                Err(e) => {
                    tracing::debug!(error = %e, project, dir, "cannot read an article");
                    ArticleState::Bad { stamp: None, problem: describe_read_error(&e), hint: None }
                }
            }
        })
        .collect()
}

/// The states of the articles `jobs` (project, dir), in the order of `jobs`, read by project on
/// several threads.
fn load_all(projects: &Dir, jobs: &[(String, String)]) -> Vec<ArticleState> {
    // Units of consecutive jobs of one project (jobs come grouped by project).
    let mut units: Vec<(&str, Vec<String>)> = Vec::new();
    for (project, dir) in jobs {
        match units.last_mut() {
            Some((p, dirs)) if *p == project.as_str() && dirs.len() < LOAD_UNIT => dirs.push(dir.clone()),
            _ => units.push((project.as_str(), vec![dir.clone()])),
        }
    }
    let states: Vec<Vec<ArticleState>> = if jobs.len() < PARALLEL_MIN {
        units.iter().map(|(p, dirs)| load_unit(projects, p, dirs)).collect()
    } else {
        par_queue(&units, |(p, dirs)| load_unit(projects, p, dirs))
    };
    states.into_iter().flatten().collect()
}

/// `f` over `items` on several threads that each take the next item when done (items of
/// uneven cost balance out); the results in the order of `items`.
fn par_queue<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let (f, next) = (&f, &next);
    let mut slots: Vec<Option<R>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
        for handle in handles {
            match handle.join() {
                Ok(done) => {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                }
                // A worker's panic is the caller's (the server turns it into INTERNAL_ERROR).
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        slots
    });
    slots.drain(..).flatten().collect()
}

/// `f` over `items`, on several threads when there are at least [`PARALLEL_MIN`] of them.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() < PARALLEL_MIN {
        return items.iter().map(&f).collect();
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>())).collect();
        let mut out = Vec::with_capacity(items.len());
        for handle in handles {
            match handle.join() {
                Ok(part) => out.extend(part),
                // A worker's panic is the caller's (the server turns it into INTERNAL_ERROR).
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        out
    })
}

/// The index saved by an earlier process, if there is a usable one.
fn load_saved(projects: &Dir, projects_ino: u64) -> Option<Index> {
    let started = std::time::Instant::now();
    let bytes = match view::read_all(projects, INDEX_FILE, index::MAX_INDEX_BYTES) {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::debug!(%error, "no saved index");
            return None;
        }
    };
    let read = started.elapsed();
    let loaded = index::from_disk(&bytes, projects_ino);
    tracing::debug!(bytes = bytes.len(), usable = loaded.is_some(), ?read, total = ?started.elapsed(), "saved index read");
    loaded
}

/// Whether the article text carries `source_id: id`.
fn carries_id(bytes: &[u8], id: &str) -> bool {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let Located::Found { yaml_start, yaml_end, .. } = frontmatter::locate(bytes) else {
        return false;
    };
    std::str::from_utf8(&bytes[yaml_start..yaml_end])
        .ok()
        .and_then(|yaml| frontmatter::read_meta(yaml, 2).ok())
        .is_some_and(|meta| meta.source_id.as_deref() == Some(id))
}

/// The repository and the index of its articles.
#[derive(Debug)]
pub struct Repo {
    sandbox: Sandbox,
    view: View,
    fsync: bool,
    index: Mutex<Index>,
}

/// What a lookup found for a `source_id`.
struct Holders {
    /// Readable articles carrying the id: (project, dir).
    ok: Vec<(String, String)>,
    /// Malformed articles whose text names the id: (project, dir, problem).
    bad: Vec<(String, String, String)>,
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

    fn index(&self) -> MutexGuard<'_, Index> {
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

    fn resolve(&self, rel: &str) -> Result<SandboxPath, Failure> {
        self.sandbox.resolve_rel(rel).map_err(|e| sandbox_failure(&e, "resolve a path in the repository"))
    }

    /// Brings the index up to date with the disk; returns the open `projects/` (or `None`
    /// when it does not exist).
    fn refresh(&self, index: &mut Index, depth: Depth) -> Result<Option<Dir>, Failure> {
        let started = std::time::Instant::now();
        let Some((projects, stamp)) = self.view.projects().map_err(|e| scan_failure(&e, view::PROJECTS))? else {
            *index = Index { disk_checked: true, ..Index::default() };
            return Ok(None);
        };
        if !index.disk_checked {
            index.disk_checked = true;
            if let Some(saved) = load_saved(&projects, stamp.ino).filter(|_| index.projects.is_empty()) {
                *index = Index { disk_checked: true, ..saved };
            }
        }
        let full = depth == Depth::Full || index.article_count() <= FULL_REVALIDATION_MAX;

        // projects/ itself.
        if !Seen::holds(index.seen.as_ref(), &stamp) {
            let at = now_ns();
            let listed = view::list(&projects, ".").map_err(|e| scan_failure(&e, view::PROJECTS))?;
            let names: BTreeSet<String> =
                listed.into_iter().filter(|(n, k)| *k == Kind::Dir && !n.starts_with('.')).map(|(n, _)| n).collect();
            index.projects.retain(|name, _| names.contains(name));
            for name in names {
                index.projects.entry(name).or_default();
            }
            index.seen = Some(Seen { stamp, at });
        }

        // Each project directory: listed again when its stamp changed.
        let at = now_ns();
        let mut relist: Vec<(String, Stamp)> = Vec::new();
        let mut gone: Vec<String> = Vec::new();
        for (name, project) in &index.projects {
            let shown = format!("{}/{name}", view::PROJECTS);
            match view::lstat(&projects, name).map_err(|e| scan_failure(&e, &shown))? {
                Some(stamp) if stamp.is_dir => {
                    if !Seen::holds(project.seen.as_ref(), &stamp) {
                        relist.push((name.clone(), stamp));
                    }
                }
                _ => gone.push(name.clone()),
            }
        }
        for name in gone {
            index.projects.remove(&name);
        }
        let listings = par_map(&relist, |(name, _)| view::list(&projects, name));
        let mut relisted: BTreeSet<String> = BTreeSet::new();
        for ((name, stamp), listing) in relist.into_iter().zip(listings) {
            let listing = listing.map_err(|e| scan_failure(&e, &format!("{}/{name}", view::PROJECTS)))?;
            let mut numbered: Vec<(String, u32, Kind)> = listing
                .into_iter()
                .filter(|(_, kind)| *kind != Kind::Other)
                .filter_map(|(entry, kind)| parse_dir_name(&entry).map(|(n, _)| n).map(|n| (entry, n, kind)))
                .collect();
            // Names in a directory are unique: sorted, they build the map in bulk.
            numbered.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let fresh = |number: u32, kind: Kind| Entry {
                number,
                state: if kind == Kind::Symlink { ArticleState::Link } else { ArticleState::Unread },
            };
            let project = index.projects.entry(name.clone()).or_default();
            if project.entries.is_empty() {
                project.entries =
                    numbered.into_iter().map(|(entry, number, kind)| (entry, fresh(number, kind))).collect();
            } else {
                project.entries.retain(|entry, e| {
                    numbered
                        .binary_search_by(|(n, _, _)| n.as_str().cmp(entry))
                        .is_ok_and(|i| (numbered[i].2 == Kind::Symlink) == (e.state == ArticleState::Link))
                });
                for (entry, number, kind) in numbered {
                    project.entries.entry(entry).or_insert_with(|| fresh(number, kind));
                }
            }
            project.seen = Some(Seen { stamp, at });
            relisted.insert(name);
        }

        // Articles: read when new, `stat`ed when in doubt.
        let mut jobs: Vec<(String, String)> = Vec::new();
        let mut checks: Vec<(String, String)> = Vec::new();
        for (name, project) in &index.projects {
            let verify = full || relisted.contains(name);
            for (dir, entry) in &project.entries {
                match &entry.state {
                    ArticleState::Unread => jobs.push((name.clone(), dir.clone())),
                    ArticleState::Link => {}
                    ArticleState::Missing | ArticleState::Bad { .. } => checks.push((name.clone(), dir.clone())),
                    ArticleState::Ok { .. } if verify => checks.push((name.clone(), dir.clone())),
                    ArticleState::Ok { .. } => {}
                }
            }
        }
        let stamps = par_map(&checks, |(p, d)| view::stat(&projects, format!("{p}/{d}/{ARTICLE}")));
        for ((name, dir), current) in checks.into_iter().zip(stamps) {
            let Some(entry) = index.projects.get(&name).and_then(|p| p.entries.get(&dir)) else {
                continue;
            };
            let changed = match (&entry.state, current) {
                (ArticleState::Missing, None) => false,
                (ArticleState::Bad { stamp, .. }, current) => *stamp != current,
                // A stamp too recent to trust is read again only on a full revalidation: the fast
                // path trusts the article stamps it does not check anyway.
                (ArticleState::Ok { seen, .. }, Some(current)) => {
                    current != seen.stamp || (full && racy(&seen.stamp, seen.at))
                }
                _ => true,
            };
            if changed {
                jobs.push((name, dir));
            }
        }
        let listed = started.elapsed();
        let loaded = jobs.len();
        let states = load_all(&projects, &jobs);
        for ((project, dir), state) in jobs.into_iter().zip(states) {
            if let Some(entry) = index.projects.get_mut(&project).and_then(|p| p.entries.get_mut(&dir)) {
                entry.state = state;
            }
        }
        index.loads_since_saved += loaded;
        tracing::debug!(
            ?depth,
            articles = index.article_count(),
            relisted = relisted.len(),
            loaded,
            ?listed,
            total = ?started.elapsed(),
            "index refreshed"
        );
        Ok(Some(projects))
    }

    /// Saves the index for the next process when many articles were read since it was last
    /// saved. A failure only costs the next process a full scan. The caller holds the lock.
    fn save_index(&self, index: &mut Index) {
        // Rarely: when a tenth of the index (at least SAVE_AFTER_LOADS articles) is newer
        // than the saved copy. A stale copy only costs the next process some reading.
        if index.loads_since_saved < SAVE_AFTER_LOADS.max(index.article_count() / 10) {
            return;
        }
        let Ok(Some((projects, stamp))) = self.view.projects() else {
            return;
        };
        // Temporary files of saves cut short by a kill (saves happen under the lock, which the
        // caller holds: any such file now is a leftover).
        let prefix = format!(".{INDEX_FILE}");
        for (name, kind) in view::list(&projects, ".").unwrap_or_default() {
            if kind != Kind::Other || !view::is_temp_name(&name) || !name.starts_with(&prefix) {
                continue;
            }
            if let Ok(p) = self.sandbox.resolve_rel(&format!("{}/{name}", view::PROJECTS)) {
                let _ = self.sandbox.remove_file(&p);
            }
        }
        let bytes = index::to_disk(index, stamp.ino);
        let path = match self.sandbox.resolve_rel(&format!("{}/{INDEX_FILE}", view::PROJECTS)) {
            Ok(path) => path,
            Err(error) => {
                tracing::debug!(%error, "cannot save the index");
                return;
            }
        };
        // A cache: no fsync (a torn or lost file is ignored and rebuilt).
        let options = WriteOptions { fsync: false, ..WriteOptions::default() };
        match self.sandbox.write_atomic(&path, &bytes, &options) {
            Ok(()) => {
                index.loads_since_saved = 0;
                tracing::debug!(bytes = bytes.len(), "index saved");
            }
            Err(error) => tracing::debug!(%error, "cannot save the index"),
        }
    }

    /// Every article carrying `id`, and every malformed one whose text names it.
    fn holders(index: &Index, id: &str) -> Holders {
        let mut holders = Holders { ok: Vec::new(), bad: Vec::new() };
        for (project, p) in &index.projects {
            for (dir, entry) in &p.entries {
                match &entry.state {
                    ArticleState::Ok { source_id: Some(s), .. } if s == id => {
                        holders.ok.push((project.clone(), dir.clone()));
                    }
                    ArticleState::Bad { hint: Some(h), problem, .. } if h == id => {
                        holders.bad.push((project.clone(), dir.clone(), problem.clone()));
                    }
                    _ => {}
                }
            }
        }
        holders
    }

    /// The articles carrying `id`, or the `CONFLICT` when there are several, or when the
    /// manuscript's own article is malformed.
    fn unique_holder(index: &Index, id: &str) -> Result<Holders, Failure> {
        let holders = Self::holders(index, id);
        if holders.ok.len() > 1 {
            let dirs: Vec<String> = holders.ok.iter().map(|(p, d)| format!("{}/{p}/{d}", view::PROJECTS)).collect();
            return Err(Failure::new(
                ErrorCode::Conflict,
                format!(
                    "{} directories carry source_id {id} (this manuscript's): {}. One was probably copied by \
                     hand. Remove the copies (or their `source_id` line), keeping the one to update, then call \
                     draft_post again; nothing was written.",
                    dirs.len(),
                    dirs.join(" and ")
                ),
            ));
        }
        if let Some((p, d, problem)) = holders.bad.first() {
            return Err(Failure::new(
                ErrorCode::Conflict,
                format!(
                    "The article of this manuscript (source_id {id}), {}/{p}/{d}/{ARTICLE}, has {problem}. It \
                     is never rewritten while malformed: fix its frontmatter by hand (or remove it), then call \
                     draft_post again; nothing was written.",
                    view::PROJECTS
                ),
            ));
        }
        Ok(holders)
    }

    /// Warnings for malformed articles (and, with `missing`, directories without an article).
    fn warnings(index: &Index, missing: bool, only_project: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        let mut more = 0usize;
        for (project, p) in &index.projects {
            if only_project.is_some_and(|only| only != project) {
                continue;
            }
            for (dir, entry) in &p.entries {
                let text = match &entry.state {
                    ArticleState::Bad { problem, .. } => format!(
                        "{}/{project}/{dir}/{ARTICLE}: {problem}; skipped (never rewritten: fix or remove it by hand)",
                        view::PROJECTS
                    ),
                    ArticleState::Missing if missing => {
                        format!("{}/{project}/{dir} has no {ARTICLE}; skipped", view::PROJECTS)
                    }
                    _ => continue,
                };
                if out.len() < MAX_WARNINGS {
                    out.push(text);
                } else {
                    more += 1;
                }
            }
        }
        if more > 0 {
            out.push(format!("… and {more} more"));
        }
        out
    }

    /// `draft_post`: files the manuscript (see the module docs).
    ///
    /// `cancelled` is asked before anything is written; when it says yes, nothing is.
    pub fn draft_post(
        &self,
        request: &DraftRequest,
        sources: &Sources,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Outcome, Failure> {
        let manuscript = source::read_manuscript(sources, &request.source).map_err(source_failure)?;
        let id = manuscript.source_id.clone();
        let (text, meta) = frontmatter::compose_article(&manuscript.text, &id).map_err(|e| {
            Failure::new(
                ErrorCode::InvalidInput,
                format!(
                    "The manuscript {:?} has malformed frontmatter at line {}, column {}: {}. Fix the manuscript, \
                     then call draft_post again; nothing was written.",
                    manuscript.shown, e.line, e.column, e.message
                ),
            )
        })?;
        let new_slug = match &request.slug {
            Some(s) => s.clone(),
            None => slug::choose(meta.slug.as_deref(), meta.title.as_deref(), manuscript.stem.as_deref()).0,
        };

        // Everything from the look-up to the write happens under the repository's lock.
        let projects_path = self.resolve(view::PROJECTS)?;
        let lock_path = projects_path.join(LOCK_FILE).map_err(|e| sandbox_failure(&e, "lock the repository"))?;
        if !self.sandbox.exists(&lock_path).unwrap_or(true) {
            // No draft_post has locked this repository yet: look before creating the lock file,
            // so that a call refused for a conflict leaves the repository exactly as it was.
            let mut index = self.index();
            self.refresh(&mut index, Depth::Fast)?;
            Self::unique_holder(&index, &id)?;
        }
        let lock = match self.sandbox.open_lock_file(&lock_path) {
            Ok(file) => file,
            Err(SandboxError::NotFound { .. } | SandboxError::NotADirectory { .. }) => {
                self.sandbox
                    .create_dir_all(&projects_path)
                    .map_err(|e| sandbox_failure(&e, "create the projects directory"))?;
                self.sandbox.open_lock_file(&lock_path).map_err(|e| sandbox_failure(&e, "lock the repository"))?
            }
            Err(e) => return Err(sandbox_failure(&e, "lock the repository")),
        };
        lock.lock().map_err(|e| {
            tracing::warn!(error = %e, "cannot lock the repository");
            Failure::new(
                ErrorCode::InternalError,
                "Cannot lock the repository (projects/.draft-post.lock); call again.",
            )
        })?;
        let mut index = self.index();
        let result = self.upsert(&mut index, request, &id, &text, meta.title.clone(), &new_slug, cancelled);
        // A refused call writes nothing, not even the cache.
        if result.is_ok() {
            self.save_index(&mut index);
        }
        drop(index);
        drop(lock);
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn upsert(
        &self,
        index: &mut Index,
        request: &DraftRequest,
        id: &str,
        text: &str,
        title: Option<String>,
        new_slug: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Outcome, Failure> {
        let mut projects = self.refresh(index, Depth::Fast)?;
        let mut verified = false;
        for _ in 0..CLAIM_ATTEMPTS {
            let holders = Self::unique_holder(index, id)?;
            if let Some((project, dir)) = holders.ok.into_iter().next() {
                let rel = format!("{}/{project}/{dir}/{ARTICLE}", view::PROJECTS);
                let path = self.resolve(&rel)?;
                let current = match self.sandbox.read(&path) {
                    Ok(bytes) => Some(bytes),
                    Err(SandboxError::NotFound { .. }) => None,
                    Err(e) => return Err(sandbox_failure(&e, "read the existing article")),
                };
                if !current.as_deref().is_some_and(|b| carries_id(b, id)) {
                    // The index was stale (an article edited or removed by hand): look again, thoroughly.
                    if verified {
                        return Err(Failure::new(
                            ErrorCode::Conflict,
                            format!("{rel} keeps changing while draft_post runs; call it again."),
                        ));
                    }
                    verified = true;
                    index.distrust();
                    projects = self.refresh(index, Depth::Full)?;
                    continue;
                }
                if let Some(projects) = &projects {
                    self.sweep_temp_files(projects, &project, &dir);
                }
                let number = parse_dir_name(&dir).map_or(0, |(n, _)| n);
                let slug = parse_dir_name(&dir).map_or(String::new(), |(_, s)| s.to_owned());
                let (action, diff) = if current.as_deref() == Some(text.as_bytes()) {
                    (Action::Unchanged, None)
                } else {
                    if cancelled() {
                        return Err(cancelled_failure());
                    }
                    self.write_article(&path, text)?;
                    self.record(index, projects.as_ref(), &project, &dir, number, id, title.clone());
                    let old = String::from_utf8_lossy(current.as_deref().unwrap_or_default());
                    let diff =
                        mcp_shared::diff::unified(&old, text, &format!("a/{rel}"), &format!("b/{rel}"), MAX_DIFF_BYTES);
                    (Action::Updated, Some(diff))
                };
                return Ok(Outcome {
                    action,
                    dir: format!("{}/{project}/{dir}", view::PROJECTS),
                    article: rel,
                    project,
                    number,
                    slug,
                    source_id: id.to_owned(),
                    warnings: Self::warnings(index, false, None),
                    diff,
                });
            }

            // A new article: claim the next number of the project.
            if cancelled() {
                return Err(cancelled_failure());
            }
            let project = request.project.as_str();
            let project_rel = format!("{}/{project}", view::PROJECTS);
            let projects_dir = match projects.take() {
                Some(dir) => dir,
                None => {
                    let p = self.resolve(view::PROJECTS)?;
                    self.sandbox
                        .create_dir_all(&p)
                        .map_err(|e| sandbox_failure(&e, "create the projects directory"))?;
                    match self.refresh(index, Depth::Fast)? {
                        Some(dir) => dir,
                        None => return Err(Failure::new(ErrorCode::InternalError, "projects/ vanished; call again.")),
                    }
                }
            };
            if !index.projects.contains_key(project) {
                let p = self.resolve(&project_rel)?;
                self.sandbox.create_dir_all(&p).map_err(|e| sandbox_failure(&e, "create the project directory"))?;
                index.projects.insert(project.to_owned(), ProjectIndex::default());
            }
            let (number, name, reuse) = self.allocate(index, &projects_dir, project, new_slug)?;
            let dir_rel = format!("{project_rel}/{name}");
            let dir_path = self.resolve(&dir_rel)?;
            if !reuse {
                match self.sandbox.create_dir(&dir_path) {
                    Ok(()) => {}
                    Err(SandboxError::AlreadyExists { .. }) => {
                        // Taken by someone outside the lock (by hand): look again.
                        if let Some(p) = index.projects.get_mut(project) {
                            p.seen = None;
                        }
                        projects = self.refresh(index, Depth::Fast)?;
                        continue;
                    }
                    Err(e) => return Err(sandbox_failure(&e, "create the article's directory")),
                }
            }
            let article_rel = format!("{dir_rel}/{ARTICLE}");
            let article_path = self.resolve(&article_rel)?;
            if let Err(failure) = self.write_article(&article_path, text) {
                if !reuse {
                    // Leave no empty numbered directory behind.
                    let _ = view::remove_empty_dir(&projects_dir, format!("{project}/{name}"));
                }
                return Err(failure);
            }
            let project_index = index.projects.entry(project.to_owned()).or_default();
            project_index.entries.insert(name.clone(), Entry { number, state: ArticleState::Unread });
            self.record(index, Some(&projects_dir), project, &name, number, id, title.clone());
            return Ok(Outcome {
                action: Action::Created,
                project: project.to_owned(),
                number,
                slug: new_slug.to_owned(),
                dir: dir_rel,
                article: article_rel,
                source_id: id.to_owned(),
                warnings: Self::warnings(index, false, None),
                diff: None,
            });
        }
        Err(Failure::new(
            ErrorCode::Conflict,
            "The next number of the project kept being taken while draft_post ran; call it again.",
        ))
    }

    /// The number and directory name for a new article in `project`, and whether that
    /// directory is a crash leftover to reuse as it is.
    fn allocate(
        &self,
        index: &mut Index,
        projects: &Dir,
        project: &str,
        slug: &str,
    ) -> Result<(u32, String, bool), Failure> {
        let entries: Vec<(String, u32, bool)> = index
            .projects
            .get(project)
            .map(|p| {
                p.entries.iter().map(|(name, e)| (name.clone(), e.number, e.state == ArticleState::Missing)).collect()
            })
            .unwrap_or_default();
        // Leftovers: numbered directories holding nothing but temporary files.
        let mut live_max = 0u32;
        let mut leftovers: Vec<(u32, String, Vec<String>)> = Vec::new();
        for (name, number, missing) in entries {
            let temps = if missing {
                view::only_temp_files(projects, format!("{project}/{name}")).ok().flatten()
            } else {
                None
            };
            match temps {
                Some(temps) => leftovers.push((number, name, temps)),
                None => live_max = live_max.max(number),
            }
        }
        loop {
            let number = live_max.checked_add(1).ok_or_else(|| {
                Failure::new(
                    ErrorCode::InvalidArgs,
                    format!("Project {project:?} has no number left; use another project."),
                )
            })?;
            let name = dir_name(number, slug);
            let mut reuse = false;
            let mut blocked = false;
            for (n, leftover, temps) in leftovers.iter().filter(|(n, _, _)| *n == number) {
                for temp in temps {
                    if let Ok(p) = self.resolve(&format!("{}/{project}/{leftover}/{temp}", view::PROJECTS)) {
                        let _ = self.sandbox.remove_file(&p);
                    }
                }
                if *leftover == name {
                    reuse = true;
                } else if view::remove_empty_dir(projects, format!("{project}/{leftover}")).is_ok() {
                    if let Some(p) = index.projects.get_mut(project) {
                        p.entries.remove(leftover);
                    }
                } else {
                    tracing::warn!(project, dir = leftover, n, "cannot remove an empty leftover directory");
                    blocked = true;
                }
            }
            if blocked {
                live_max = number;
                continue;
            }
            if reuse {
                tracing::info!(project, dir = name, "reusing a directory left by an interrupted draft_post");
            }
            return Ok((number, name, reuse));
        }
    }

    /// Removes temporary files of interrupted writes of `article.md` from an article's
    /// directory (only draft_post writes there, and it holds the lock).
    fn sweep_temp_files(&self, projects: &Dir, project: &str, dir: &str) {
        let Ok(entries) = view::list(projects, format!("{project}/{dir}")) else {
            return;
        };
        for (name, kind) in entries {
            if kind != Kind::Other || !view::is_temp_name(&name) || !name.starts_with(".article.md") {
                continue;
            }
            if let Ok(p) = self.resolve(&format!("{}/{project}/{dir}/{name}", view::PROJECTS)) {
                tracing::info!(project, dir, "removing the temporary file of an interrupted write");
                let _ = self.sandbox.remove_file(&p);
            }
        }
    }

    fn write_article(&self, path: &SandboxPath, text: &str) -> Result<(), Failure> {
        let options = WriteOptions { fsync: self.fsync, ..WriteOptions::default() };
        self.sandbox.write_atomic(path, text.as_bytes(), &options).map_err(|e| sandbox_failure(&e, "write the article"))
    }

    /// Records in the index what was just written.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        index: &mut Index,
        projects: Option<&Dir>,
        project: &str,
        dir: &str,
        number: u32,
        id: &str,
        title: Option<String>,
    ) {
        let seen_at = now_ns();
        let stamp = projects.and_then(|d| view::stat(d, format!("{project}/{dir}/{ARTICLE}")));
        let state = match stamp {
            Some(stamp) => {
                ArticleState::Ok { seen: Seen { stamp, at: seen_at }, source_id: Some(id.to_owned()), title }
            }
            _ => ArticleState::Unread,
        };
        let p = index.projects.entry(project.to_owned()).or_default();
        p.entries.insert(dir.to_owned(), Entry { number, state });
    }

    /// `list_posts`: every readable article (of `project`, if given), in project and number
    /// order, and warnings for what was skipped.
    pub fn list_posts(&self, project: Option<&str>) -> Result<(Vec<Post>, Vec<String>), Failure> {
        let mut index = self.index();
        self.refresh(&mut index, Depth::Full)?;
        let mut posts = Vec::new();
        for (name, p) in &index.projects {
            if project.is_some_and(|only| only != name) {
                continue;
            }
            let mut entries: Vec<(&String, &Entry)> = p.entries.iter().collect();
            entries.sort_by(|a, b| (a.1.number, a.0).cmp(&(b.1.number, b.0)));
            for (dir, entry) in entries {
                if let ArticleState::Ok { source_id, title, .. } = &entry.state {
                    posts.push(Post {
                        project: name.clone(),
                        number: entry.number,
                        slug: parse_dir_name(dir).map_or(String::new(), |(_, s)| s.to_owned()),
                        title: title.clone(),
                        source_id: source_id.clone(),
                        path: format!("{}/{name}/{dir}/{ARTICLE}", view::PROJECTS),
                    });
                }
            }
        }
        let warnings = Self::warnings(&index, true, project);
        Ok((posts, warnings))
    }
}

fn cancelled_failure() -> Failure {
    Failure::new(ErrorCode::Cancelled, "draft_post was cancelled before it wrote anything; nothing was changed.")
}

/// The failure for a manuscript that was refused or could not be read.
fn source_failure(error: SourceError) -> Failure {
    let code = error.code();
    let mut message = error.to_string();
    if let Some(first) = message.get(..1) {
        let upper = first.to_uppercase();
        message.replace_range(..1, &upper);
    }
    Failure::new(code, format!("{message}. Nothing was written."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_names_pad_to_two_digits_and_grow() {
        assert_eq!(dir_name(1, "a"), "01-a");
        assert_eq!(dir_name(34, "mcp-article"), "34-mcp-article");
        assert_eq!(dir_name(99, "a"), "99-a");
        assert_eq!(dir_name(100, "a"), "100-a");
        assert_eq!(dir_name(1000, "a"), "1000-a");
        assert_eq!(parse_dir_name("07-x-y"), Some((7, "x-y")));
        assert_eq!(parse_dir_name("100-"), Some((100, "")));
        assert_eq!(parse_dir_name("x-1"), None);
        assert_eq!(parse_dir_name("-1"), None);
        assert_eq!(parse_dir_name("12"), None);
        assert_eq!(parse_dir_name("99999999999-x"), None);
    }

    #[test]
    fn project_names_are_one_plain_segment() {
        for ok in ["2026-01", "blog", "a.b_c-d", "日記", "v1.2"] {
            assert_eq!(validate_project(ok), Ok(()), "{ok}");
        }
        for bad in ["", ".", "..", "../x", "a/b", ".hidden", "a b", "a\\b", "x\0", &"y".repeat(101)] {
            let e = validate_project(bad).unwrap_err();
            assert!(e.contains("Invalid `project`"), "{e}");
        }
    }

    #[test]
    fn classify_reads_source_id_and_title_or_reports_the_problem() {
        let head = |text: &str| view::Head {
            bytes: text.as_bytes().to_vec(),
            complete: true,
            stamp: Stamp { mtime_ns: 0, len: text.len() as u64, ino: 1, is_dir: false, is_symlink: false },
        };
        match classify(&head("---\ntitle: T\nsource_id: abcdefabcdefabcd\n---\nbody"), 5) {
            ArticleState::Ok { source_id, title, .. } => {
                assert_eq!(source_id.as_deref(), Some("abcdefabcdefabcd"));
                assert_eq!(title.as_deref(), Some("T"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify(&head("no frontmatter"), 5), ArticleState::Ok { source_id: None, .. }));
        match classify(&head("---\ntitle: [x\nsource_id: abcdefabcdefabcd\n---\n"), 5) {
            ArticleState::Bad { problem, hint, .. } => {
                assert!(problem.contains("line 3, column 10"), "{problem}");
                assert_eq!(hint.as_deref(), Some("abcdefabcdefabcd"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify(&head("---\ntitle: x\n"), 5), ArticleState::Bad { .. }));
    }

    #[test]
    fn the_grouped_parallel_scan_reads_what_one_article_at_a_time_reads() {
        let tmp = tempfile::tempdir().unwrap();
        let mut jobs = Vec::new();
        // More articles than a unit holds in one project, a small project, and a project whose
        // jobs come in two runs; missing, malformed and directory-shaped articles among them.
        for (project, count) in [("big", 2 * LOAD_UNIT + 7), ("small", 5)] {
            for n in 1..=count {
                let dir = format!("{n:03}-a");
                let path = tmp.path().join(format!("projects/{project}/{dir}"));
                std::fs::create_dir_all(&path).unwrap();
                match n % 50 {
                    7 => {}
                    8 => std::fs::write(path.join(ARTICLE), "---\ntitle: [\n---\n").unwrap(),
                    9 => std::fs::create_dir(path.join(ARTICLE)).unwrap(),
                    _ => std::fs::write(
                        path.join(ARTICLE),
                        format!("---\ntitle: T{n}\nsource_id: {n:016x}\n---\nbody {n}\n"),
                    )
                    .unwrap(),
                }
                jobs.push((project.to_owned(), dir));
            }
        }
        jobs.push(("big".to_owned(), "001-a".to_owned()));
        jobs.push(("gone".to_owned(), "01-x".to_owned()));
        let view = View::open(tmp.path()).unwrap();
        let (projects, _) = view.projects().unwrap().unwrap();
        let grouped = load_all(&projects, &jobs);
        assert_eq!(grouped.len(), jobs.len());
        let strip = |state: ArticleState| match state {
            ArticleState::Ok { seen, source_id, title } => (Some(seen.stamp), source_id, title, String::new()),
            ArticleState::Bad { stamp, problem, hint } => (stamp, hint, None, problem),
            other => (None, None, None, format!("{other:?}")),
        };
        for ((project, dir), state) in jobs.iter().zip(grouped) {
            assert_eq!(strip(state), strip(load(&projects, project, dir)), "{project}/{dir}");
        }
    }

    #[test]
    fn par_queue_keeps_the_order() {
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(par_queue(&items, |i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(par_queue(&[] as &[usize], |i| *i).is_empty());
    }

    #[test]
    fn carries_id_checks_the_frontmatter() {
        assert!(carries_id(b"---\nsource_id: abc\n---\n", "abc"));
        assert!(carries_id("\u{feff}---\nsource_id: \"abc\"\n---\n".as_bytes(), "abc"));
        assert!(!carries_id(b"---\nsource_id: abd\n---\n", "abc"));
        assert!(!carries_id(b"source_id: abc\n", "abc"));
    }
}
