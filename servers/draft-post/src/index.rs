//! The index of the repository's articles: what each numbered directory holds, as of when it
//! was last looked at, and its copy on disk (`projects/.draft-post-index`).
//!
//! The copy on disk lets a new server process start from what an earlier one knew instead of
//! reading every article again. It is only a cache: it is checked against the directories'
//! stamps exactly like the index in memory (see [`crate::repo`]), a directory that changed is
//! listed and its articles `stat`ed again, and a file that is missing, unreadable, of another
//! version or of another `projects/` directory is ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::projects::Stamp;

/// The index file, in `projects/`.
pub const INDEX_FILE: &str = ".draft-post-index";

/// The largest index file read.
pub const MAX_INDEX_BYTES: usize = 256 * 1024 * 1024;

/// A timestamp younger than this (relative to when it was read) is not trusted to reveal a
/// later change: file systems stamp with a coarse clock ("racy git").
pub const RACY_NS: i128 = 2_000_000_000;

/// When something was last seen, and as what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// Its stamp then.
    pub stamp: Stamp,
    /// When that was (ns since the epoch), taken before it was read.
    pub at: i128,
}

impl Seen {
    /// Whether what was seen then still holds, judging by `now` (the current stamp).
    pub fn holds(seen: Option<&Seen>, now: &Stamp) -> bool {
        seen.is_some_and(|s| s.stamp == *now && !racy(&s.stamp, s.at))
    }
}

/// Whether `stamp`, read at `at`, is too recent to reveal a later change.
pub fn racy(stamp: &Stamp, at: i128) -> bool {
    at - stamp.mtime_ns < RACY_NS
}

/// What a numbered directory holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArticleState {
    /// Not read yet.
    Unread,
    /// Read: its frontmatter's `source_id` and `title` (or none).
    Ok {
        /// The article file as it was read.
        seen: Seen,
        /// Its `source_id`.
        source_id: Option<String>,
        /// Its `title`.
        title: Option<String>,
        /// Its `date` and `status` (for `list_posts`).
        listed: Listed,
    },
    /// The directory has no `article.md`.
    Missing,
    /// It cannot be read or its frontmatter is malformed.
    Bad {
        /// The file's stamp, when it could be `stat`ed.
        stamp: Option<Stamp>,
        /// What is wrong, for the warning.
        problem: String,
        /// The `source_id` its text names, if any.
        hint: Option<String>,
    },
    /// The numbered entry is a symlink: its number is taken, it is not read.
    Link,
}

/// A numbered directory (or symlink) of a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its number.
    pub number: u32,
    /// What it holds.
    pub state: ArticleState,
}

/// A project directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectIndex {
    /// The directory when it was last listed.
    pub seen: Option<Seen>,
    /// Its numbered entries by name.
    pub entries: BTreeMap<String, Entry>,
}

/// Every project.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Index {
    /// `projects/` when it was last listed.
    pub seen: Option<Seen>,
    /// The projects by name.
    pub projects: BTreeMap<String, ProjectIndex>,
    /// Whether the copy on disk was looked for.
    pub disk_checked: bool,
    /// Articles read since the copy on disk was last written.
    pub loads_since_saved: usize,
}

impl Index {
    /// How many numbered entries there are.
    pub fn article_count(&self) -> usize {
        self.projects.values().map(|p| p.entries.len()).sum()
    }

    /// Forgets every stamp, so the next refresh lists and `stat`s everything.
    pub fn distrust(&mut self) {
        self.seen = None;
        for project in self.projects.values_mut() {
            project.seen = None;
            for entry in project.entries.values_mut() {
                if let ArticleState::Ok { seen, .. } = &mut entry.state {
                    seen.at = i128::MIN / 2;
                }
            }
        }
    }
}

/// The first bytes of [`INDEX_FILE`]: a name and the format version (3: postcard with each
/// article's `date` and `status`; 2 had neither, 1 was a text format: both ignored now).
const MAGIC: &[u8] = b"draft-post-index\0\x03";

/// A stamp as saved: `is_dir` is known from where it is, `is_symlink` is never saved.
#[derive(Serialize, Deserialize)]
struct DiskSeen {
    mtime_ns: i128,
    len: u64,
    ino: u64,
    at: i128,
}

/// What `list_posts` shows of an article beyond its title: its frontmatter's `date` and `status`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed {
    /// `date`, as written.
    pub date: Option<String>,
    /// `status`, as written.
    pub status: Option<String>,
}

