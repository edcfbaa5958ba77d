//! Recursive listing through directory handles, honouring `.gitignore`.
//!
//! The `ignore` crate's walker opens directories by path string, so a directory
//! swapped for a symlink mid-walk would be followed. This walker instead opens
//! every directory relative to its parent's handle with `O_NOFOLLOW`
//! (`open_dir_nofollow`), and uses the `ignore` crate only for what it is best
//! at: matching `.gitignore` rules (read through the same handles).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::lexical::{is_hidden, is_temp_name};

/// Largest `.gitignore` read; the rest of a larger one is ignored.
const MAX_GITIGNORE_BYTES: u64 = 1 << 20;

/// Options of [`Sandbox::walk`](super::Sandbox::walk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOptions {
    /// Deepest level listed: `Some(1)` lists the directory's own entries only;
    /// `None` has no limit.
    pub max_depth: Option<usize>,
    /// Include hidden (dot) entries. Default `false`.
    pub hidden: bool,
    /// Honour `.gitignore` files (of the walked directory, those below it, and
    /// those of its ancestors up to the root), also outside a git repository.
    /// Default `true`.
    pub respect_gitignore: bool,
    /// Stop after this many entries and set [`Walk::truncated`].
    pub max_entries: Option<usize>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions { max_depth: None, hidden: false, respect_gitignore: true, max_entries: None }
    }
}

/// The result of [`Sandbox::walk`](super::Sandbox::walk).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Walk {
    /// The entries, sorted component-wise by path (a directory right before
    /// its contents, like a sorted `find`).
    pub entries: Vec<WalkEntry>,
    /// Whether `max_entries` cut the listing short.
    pub truncated: bool,
}

/// One entry of a [`Walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkEntry {
    /// The path relative to the walked directory.
    pub rel: PathBuf,
    /// Whether the entry itself is a directory (a symlink to one is not).
    pub is_dir: bool,
    /// Whether the entry is a symlink (listed, never followed).
    pub is_symlink: bool,
    /// A directory whose entries could not be read (its permissions): listed, but not empty.
    pub unreadable: bool,
    /// A regular file's size in bytes (when it could be read).
    pub len: Option<u64>,
}

/// A regular file found by [`Sandbox::files`](super::Sandbox::files), with the handle of the
/// directory it is in: it is opened beneath that handle, never by a path string, so a directory
/// swapped for a symlink meanwhile leads nowhere.
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// The path relative to the walked directory.
    pub rel: PathBuf,
    dir: Arc<Dir>,
    name: std::ffi::OsString,
}

impl FileEntry {
    /// Opens the file for reading, beneath its directory's handle: never through a symlink, and
    /// without blocking on a FIFO put there meanwhile. Anything but a regular file is refused.
    pub fn open(&self) -> std::io::Result<std::fs::File> {
        use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt as _};
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        crate::platform::never_block(&mut options);
        let file = self.dir.open_with(&self.name, &options)?.into_std();
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
        }
        Ok(file)
    }

    /// The file's metadata (not following a symlink).
    pub fn metadata(&self) -> std::io::Result<cap_std::fs::Metadata> {
        self.dir.symlink_metadata(&self.name)
    }
}

/// Walks `dir` (opened beneath `root_dir` at `start_rel`, canonical).
pub(super) fn walk(root_dir: &Dir, start_rel: &Path, dir: &Dir, opts: &WalkOptions) -> Walk {
    walk_with(root_dir, start_rel, dir, opts, None)
}

/// Calls `each` with every regular file under `dir` (not a FIFO, socket or device), in walk
/// order, as [`walk`] finds them (symlinks are not followed), each with its directory's handle,
/// until `each` returns `false`; whether `max_entries` (files, here) cut the walk.
pub(super) fn each_file(
    root_dir: &Dir,
    start_rel: &Path,
    dir: &Dir,
    opts: &WalkOptions,
    each: &mut dyn FnMut(FileEntry) -> bool,
) -> bool {
    walk_with(root_dir, start_rel, dir, opts, Some(each)).truncated
}

fn walk_with(
    root_dir: &Dir,
    start_rel: &Path,
    dir: &Dir,
    opts: &WalkOptions,
    files: Option<&mut dyn FnMut(FileEntry) -> bool>,
) -> Walk {
    let mut state = State { opts, walk: Walk::default(), matchers: Vec::new(), files, file_count: 0 };
    if opts.respect_gitignore {
        // The ancestors' rules, root first, so that deeper ones take precedence.
        let mut prefix = PathBuf::new();
        let mut ancestors = vec![PathBuf::new()];
        let parts: Vec<_> = start_rel.components().collect();
        for part in parts.iter().take(parts.len().saturating_sub(1)) {
            prefix.push(part);
            ancestors.push(prefix.clone());
        }
        if !start_rel.as_os_str().is_empty() {
            for ancestor in ancestors {
                let file = ancestor.join(".gitignore");
                if let Some(matcher) = read_gitignore(root_dir, &file, &virtual_path(&ancestor)) {
                    state.matchers.push(matcher);
                }
            }
        }
    }
    let Ok(dir) = dir.try_clone() else {
        return state.walk;
    };
    state.run(Arc::new(dir), PathBuf::new(), virtual_path(start_rel));
    state.walk
}

/// The path under which gitignore rules of `rel` are matched: `/` + `rel`
/// (virtual: never used to touch the filesystem).
fn virtual_path(rel: &Path) -> PathBuf {
    Path::new("/").join(rel)
}

