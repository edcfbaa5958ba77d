//! Bringing the index up to date with the disk (see the module docs of [`crate::repo`]), and
//! saving it for the next process.

use std::{collections::BTreeSet, io, path::Path};

use cap_std::fs::Dir;
use mcp_shared::{ToolError, sandbox::WriteOptions};
use rayon::prelude::*;

use super::{
    ARTICLE, Repo,
    layout::parse_dir_name,
    messages::{describe_read_error, scan_failure},
    pool::{PARALLEL_MIN, par_map},
};
use crate::{
    frontmatter::{self, Located},
    index::{self, ArticleState, Entry, INDEX_FILE, Index, Listed, Seen, racy},
    projects::{self, Kind, Stamp, now_ns},
};

/// Up to this many articles, every call `stat`s every article.
pub const FULL_REVALIDATION_MAX: usize = 1_000;

/// After this many articles (and a tenth of the index) were read, the index is saved to disk
/// for the next process.
const SAVE_AFTER_LOADS: usize = 64;

/// The most articles one task of a scan reads (one open of their project directory each).
const LOAD_UNIT: usize = 256;

/// How thoroughly a refresh revalidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Depth {
    /// Directories by mtime; articles only when in doubt (see the module docs).
    Fast,
    /// Every article `stat`ed too.
    Full,
}

/// Reads the state of one article from the start of its file.
pub(super) fn classify(head: &projects::Head, seen_at: i128) -> ArticleState {
    classify_bytes(&head.bytes, head.complete, head.stamp, seen_at)
}

