//! `draft_post`: the look-up of the manuscript's article and its update, or the claim of the
//! next number and a new article, all under the repository's lock.

use cap_std::fs::Dir;
use mcp_shared::{
    ErrorCode, ToolError,
    sandbox::{SandboxError, SandboxPath, WriteOptions},
};

use super::{
    ARTICLE, Action, Change, DraftRequest, LOCK_DIR, LOCK_DIR_GITIGNORE, LOCK_FILE, Outcome, Repo, Submission,
    layout::{dir_name, parse_dir_name},
    messages::{cancelled_failure, sandbox_failure},
    scan::{Depth, carries_id},
};
use crate::{
    attach::Attachment,
    frontmatter,
    index::{ArticleState, Entry, Index, Listed, ProjectIndex, Seen},
    projects::{self, Kind, now_ns},
    slug,
};

/// The largest diff text an update's result carries (the counts are always whole).
pub const MAX_DIFF_BYTES: usize = 8 * 1024;

/// How often an allocation is retried when a number is taken under our feet.
const CLAIM_ATTEMPTS: usize = 8;

/// What a lookup found for a `source_id`.
struct Holders {
    /// Readable articles carrying the id: (project, dir).
    ok: Vec<(String, String)>,
    /// Malformed articles whose text names the id: (project, dir, problem).
    bad: Vec<(String, String, String)>,
}

/// The article a call files: its manuscript's `source_id`, its whole text, its title (for the
/// index) and the slug a new article's directory gets.
struct Filing<'a> {
    id: &'a str,
    text: &'a str,
    title: Option<String>,
    listed: Listed,
    new_slug: &'a str,
    /// The attachments to write beside the article: checked on disk before it is written.
    attachments: &'a [Attachment],
}

/// An article just written: where it is and what its frontmatter now says (for the index).
struct Written<'a> {
    project: &'a str,
    dir: &'a str,
    number: u32,
    id: &'a str,
    title: Option<String>,
    listed: Listed,
}