impl Listed {
    /// The `date` and `status` of `meta`.
    pub fn of(meta: &crate::frontmatter::Meta) -> Listed {
        Listed { date: meta.date.clone(), status: meta.status.clone() }
    }
}

/// A saved numbered entry: an article read, or a symlink (other states are read again).
#[derive(Serialize, Deserialize)]
enum DiskEntry<'a> {
    Article {
        dir: &'a str,
        number: u32,
        seen: DiskSeen,
        source_id: Option<&'a str>,
        title: Option<&'a str>,
        date: Option<&'a str>,
        status: Option<&'a str>,
    },
    Link {
        dir: &'a str,
        number: u32,
    },
}

#[derive(Serialize, Deserialize)]
struct DiskProject<'a> {
    #[serde(borrow)]
    name: &'a str,
    seen: Option<DiskSeen>,
    #[serde(borrow)]
    entries: Vec<DiskEntry<'a>>,
}

/// The whole file after [`MAGIC`]. `count` (the number of projects and entries) comes last, so
/// that a file cut short, or missing a part, is refused even where postcard could still decode.
#[derive(Serialize, Deserialize)]
struct Disk<'a> {
    projects_ino: u64,
    seen: Option<DiskSeen>,
    #[serde(borrow)]
    projects: Vec<DiskProject<'a>>,
    count: u64,
}

fn disk_seen(seen: &Seen) -> DiskSeen {
    DiskSeen { mtime_ns: seen.stamp.mtime_ns, len: seen.stamp.len, ino: seen.stamp.ino, at: seen.at }
}

fn seen_from_disk(seen: &DiskSeen, is_dir: bool) -> Seen {
    Seen {
        stamp: Stamp { mtime_ns: seen.mtime_ns, len: seen.len, ino: seen.ino, is_dir, is_symlink: false },
        at: seen.at,
    }
}

/// The index as saved in [`INDEX_FILE`], for the `projects/` directory with inode
/// `projects_ino`: [`MAGIC`], then the index in postcard (a compact serde format: it loads as
/// fast as the hand-written text format it replaced, and is a fifth smaller; see the README).
///
/// Entries in states other than read or symlink are not saved (they are read again), and a
/// project holding some is saved without its stamp, so that it is listed again.
pub fn to_disk(index: &Index, projects_ino: u64) -> Vec<u8> {
    let mut count = 0u64;
    let projects = index
        .projects
        .iter()
        .map(|(name, project)| {
            let complete =
                project.entries.values().all(|e| matches!(e.state, ArticleState::Ok { .. } | ArticleState::Link));
            let entries: Vec<DiskEntry<'_>> = project
                .entries
                .iter()
                .filter_map(|(dir, entry)| match &entry.state {
                    ArticleState::Ok { seen, source_id, title, listed } => Some(DiskEntry::Article {
                        dir,
                        number: entry.number,
                        seen: disk_seen(seen),
                        source_id: source_id.as_deref(),
                        title: title.as_deref(),
                        date: listed.date.as_deref(),
                        status: listed.status.as_deref(),
                    }),
                    ArticleState::Link => Some(DiskEntry::Link { dir, number: entry.number }),
                    _ => None,
                })
                .collect();
            count += 1 + entries.len() as u64;
            DiskProject { name, seen: project.seen.as_ref().filter(|_| complete).map(disk_seen), entries }
        })
        .collect();
    let disk = Disk { projects_ino, seen: index.seen.as_ref().map(disk_seen), projects, count };
    // Cannot fail for these types; an empty file would only be ignored by the next process.
    postcard::to_extend(&disk, MAGIC.to_vec()).unwrap_or_default()
}