/// [`classify`] of the first bytes of an article, `complete` when they are the whole file.
fn classify_bytes(bytes: &[u8], complete: bool, stamp: Stamp, seen_at: i128) -> ArticleState {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    match frontmatter::locate(bytes) {
        Located::None => ArticleState::Ok {
            seen: Seen { stamp, at: seen_at },
            source_id: None,
            title: None,
            listed: Listed::default(),
        },
        Located::Unclosed => ArticleState::Bad {
            stamp: Some(stamp),
            problem: if complete {
                "line 1, column 1: its frontmatter is never closed (no second `---` line)".to_owned()
            } else {
                format!(
                    "line 1, column 1: its frontmatter is not closed within the first {} bytes",
                    projects::MAX_FRONTMATTER_BYTES
                )
            },
            hint: None,
        },
        Located::Found { yaml_start, yaml_end, .. } => match std::str::from_utf8(&bytes[yaml_start..yaml_end]) {
            Err(_) => {
                ArticleState::Bad { stamp: Some(stamp), problem: "its frontmatter is not UTF-8".to_owned(), hint: None }
            }
            Ok(yaml) => match frontmatter::read_meta(yaml, 2) {
                Ok(meta) => ArticleState::Ok {
                    seen: Seen { stamp, at: seen_at },
                    listed: Listed::of(&meta),
                    source_id: meta.source_id,
                    title: meta.title,
                },
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
pub(super) fn load(projects: &Dir, project: &str, dir: &str) -> ArticleState {
    let rel = format!("{project}/{dir}/{ARTICLE}");
    let seen_at = now_ns();
    match projects::read_head(projects, &rel) {
        Ok(head) => classify(&head, seen_at),
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => ArticleState::Missing,
        Err(e) => {
            tracing::debug!(error = %e, project, dir, "cannot read an article");
            ArticleState::Bad { stamp: None, problem: describe_read_error(&e), hint: None }
        }
    }
}

/// Reads the state of the articles `dirs` of `project` (`projects/<project>/<dir>/article.md`):
/// the project directory is opened once and each article beneath it, into one buffer.
fn load_unit(projects: &Dir, project: &str, dirs: &[String]) -> Vec<ArticleState> {
    let Ok(project_dir) = projects::open_dir(projects, project) else {
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
            match projects::read_head_into(&project_dir, Path::new(&rel), &mut buf) {
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
pub(super) fn load_all(projects: &Dir, jobs: &[(String, String)]) -> Vec<ArticleState> {
    // Units of consecutive jobs of one project (jobs come grouped by project).
    let mut units: Vec<(&str, Vec<String>)> = Vec::new();
    for (project, dir) in jobs {
        match units.last_mut() {
            Some((p, dirs)) if *p == project.as_str() && dirs.len() < LOAD_UNIT => dirs.push(dir.clone()),
            _ => units.push((project.as_str(), vec![dir.clone()])),
        }
    }
    // Parallel from PARALLEL_MIN articles (not units): units of uneven cost (a project of 5
    // articles, one of 256) balance out on the pool.
    let states: Vec<Vec<ArticleState>> = if jobs.len() < PARALLEL_MIN {
        units.iter().map(|(p, dirs)| load_unit(projects, p, dirs)).collect()
    } else {
        units.par_iter().map(|(p, dirs)| load_unit(projects, p, dirs)).collect()
    };
    states.into_iter().flatten().collect()
}

/// The index saved by an earlier process, if there is a usable one.
fn load_saved(projects: &Dir, projects_ino: u64) -> Option<Index> {
    let started = std::time::Instant::now();
    let bytes = match projects::read_all(projects, INDEX_FILE, index::MAX_INDEX_BYTES) {
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
pub(super) fn carries_id(bytes: &[u8], id: &str) -> bool {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let Located::Found { yaml_start, yaml_end, .. } = frontmatter::locate(bytes) else {
        return false;
    };
    std::str::from_utf8(&bytes[yaml_start..yaml_end])
        .ok()
        .and_then(|yaml| frontmatter::read_meta(yaml, 2).ok())
        .is_some_and(|meta| meta.source_id.as_deref() == Some(id))
}

impl Repo {
    /// Brings the index up to date with the disk; returns the open `projects/` (or `None`
    /// when it does not exist).
    pub(super) fn refresh(&self, index: &mut Index, depth: Depth) -> Result<Option<Dir>, ToolError> {
        let started = std::time::Instant::now();
        let Some((projects, stamp)) = self.view.projects().map_err(|e| scan_failure(&e, projects::PROJECTS))? else {
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
            let listed = projects::list(&projects, ".").map_err(|e| scan_failure(&e, projects::PROJECTS))?;
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
            let shown = format!("{}/{name}", projects::PROJECTS);
            match projects::lstat(&projects, name).map_err(|e| scan_failure(&e, &shown))? {
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
        let listings = par_map(&relist, |(name, _)| projects::list(&projects, name));
        let mut relisted: BTreeSet<String> = BTreeSet::new();
        for ((name, stamp), listing) in relist.into_iter().zip(listings) {
            let listing = listing.map_err(|e| scan_failure(&e, &format!("{}/{name}", projects::PROJECTS)))?;
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
        let stamps = par_map(&checks, |(p, d)| projects::stat(&projects, format!("{p}/{d}/{ARTICLE}")));
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
    pub(super) fn save_index(&self, index: &mut Index) {
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
        for (name, kind) in projects::list(&projects, ".").unwrap_or_default() {
            if kind != Kind::Other || !projects::is_temp_name(&name) || !name.starts_with(&prefix) {
                continue;
            }
            if let Ok(p) = self.sandbox.resolve_rel(&format!("{}/{name}", projects::PROJECTS)) {
                let _ = self.sandbox.remove_file(&p);
            }
        }
        let bytes = index::to_disk(index, stamp.ino);
        let path = match self.sandbox.resolve_rel(&format!("{}/{INDEX_FILE}", projects::PROJECTS)) {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projects::View;

    #[test]
    fn classify_reads_source_id_and_title_or_reports_the_problem() {
        let head = |text: &str| projects::Head {
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
            ArticleState::Ok { seen, source_id, title, .. } => (Some(seen.stamp), source_id, title, String::new()),
            ArticleState::Bad { stamp, problem, hint } => (stamp, hint, None, problem),
            other => (None, None, None, format!("{other:?}")),
        };
        for ((project, dir), state) in jobs.iter().zip(grouped) {
            assert_eq!(strip(state), strip(load(&projects, project, dir)), "{project}/{dir}");
        }
    }

    #[test]
    fn carries_id_checks_the_frontmatter() {
        assert!(carries_id(b"---\nsource_id: abc\n---\n", "abc"));
        assert!(carries_id("\u{feff}---\nsource_id: \"abc\"\n---\n".as_bytes(), "abc"));
        assert!(!carries_id(b"---\nsource_id: abd\n---\n", "abc"));
        assert!(!carries_id(b"source_id: abc\n", "abc"));
    }
}