impl Repo {
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
    fn unique_holder(index: &Index, id: &str) -> Result<Holders, ToolError> {
        let holders = Self::holders(index, id);
        if holders.ok.len() > 1 {
            let dirs: Vec<String> = holders.ok.iter().map(|(p, d)| format!("{}/{p}/{d}", projects::PROJECTS)).collect();
            return Err(ToolError::new(
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
            return Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "The article of this manuscript (source_id {id}), {}/{p}/{d}/{ARTICLE}, has {problem}. It \
                     is never rewritten while malformed: fix its frontmatter by hand (or remove it), then call \
                     draft_post again; nothing was written.",
                    projects::PROJECTS
                ),
            ));
        }
        Ok(holders)
    }

    /// `draft_post`: files the manuscript and its attachments (see the module docs); with
    /// `request.dry_run`, says what would happen and writes nothing.
    ///
    /// `cancelled` is asked before anything is written; when it says yes, nothing is.
    pub fn draft_post(
        &self,
        request: &DraftRequest,
        submission: &Submission,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Outcome, ToolError> {
        let manuscript = &submission.manuscript;
        let id = manuscript.source_id.clone();
        let (text, meta) = frontmatter::compose_article(&manuscript.text, &id).map_err(|e| {
            ToolError::new(
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
        let filing = Filing {
            id: &id,
            text: &text,
            title: meta.title.clone(),
            listed: Listed::of(&meta),
            new_slug: &new_slug,
            attachments: &submission.attachments,
        };
        let with_links = |mut outcome: Outcome| {
            let mut warnings = submission.warnings.clone();
            warnings.append(&mut outcome.warnings);
            outcome.warnings = warnings;
            outcome
        };
        if request.dry_run {
            return self.preview(request, &filing, &submission.attachments).map(with_links);
        }

        // Everything from the look-up to the write happens under the repository's lock.
        let projects_path = self.resolve(projects::PROJECTS)?;
        let lock_dir = projects_path.join(LOCK_DIR).map_err(|e| sandbox_failure(&e, "lock the repository"))?;
        let lock_path = lock_dir.join(LOCK_FILE).map_err(|e| sandbox_failure(&e, "lock the repository"))?;
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
                    .create_dir_all(&lock_dir)
                    .map_err(|e| sandbox_failure(&e, "create the projects directory"))?;
                // A `.gitignore` that ignores the lock and itself: `git status` stays clean.
                let ignore = lock_dir.join(".gitignore").map_err(|e| sandbox_failure(&e, "lock the repository"))?;
                if let Err(error) =
                    self.sandbox.write_atomic(&ignore, LOCK_DIR_GITIGNORE.as_bytes(), &WriteOptions::default())
                {
                    tracing::warn!(%error, "could not write projects/.draft-post/.gitignore");
                }
                self.sandbox.open_lock_file(&lock_path).map_err(|e| sandbox_failure(&e, "lock the repository"))?
            }
            Err(e) => return Err(sandbox_failure(&e, "lock the repository")),
        };
        lock.lock().map_err(|e| {
            tracing::warn!(error = %e, "cannot lock the repository");
            ToolError::new(
                ErrorCode::InternalError,
                "Cannot lock the repository (projects/.draft-post/lock); call again.",
            )
        })?;
        let mut index = self.index();
        let result = self
            .upsert(&mut index, request, &filing, cancelled)
            .and_then(|outcome| self.attach(outcome, &submission.attachments, false, cancelled))
            .map(with_links);
        // A refused call writes nothing, not even the cache.
        if result.is_ok() {
            self.save_index(&mut index);
        }
        drop(index);
        drop(lock);
        result
    }

    /// Refuses the call, before anything is written, when an attachment could not be written
    /// beneath the article's directory `dir` as named: a symbolic link on its way or in its
    /// place (it would write elsewhere: another article, the repository's README), a file where
    /// a directory must be, a directory where the file goes.
    fn check_attachments(&self, dir: &str, attachments: &[Attachment]) -> Result<(), ToolError> {
        if attachments.is_empty() {
            return Ok(());
        }
        let dir_path = self.resolve(dir)?;
        for (i, attachment) in attachments.iter().enumerate() {
            self.sandbox.write_beneath(&dir_path, &attachment.path, None, &WriteOptions::default()).map_err(|e| {
                ToolError::new(
                    ErrorCode::InvalidArgs,
                    format!(
                        "Attachment {} cannot be written beside the article: {}. Nothing was written (neither the article nor any attachment).",
                        i + 1,
                        e.public_message()
                    ),
                )
            })?;
        }
        Ok(())
    }

    /// The files of `attachments` beside the article of `outcome` whose bytes are not there yet,
    /// written (unless `dry_run`), and listed in the outcome. Other files there are never touched,
    /// and nothing is written through a symbolic link. A dry run refuses what the call would.
    fn attach(
        &self,
        mut outcome: Outcome,
        attachments: &[Attachment],
        dry_run: bool,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Outcome, ToolError> {
        if dry_run {
            self.check_attachments(&outcome.dir, attachments)?;
        }
        let dir_path = self.resolve(&outcome.dir)?;
        for attachment in attachments {
            let rel = format!("{}/{}", outcome.dir, attachment.path);
            let path = self.resolve(&rel)?;
            match self.sandbox.read(&path) {
                Ok(bytes) if bytes == attachment.bytes => continue,
                Ok(_) | Err(SandboxError::NotFound { .. }) => {}
                // A directory (or anything unreadable) in its place: refused below.
                Err(_) => {}
            }
            if !dry_run {
                if cancelled() {
                    return Err(cancelled_failure());
                }
                let options = WriteOptions { fsync: self.fsync, create_parents: true, ..WriteOptions::default() };
                self.sandbox.write_beneath(&dir_path, &attachment.path, Some(&attachment.bytes), &options).map_err(|e| {
                    let mut failure = sandbox_failure(&e, "write an attachment");
                    failure.message = format!(
                        "{} (attachment {rel}; the article itself is {} and the attachments listed before it are written)",
                        failure.message,
                        outcome.action.as_str()
                    );
                    failure
                })?;
            }
            outcome.attachments.push(rel);
        }
        Ok(outcome)
    }

    /// What `draft_post` would do, without the lock and without writing anything.
    fn preview(
        &self,
        request: &DraftRequest,
        filing: &Filing<'_>,
        attachments: &[Attachment],
    ) -> Result<Outcome, ToolError> {
        let Filing { id, text, new_slug, .. } = *filing;
        let mut index = self.index();
        let projects = self.refresh(&mut index, Depth::Fast)?;
        let holders = Self::unique_holder(&index, id)?;
        let warnings = Self::warnings(&index, false, None);
        drop(index);
        let outcome = match holders.ok.into_iter().next() {
            Some((project, dir)) => {
                let rel = format!("{}/{project}/{dir}/{ARTICLE}", projects::PROJECTS);
                let current = match self.sandbox.read(&self.resolve(&rel)?) {
                    Ok(bytes) => Some(bytes),
                    Err(SandboxError::NotFound { .. }) => None,
                    Err(e) => return Err(sandbox_failure(&e, "read the existing article")),
                };
                let (action, change) = if current.as_deref() == Some(text.as_bytes()) {
                    (Action::Unchanged, None)
                } else {
                    let old = String::from_utf8_lossy(current.as_deref().unwrap_or_default());
                    let diff =
                        mcp_shared::diff::unified(&old, text, &format!("a/{rel}"), &format!("b/{rel}"), MAX_DIFF_BYTES);
                    (Action::Updated, Some(Change::from(diff)))
                };
                Outcome {
                    action,
                    number: parse_dir_name(&dir).map_or(0, |(n, _)| n),
                    slug: parse_dir_name(&dir).map_or(String::new(), |(_, s)| s.to_owned()),
                    dir: format!("{}/{project}/{dir}", projects::PROJECTS),
                    article: rel,
                    project,
                    source_id: id.to_owned(),
                    warnings,
                    change,
                    attachments: Vec::new(),
                    dry_run: true,
                }
            }
            None => {
                let project = request.project.clone();
                // The number the call would take: the same count as `allocate`'s.
                let index = self.index();
                let last = projects.as_ref().map_or(0, |dir| Self::numbers(&index, dir, &project, new_slug).0);
                drop(index);
                let number = last.saturating_add(1);
                let dir = format!("{}/{project}/{}", projects::PROJECTS, dir_name(number, new_slug));
                Outcome {
                    action: Action::Created,
                    article: format!("{dir}/{ARTICLE}"),
                    dir,
                    project,
                    number,
                    slug: new_slug.to_owned(),
                    source_id: id.to_owned(),
                    warnings,
                    change: None,
                    attachments: Vec::new(),
                    dry_run: true,
                }
            }
        };
        self.attach(outcome, attachments, true, &|| false)
    }

    fn upsert(
        &self,
        index: &mut Index,
        request: &DraftRequest,
        filing: &Filing<'_>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Outcome, ToolError> {
        let Filing { id, text, new_slug, .. } = *filing;
        let title = &filing.title;
        let mut projects = self.refresh(index, Depth::Fast)?;
        let mut verified = false;
        for _ in 0..CLAIM_ATTEMPTS {
            let holders = Self::unique_holder(index, id)?;
            if let Some((project, dir)) = holders.ok.into_iter().next() {
                let rel = format!("{}/{project}/{dir}/{ARTICLE}", projects::PROJECTS);
                let path = self.resolve(&rel)?;
                let current = match self.sandbox.read(&path) {
                    Ok(bytes) => Some(bytes),
                    Err(SandboxError::NotFound { .. }) => None,
                    Err(e) => return Err(sandbox_failure(&e, "read the existing article")),
                };
                if !current.as_deref().is_some_and(|b| carries_id(b, id)) {
                    // The index was stale (an article edited or removed by hand): look again, thoroughly.
                    if verified {
                        return Err(ToolError::new(
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
                self.check_attachments(&format!("{}/{project}/{dir}", projects::PROJECTS), filing.attachments)?;
                let number = parse_dir_name(&dir).map_or(0, |(n, _)| n);
                let slug = parse_dir_name(&dir).map_or(String::new(), |(_, s)| s.to_owned());
                let (action, diff) = if current.as_deref() == Some(text.as_bytes()) {
                    (Action::Unchanged, None)
                } else {
                    if cancelled() {
                        return Err(cancelled_failure());
                    }
                    self.write_article(&path, text)?;
                    let written = Written {
                        project: &project,
                        dir: &dir,
                        number,
                        id,
                        title: title.clone(),
                        listed: filing.listed.clone(),
                    };
                    self.record(index, projects.as_ref(), written);
                    let old = String::from_utf8_lossy(current.as_deref().unwrap_or_default());
                    let diff =
                        mcp_shared::diff::unified(&old, text, &format!("a/{rel}"), &format!("b/{rel}"), MAX_DIFF_BYTES);
                    (Action::Updated, Some(diff))
                };
                let outcome = Outcome {
                    action,
                    dir: format!("{}/{project}/{dir}", projects::PROJECTS),
                    article: rel,
                    project,
                    number,
                    slug,
                    source_id: id.to_owned(),
                    warnings: Self::warnings(index, false, None),
                    change: diff.map(Change::from),
                    attachments: Vec::new(),
                    dry_run: false,
                };
                return Ok(outcome);
            }

            // A new article: claim the next number of the project.
            if cancelled() {
                return Err(cancelled_failure());
            }
            let project = request.project.as_str();
            let project_rel = format!("{}/{project}", projects::PROJECTS);
            let projects_dir = match projects.take() {
                Some(dir) => dir,
                None => {
                    let p = self.resolve(projects::PROJECTS)?;
                    self.sandbox
                        .create_dir_all(&p)
                        .map_err(|e| sandbox_failure(&e, "create the projects directory"))?;
                    match self.refresh(index, Depth::Fast)? {
                        Some(dir) => dir,
                        None => {
                            return Err(ToolError::new(ErrorCode::InternalError, "projects/ vanished; call again."));
                        }
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
            self.check_attachments(&dir_rel, filing.attachments)?;
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
                    let _ = projects::remove_empty_dir(&projects_dir, format!("{project}/{name}"));
                }
                return Err(failure);
            }
            let project_index = index.projects.entry(project.to_owned()).or_default();
            project_index.entries.insert(name.clone(), Entry { number, state: ArticleState::Unread });
            let written =
                Written { project, dir: &name, number, id, title: title.clone(), listed: filing.listed.clone() };
            self.record(index, Some(&projects_dir), written);
            return Ok(Outcome {
                action: Action::Created,
                project: project.to_owned(),
                number,
                slug: new_slug.to_owned(),
                dir: dir_rel,
                article: article_rel,
                source_id: id.to_owned(),
                warnings: Self::warnings(index, false, None),
                change: None,
                attachments: Vec::new(),
                dry_run: false,
            });
        }
        Err(ToolError::new(
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
    ) -> Result<(u32, String, bool), ToolError> {
        let (mut live_max, leftovers) = Self::numbers(index, projects, project, slug);
        loop {
            let number = live_max.checked_add(1).ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidArgs,
                    format!("Project {project:?} has no number left; use another project."),
                )
            })?;
            let name = dir_name(number, slug);
            let mut reuse = false;
            let mut blocked = false;
            for (n, leftover, temps) in leftovers.iter().filter(|(n, _, _)| *n == number) {
                for temp in temps {
                    if let Ok(p) = self.resolve(&format!("{}/{project}/{leftover}/{temp}", projects::PROJECTS)) {
                        let _ = self.sandbox.remove_file(&p);
                    }
                }
                if *leftover == name {
                    reuse = true;
                } else if projects::remove_empty_dir(projects, format!("{project}/{leftover}")).is_ok() {
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

    /// The highest number held in `project` (by any numbered directory, with or without an
    /// article, empty or not), and the leftovers of interrupted calls, which hold none: numbered
    /// directories holding temporary files of ours and nothing else, and an empty one named
    /// exactly as the article being filed would be (`slug`: a call killed between creating its
    /// directory and writing in it). Any other empty directory was made by hand: it holds its
    /// number.
    fn numbers(index: &Index, projects: &Dir, project: &str, slug: &str) -> (u32, Vec<(u32, String, Vec<String>)>) {
        let entries: Vec<(String, u32, bool)> = index
            .projects
            .get(project)
            .map(|p| {
                p.entries.iter().map(|(name, e)| (name.clone(), e.number, e.state == ArticleState::Missing)).collect()
            })
            .unwrap_or_default();
        let mut live_max = 0u32;
        let mut leftovers: Vec<(u32, String, Vec<String>)> = Vec::new();
        for (name, number, missing) in entries {
            let temps = if missing {
                projects::only_temp_files(projects, format!("{project}/{name}")).ok().flatten()
            } else {
                None
            };
            match temps {
                Some(temps) if !temps.is_empty() || name == dir_name(number, slug) => {
                    leftovers.push((number, name, temps));
                }
                _ => live_max = live_max.max(number),
            }
        }
        (live_max, leftovers)
    }

    /// Removes temporary files of interrupted writes of `article.md` from an article's
    /// directory (only draft_post writes there, and it holds the lock).
    fn sweep_temp_files(&self, projects: &Dir, project: &str, dir: &str) {
        let Ok(entries) = projects::list(projects, format!("{project}/{dir}")) else {
            return;
        };
        for (name, kind) in entries {
            if kind != Kind::Other || !projects::is_temp_name(&name) || !name.starts_with(".article.md") {
                continue;
            }
            if let Ok(p) = self.resolve(&format!("{}/{project}/{dir}/{name}", projects::PROJECTS)) {
                tracing::info!(project, dir, "removing the temporary file of an interrupted write");
                let _ = self.sandbox.remove_file(&p);
            }
        }
    }

    fn write_article(&self, path: &SandboxPath, text: &str) -> Result<(), ToolError> {
        let options = WriteOptions { fsync: self.fsync, ..WriteOptions::default() };
        self.sandbox.write_atomic(path, text.as_bytes(), &options).map_err(|e| sandbox_failure(&e, "write the article"))
    }

    /// Records in the index what was just written.
    fn record(&self, index: &mut Index, projects: Option<&Dir>, written: Written<'_>) {
        let Written { project, dir, number, id, title, listed } = written;
        let seen_at = now_ns();
        let stamp = projects.and_then(|d| projects::stat(d, format!("{project}/{dir}/{ARTICLE}")));
        let state = match stamp {
            Some(stamp) => {
                ArticleState::Ok { seen: Seen { stamp, at: seen_at }, source_id: Some(id.to_owned()), title, listed }
            }
            _ => ArticleState::Unread,
        };
        let p = index.projects.entry(project.to_owned()).or_default();
        p.entries.insert(dir.to_owned(), Entry { number, state });
    }
}
