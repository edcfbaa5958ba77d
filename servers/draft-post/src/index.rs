//! The index of the repository's articles: what each numbered directory holds, as of when it
//! was last looked at, and its copy on disk (`projects/.draft-post-index`).
//!
//! The copy on disk lets a new server process start from what an earlier one knew instead of
//! reading every article again. It is only a cache: it is checked against the directories'
//! stamps exactly like the index in memory (see [`crate::repo`]), a directory that changed is
//! listed and its articles `stat`ed again, and a file that is missing, unreadable, of another
//! version or of another `projects/` directory is ignored.

use std::{collections::BTreeMap, fmt::Write as _};

use crate::view::Stamp;

/// The index file, in `projects/`.
pub const INDEX_FILE: &str = ".draft-post-index";

/// The format version of [`INDEX_FILE`].
const VERSION: u32 = 1;

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

/// The first word of [`INDEX_FILE`].
const MAGIC: &str = "draft-post-index";

/// Escapes `\\`, tab, line feed and carriage return, so that a field is one tab-free line.
fn escape(text: &str, out: &mut String) {
    if !text.bytes().any(|b| matches!(b, b'\\' | b'\t' | b'\n' | b'\r')) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

/// The inverse of [`escape`]; `None` for a malformed escape.
fn unescape(field: &str) -> Option<String> {
    if !field.contains('\\') {
        return Some(field.to_owned());
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// An optional text field: `-` for none, `=` and the escaped text for some.
fn push_opt(value: Option<&str>, out: &mut String) {
    match value {
        None => out.push('-'),
        Some(v) => {
            out.push('=');
            escape(v, out);
        }
    }
}

fn parse_opt(field: &str) -> Option<Option<String>> {
    match field {
        "-" => Some(None),
        f => Some(Some(unescape(f.strip_prefix('=')?)?)),
    }
}

/// A seen stamp as `mtime len ino at`, or `-`.
fn push_seen(seen: Option<&Seen>, out: &mut String) {
    match seen {
        None => out.push('-'),
        Some(s) => {
            let _ = write!(out, "{} {} {} {}", s.stamp.mtime_ns, s.stamp.len, s.stamp.ino, s.at);
        }
    }
}

fn parse_seen(field: &str, is_dir: bool) -> Option<Option<Seen>> {
    if field == "-" {
        return Some(None);
    }
    let mut parts = field.split(' ');
    let mtime_ns = parts.next()?.parse().ok()?;
    let len = parts.next()?.parse().ok()?;
    let ino = parts.next()?.parse().ok()?;
    let at = parts.next()?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some(Some(Seen { stamp: Stamp { mtime_ns, len, ino, is_dir, is_symlink: false }, at }))
}

/// The index as saved in [`INDEX_FILE`], for the `projects/` directory with inode
/// `projects_ino`: a line-based text format, quick to read back.
///
/// ```text
/// draft-post-index 1 <projects inode>
/// S <projects/ seen: mtime len ino at, or ->
/// P <project name> TAB <seen>
/// A <dir name> TAB <number> TAB <seen> TAB <source_id: - or =text> TAB <title: - or =text>
/// L <dir name> TAB <number>
/// E <number of P, A and L lines>
/// ```
///
/// Entries in other states are not saved (they are read again), and a project holding some
/// is saved without its stamp, so that it is listed again.
pub fn to_disk(index: &Index, projects_ino: u64) -> Vec<u8> {
    let mut out = String::with_capacity(64 + index.article_count() * 96);
    out.push_str(&format!("{MAGIC} {VERSION} {projects_ino}\nS "));
    push_seen(index.seen.as_ref(), &mut out);
    out.push('\n');
    let mut lines = 0usize;
    for (name, project) in &index.projects {
        lines += 1;
        let complete =
            project.entries.values().all(|e| matches!(e.state, ArticleState::Ok { .. } | ArticleState::Link));
        out.push_str("P ");
        escape(name, &mut out);
        out.push('\t');
        push_seen(project.seen.as_ref().filter(|_| complete), &mut out);
        out.push('\n');
        for (dir, entry) in &project.entries {
            match &entry.state {
                ArticleState::Ok { seen, source_id, title } => {
                    lines += 1;
                    out.push_str("A ");
                    escape(dir, &mut out);
                    let _ = write!(out, "\t{}\t", entry.number);
                    push_seen(Some(seen), &mut out);
                    out.push('\t');
                    push_opt(source_id.as_deref(), &mut out);
                    out.push('\t');
                    push_opt(title.as_deref(), &mut out);
                    out.push('\n');
                }
                ArticleState::Link => {
                    lines += 1;
                    out.push_str("L ");
                    escape(dir, &mut out);
                    let _ = writeln!(out, "\t{}", entry.number);
                }
                _ => {}
            }
        }
    }
    out.push_str(&format!("E {lines}\n"));
    out.into_bytes()
}

/// The index saved in `bytes`, if it is of this version and of the `projects/` directory with
/// inode `projects_ino`, and whole.
pub fn from_disk(bytes: &[u8], projects_ino: u64) -> Option<Index> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.split_terminator('\n');
    let mut header = lines.next()?.split(' ');
    if header.next()? != MAGIC
        || header.next()?.parse::<u32>().ok()? != VERSION
        || header.next()?.parse::<u64>().ok()? != projects_ino
    {
        return None;
    }
    let seen = parse_seen(lines.next()?.strip_prefix("S ")?, true)?;
    let mut index = Index { seen, ..Index::default() };
    let mut current: Option<(String, ProjectIndex)> = None;
    let mut entries: Vec<(String, Entry)> = Vec::new();
    let finish =
        |current: &mut Option<(String, ProjectIndex)>, entries: &mut Vec<(String, Entry)>, index: &mut Index| {
            if let Some((name, mut project)) = current.take() {
                project.entries = std::mem::take(entries).into_iter().collect();
                index.projects.insert(name, project);
            }
        };
    let mut count = 0usize;
    let mut ended = false;
    for line in lines {
        if ended {
            return None;
        }
        let (kind, rest) = line.split_at_checked(2)?;
        if kind == "E " {
            // The trailer: a file cut short (say by a power cut) lacks it, or counts more.
            if rest.parse::<usize>().ok()? != count {
                return None;
            }
            ended = true;
            continue;
        }
        count += 1;
        let mut fields = rest.split('\t');
        match kind {
            "P " => {
                finish(&mut current, &mut entries, &mut index);
                let name = unescape(fields.next()?)?;
                let seen = parse_seen(fields.next()?, true)?;
                current = Some((name, ProjectIndex { seen, entries: BTreeMap::new() }));
            }
            "A " => {
                current.as_ref()?;
                let name = unescape(fields.next()?)?;
                let number = fields.next()?.parse().ok()?;
                let seen = parse_seen(fields.next()?, false)??;
                let source_id = parse_opt(fields.next()?)?;
                let title = parse_opt(fields.next()?)?;
                entries.push((name, Entry { number, state: ArticleState::Ok { seen, source_id, title } }));
            }
            "L " => {
                current.as_ref()?;
                let name = unescape(fields.next()?)?;
                let number = fields.next()?.parse().ok()?;
                entries.push((name, Entry { number, state: ArticleState::Link }));
            }
            _ => return None,
        }
        if fields.next().is_some() {
            return None;
        }
    }
    if !ended {
        return None;
    }
    finish(&mut current, &mut entries, &mut index);
    Some(index)
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
                },
            },
        );
        project.entries.insert("02-l".into(), Entry { number: 2, state: ArticleState::Link });
        project.entries.insert(
            "03-\tweird\\name".into(),
            Entry {
                number: 3,
                state: ArticleState::Ok { seen: Seen { stamp: stamp(8, false), at: 9 }, source_id: None, title: None },
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
        let text = String::from_utf8(bytes.clone()).unwrap();
        let cut = text[..text.len() - 1].rfind('\n').unwrap() + 1;
        assert!(from_disk(&bytes[..cut], 42).is_none(), "a file cut at a line break is ignored");
        let a = text.find("\nA ").unwrap() + 1;
        let a_end = a + text[a..].find('\n').unwrap() + 1;
        let missing_line = format!("{}{}", &text[..a], &text[a_end..]);
        assert!(from_disk(missing_line.as_bytes(), 42).is_none(), "a line missing is noticed");
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