/// The index saved in `bytes`, if it is of this version and of the `projects/` directory with
/// inode `projects_ino`, and whole.
pub fn from_disk(bytes: &[u8], projects_ino: u64) -> Option<Index> {
    let (disk, rest) = postcard::take_from_bytes::<Disk<'_>>(bytes.strip_prefix(MAGIC)?).ok()?;
    let count: u64 = disk.projects.iter().map(|p| 1 + p.entries.len() as u64).sum();
    if !rest.is_empty() || disk.projects_ino != projects_ino || disk.count != count {
        return None;
    }
    let projects = disk
        .projects
        .into_iter()
        .map(|project| {
            let entries = project
                .entries
                .into_iter()
                .map(|entry| match entry {
                    DiskEntry::Article { dir, number, seen, source_id, title, date, status } => {
                        let state = ArticleState::Ok {
                            seen: seen_from_disk(&seen, false),
                            source_id: source_id.map(str::to_owned),
                            title: title.map(str::to_owned),
                            listed: Listed { date: date.map(str::to_owned), status: status.map(str::to_owned) },
                        };
                        (dir.to_owned(), Entry { number, state })
                    }
                    DiskEntry::Link { dir, number } => (dir.to_owned(), Entry { number, state: ArticleState::Link }),
                })
                .collect();
            let seen = project.seen.as_ref().map(|s| seen_from_disk(s, true));
            (project.name.to_owned(), ProjectIndex { seen, entries })
        })
        .collect();
    Some(Index { seen: disk.seen.as_ref().map(|s| seen_from_disk(s, true)), projects, ..Index::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(mtime_ns: i128, is_dir: bool) -> Stamp {
        Stamp { mtime_ns, len: 10, ino: 7, is_dir, is_symlink: false }
    }

    #[test]
    fn racy_stamps_are_not_trusted() {
        let s = stamp(10_000_000_000, false);
        assert!(racy(&s, 10_500_000_000));
        assert!(!racy(&s, 12_000_000_000));
        assert!(racy(&s, 9_000_000_000), "an mtime in the future is not trusted");
        let seen = Seen { stamp: s, at: 20_000_000_000 };
        assert!(Seen::holds(Some(&seen), &s));
        assert!(!Seen::holds(Some(&seen), &Stamp { len: 2, ..s }));
        assert!(!Seen::holds(None, &s));
    }

    #[test]
    fn the_index_survives_a_round_trip_on_disk() {
        let mut index = Index { seen: Some(Seen { stamp: stamp(5, true), at: 9 }), ..Index::default() };
        let mut project = ProjectIndex { seen: Some(Seen { stamp: stamp(6, true), at: 9 }), ..Default::default() };
        project.entries.insert(
            "01-a".into(),
            Entry {
                number: 1,
                state: ArticleState::Ok {
                    seen: Seen { stamp: stamp(7, false), at: 9 },
                    source_id: Some("0123456789abcdef".into()),
                    title: Some("Tïtle \"q\"\n\ttab \\ back".into()),
                    listed: Listed { date: Some("2026-01-02".into()), status: Some("draft".into()) },
                },
            },
        );
        project.entries.insert("02-l".into(), Entry { number: 2, state: ArticleState::Link });
        project.entries.insert(
            "03-\tweird\\name".into(),
            Entry {
                number: 3,
                state: ArticleState::Ok {
                    seen: Seen { stamp: stamp(8, false), at: 9 },
                    source_id: None,
                    title: None,
                    listed: Listed::default(),
                },
            },
        );
        index.projects.insert("2026-01".into(), project);
        index.projects.insert("empty".into(), ProjectIndex::default());
        let bytes = to_disk(&index, 42);
        let back = from_disk(&bytes, 42).unwrap();
        assert_eq!(back, index);
        assert!(from_disk(&bytes, 43).is_none(), "another projects/ directory");
        assert!(from_disk(b"{not an index", 42).is_none());
        assert!(from_disk(&bytes[..bytes.len() / 2], 42).is_none(), "a torn file is ignored");
        for cut in [1, 7, bytes.len() - 1] {
            assert!(from_disk(&bytes[..cut], 42).is_none(), "a file cut at {cut} bytes is ignored");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(from_disk(&longer, 42).is_none(), "trailing bytes are noticed");
        assert!(from_disk(b"draft-post-index 1 42\nS -\nE 0\n", 42).is_none(), "the old text format is ignored");
    }

    #[test]
    fn states_that_are_not_saved_are_read_again() {
        let mut index = Index::default();
        let mut project = ProjectIndex { seen: Some(Seen { stamp: stamp(6, true), at: 9 }), ..Default::default() };
        project.entries.insert("01-m".into(), Entry { number: 1, state: ArticleState::Missing });
        index.projects.insert("p".into(), project);
        let back = from_disk(&to_disk(&index, 1), 1).unwrap();
        assert!(back.projects["p"].entries.is_empty());
        assert_eq!(back.projects["p"].seen, None, "listed again");
    }
}