fn read_gitignore(dir: &Dir, file: &Path, virtual_dir: &Path) -> Option<Gitignore> {
    // Without blocking: a FIFO named `.gitignore` must not hang the walk.
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true);
    crate::platform::never_block(&mut options);
    let opened = dir.open_with(file, &options).ok()?;
    if !opened.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    opened.take(MAX_GITIGNORE_BYTES).read_to_string(&mut text).ok()?;
    let mut builder = GitignoreBuilder::new(virtual_dir);
    for line in text.lines() {
        // A bad line is skipped, as git does.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok().filter(|matcher| !matcher.is_empty())
}

struct State<'a, 'f> {
    opts: &'a WalkOptions,
    walk: Walk,
    matchers: Vec<Gitignore>,
    /// When set, each regular file is handed here with its directory's handle (and
    /// `walk.entries` stays empty; `max_entries` then counts files).
    files: Option<&'f mut dyn FnMut(FileEntry) -> bool>,
    /// Files handed out so far.
    file_count: usize,
}

/// A directory being listed: its handle, where it is, and the entries still to visit (sorted).
/// The walk keeps a stack of these rather than recursing, so a tree thousands of levels deep
/// costs heap, not the thread's stack.
struct Frame {
    dir: Arc<Dir>,
    rel: PathBuf,
    virtual_dir: PathBuf,
    depth: usize,
    items: std::vec::IntoIter<(std::ffi::OsString, bool, bool, bool)>,
    /// Whether this directory's `.gitignore` is on the matcher stack.
    pushed: bool,
}

impl State<'_, '_> {
    fn ignored(&self, virtual_path: &Path, is_dir: bool) -> bool {
        for matcher in self.matchers.iter().rev() {
            let found = matcher.matched(virtual_path, is_dir);
            if found.is_ignore() {
                return true;
            }
            if found.is_whitelist() {
                return false;
            }
        }
        false
    }

    /// The frame of `dir` (at depth `depth`), its `.gitignore` pushed; `None` when it is not
    /// to be listed (below `max_depth`) or cannot be.
    fn enter(&mut self, dir: Arc<Dir>, rel: PathBuf, virtual_dir: PathBuf, depth: usize) -> Option<Frame> {
        if self.opts.max_depth.is_some_and(|max| depth >= max) {
            return None;
        }
        let Ok(entries) = dir.entries() else {
            self.mark_unreadable();
            return None;
        };
        let mut items = Vec::new();
        for entry in entries.flatten() {
            // A name that is not UTF-8 is listed too (shown escaped), never left out.
            let name = entry.file_name();
            let text = name.to_string_lossy();
            if is_temp_name(&text) || (!self.opts.hidden && is_hidden(&text)) {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            items.push((name, file_type.is_dir(), file_type.is_symlink(), file_type.is_file()));
        }
        items.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let pushed = self.opts.respect_gitignore
            && match read_gitignore(&dir, Path::new(".gitignore"), &virtual_dir) {
                Some(matcher) => {
                    self.matchers.push(matcher);
                    true
                }
                None => false,
            };
        Some(Frame { dir, rel, virtual_dir, depth, items: items.into_iter(), pushed })
    }

    /// Marks the entry listed last (the directory being entered) as unreadable.
    fn mark_unreadable(&mut self) {
        if self.files.is_none()
            && let Some(last) = self.walk.entries.last_mut()
            && last.is_dir
        {
            last.unreadable = true;
        }
    }

    /// Lists `dir` and everything below it, depth first, each directory right before its
    /// contents; stops once `max_entries` is hit or the file callback says so.
    fn run(&mut self, dir: Arc<Dir>, rel: PathBuf, virtual_dir: PathBuf) {
        let mut stack: Vec<Frame> = Vec::new();
        stack.extend(self.enter(dir, rel, virtual_dir, 0));
        while let Some(frame) = stack.last_mut() {
            let Some((name, is_dir, is_symlink, is_file)) = frame.items.next() else {
                if frame.pushed {
                    self.matchers.pop();
                }
                stack.pop();
                continue;
            };
            let child_virtual = frame.virtual_dir.join(&name);
            let (dir, depth) = (Arc::clone(&frame.dir), frame.depth);
            let child_rel = frame.rel.join(&name);
            if self.opts.respect_gitignore && self.ignored(&child_virtual, is_dir) {
                continue;
            }
            let count = if self.files.is_some() { self.file_count } else { self.walk.entries.len() };
            if self.opts.max_entries.is_some_and(|max| count >= max) {
                self.walk.truncated = true;
                return;
            }
            match &mut self.files {
                Some(each) if is_file => {
                    self.file_count += 1;
                    if !each(FileEntry { rel: child_rel.clone(), dir: Arc::clone(&dir), name: name.clone() }) {
                        return;
                    }
                }
                Some(_) => {}
                None => {
                    // The size, through the directory's handle (never following a link).
                    let len = if is_file { dir.symlink_metadata(&name).ok().map(|m| m.len()) } else { None };
                    let entry = WalkEntry { rel: child_rel.clone(), is_dir, is_symlink, unreadable: false, len };
                    self.walk.entries.push(entry);
                }
            }
            if is_dir {
                // Never follows a symlink, even if the entry was swapped for one.
                let Ok(sub) = dir.open_dir_nofollow(&name) else {
                    self.mark_unreadable();
                    continue;
                };
                if let Some(frame) = self.enter(Arc::new(sub), child_rel, child_virtual, depth + 1) {
                    stack.push(frame);
                }
            }
        }
    }
}
