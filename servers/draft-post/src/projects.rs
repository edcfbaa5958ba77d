//! A fast, read-only view of `<repo>/projects` for scanning thousands of articles.
//!
//! Writes go through the shared [`mcp_shared::sandbox::Sandbox`]. Its reads resolve every
//! path component by component (several system calls per component), which is right for one
//! file and too slow for ten thousand. This view opens `projects/` once per scan through a
//! `cap_std` directory handle of the repository, which the shared sandbox opens
//! ([`mcp_shared::sandbox::Sandbox::open_dir_handle`]), and reads each `NN-slug/article.md` beneath
//! it with one `openat2(RESOLVE_BENEATH)`: the kernel refuses any path (`..`, an absolute or
//! escaping symlink) that would leave the handle, so nothing outside the repository is ever
//! read. It can list, stat and read, and remove an empty directory (a crash leftover); nothing
//! else.

use std::{
    io::{self, Read},
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

use cap_std::fs::{Dir, OpenOptions};
use mcp_shared::platform;

use crate::frontmatter::{self, Located};

/// The sandbox's own test for the temporary files of its atomic writes (leftovers of a
/// `draft_post` killed mid-write are swept with it).
pub use mcp_shared::sandbox::is_temp_name;

/// The article's file name in its directory.
pub const ARTICLE: &str = "article.md";

/// The directory under the repository root that holds the projects.
pub const PROJECTS: &str = "projects";

/// The first read of an article, in bytes: enough for any usual frontmatter.
const FIRST_READ: usize = 8 * 1024;

/// The most of an article read to find the end of its frontmatter.
pub const MAX_FRONTMATTER_BYTES: usize = 1024 * 1024;

/// A file's or directory's identity and version as `stat` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Size in bytes.
    pub len: u64,
    /// The file's index on its volume: the inode on Unix, the file index on Windows (an atomic
    /// replace gives a new one); 0 where the OS does not say.
    pub ino: u64,
    /// Whether it is a directory.
    pub is_dir: bool,
    /// Whether it is a symlink (only for `lstat`).
    pub is_symlink: bool,
}

impl Stamp {
    fn of(md: &cap_std::fs::Metadata) -> Stamp {
        Stamp {
            mtime_ns: md.modified().map_or(0, |t| system_time_ns(t.into_std())),
            len: md.len(),
            ino: platform::file_id(md).map_or(0, |id| id.index),
            is_dir: md.is_dir(),
            is_symlink: md.file_type().is_symlink(),
        }
    }
}

/// Nanoseconds since the epoch, now.
pub fn now_ns() -> i128 {
    system_time_ns(SystemTime::now())
}

/// Nanoseconds since the epoch (negative before it).
fn system_time_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i128::try_from(d.as_nanos()).unwrap_or(i128::MAX),
        Err(e) => i128::try_from(e.duration().as_nanos()).map_or(i128::MIN, |n| -n),
    }
}

/// What kind of entry a directory listing found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// Anything else.
    Other,
}

/// The start of an article: enough bytes to hold its frontmatter, and its stamp.
#[derive(Debug, Clone)]
pub struct Head {
    /// The bytes read (the BOM included).
    pub bytes: Vec<u8>,
    /// Whether `bytes` is the whole file.
    pub complete: bool,
    /// The file's stamp (from the open file, so it matches the bytes).
    pub stamp: Stamp,
}

/// The read-only view: a handle on the repository root.
#[derive(Debug)]
pub struct View {
    root: Dir,
}

impl View {
    /// A view through `root`, the repository's directory handle from the shared sandbox
    /// ([`mcp_shared::sandbox::Sandbox::open_dir_handle`]).
    pub fn from_dir(root: Dir) -> View {
        View { root }
    }

    /// Opens `projects/`, with its stamp; `None` when it does not exist.
    pub fn projects(&self) -> io::Result<Option<(Dir, Stamp)>> {
        match self.root.open_dir(PROJECTS) {
            Ok(dir) => {
                let stamp = Stamp::of(&dir.dir_metadata()?);
                Ok(Some((dir, stamp)))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// `lstat` of `rel` beneath `dir`; `None` when it does not exist.
pub fn lstat(dir: &Dir, rel: impl AsRef<Path>) -> io::Result<Option<Stamp>> {
    match dir.symlink_metadata(rel.as_ref()) {
        Ok(md) => Ok(Some(Stamp::of(&md))),
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `stat` of `rel` beneath `dir` (symlinks beneath it followed); `None` when it does not exist
/// or cannot be reached.
pub fn stat(dir: &Dir, rel: impl AsRef<Path>) -> Option<Stamp> {
    dir.metadata(rel.as_ref()).ok().map(|md| Stamp::of(&md))
}

/// The entries of directory `rel` beneath `dir` (UTF-8 names only), unsorted.
pub fn list(dir: &Dir, rel: impl AsRef<Path>) -> io::Result<Vec<(String, Kind)>> {
    let sub = dir.open_dir(rel.as_ref())?;
    let mut out = Vec::new();
    for entry in sub.entries()? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let kind = match entry.file_type() {
            Ok(t) if t.is_dir() => Kind::Dir,
            Ok(t) if t.is_symlink() => Kind::Symlink,
            Ok(_) => Kind::Other,
            // Removed meanwhile.
            Err(_) => continue,
        };
        out.push((name, kind));
    }
    Ok(out)
}

/// Opens `rel` beneath `dir` for reading without blocking: a FIFO planted as `article.md`
/// must not hang the scan (the caller then refuses anything but a regular file).
fn open_nonblocking(dir: &Dir, rel: &Path) -> io::Result<cap_std::fs::File> {
    let mut options = OpenOptions::new();
    options.read(true);
    platform::never_block(&mut options);
    dir.open_with(rel, &options)
}

/// Reads the start of the file `rel` beneath `dir`: until its frontmatter is closed, the file
/// ends, or [`MAX_FRONTMATTER_BYTES`] are read.
pub fn read_head(dir: &Dir, rel: impl AsRef<Path>) -> io::Result<Head> {
    let mut buf = Vec::new();
    let (filled, complete, stamp) = read_head_into(dir, rel.as_ref(), &mut buf)?;
    buf.truncate(filled);
    Ok(Head { bytes: buf, complete, stamp })
}

/// [`read_head`] into `buf`, a buffer reused from file to file (a scan reads thousands): the
/// bytes read are `buf[..filled]`; returns `(filled, complete, stamp)`. `buf` only grows, so
/// it is allocated and zeroed once per scan, not once per file. Three system calls for a
/// usual article: the open beneath `dir`, a `statx` (for the stamp, and to refuse anything
/// but a regular file before reading), one `read` (the size is known, so no second `read` to
/// see the end), and the close.
pub fn read_head_into(dir: &Dir, rel: &Path, buf: &mut Vec<u8>) -> io::Result<(usize, bool, Stamp)> {
    let mut file = open_nonblocking(dir, rel)?;
    let md = file.metadata()?;
    if md.is_dir() {
        return Err(io::Error::from(io::ErrorKind::IsADirectory));
    }
    if !md.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let stamp = Stamp::of(&md);
    let len = usize::try_from(md.len()).unwrap_or(usize::MAX);
    let mut filled = 0;
    let mut want = FIRST_READ;
    loop {
        if buf.len() < want {
            buf.resize(want, 0);
        }
        let mut eof = false;
        while filled < want {
            if filled >= len {
                eof = true;
                break;
            }
            let n = file.read(&mut buf[filled..want])?;
            if n == 0 {
                eof = true;
                break;
            }
            filled += n;
        }
        let bytes = &buf[..filled];
        let body = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        let closed = !matches!(frontmatter::locate(body), Located::Unclosed);
        if closed || eof || want >= MAX_FRONTMATTER_BYTES {
            return Ok((filled, eof, stamp));
        }
        want = (want * 4).min(MAX_FRONTMATTER_BYTES);
    }
}

/// Opens the directory `rel` beneath `dir` (the kernel refuses any path leaving `dir`).
pub fn open_dir(dir: &Dir, rel: impl AsRef<Path>) -> io::Result<Dir> {
    dir.open_dir(rel.as_ref())
}

/// The whole regular file `rel` beneath `dir`, if it has at most `max` bytes.
pub fn read_all(dir: &Dir, rel: impl AsRef<Path>, max: usize) -> io::Result<Vec<u8>> {
    let file = open_nonblocking(dir, rel.as_ref())?;
    let md = file.metadata()?;
    if !md.is_file() || usize::try_from(md.len()).unwrap_or(usize::MAX) > max {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file of a usable size"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(md.len()).unwrap_or(0));
    file.take(max as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether directory `rel` beneath `dir` holds nothing but temporary files of atomic writes
/// (what an interrupted `draft_post` leaves; possibly nothing at all); returns those names.
pub fn only_temp_files(dir: &Dir, rel: impl AsRef<Path>) -> io::Result<Option<Vec<String>>> {
    let entries = list(dir, rel)?;
    if entries.iter().all(|(name, kind)| *kind == Kind::Other && is_temp_name(name)) {
        Ok(Some(entries.into_iter().map(|(name, _)| name).collect()))
    } else {
        Ok(None)
    }
}

/// Removes the empty directory `rel` beneath `dir` (`rmdir`: fails unless it is empty).
pub fn remove_empty_dir(dir: &Dir, rel: impl AsRef<Path>) -> io::Result<()> {
    dir.remove_dir(rel.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    impl View {
        /// A view of the repository at `root` (a temp dir, without a sandbox).
        pub(crate) fn open(root: &Path) -> io::Result<View> {
            Ok(View { root: Dir::open_ambient_dir(root, cap_std::ambient_authority())? })
        }
    }

    #[test]
    fn reads_only_the_frontmatter_of_a_long_article() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("projects/p/01-a");
        std::fs::create_dir_all(&project).unwrap();
        let body = "x".repeat(100_000);
        let text = format!("---\ntitle: t\n---\n{body}");
        std::fs::write(project.join("article.md"), &text).unwrap();
        let view = View::open(tmp.path()).unwrap();
        let (projects, stamp) = view.projects().unwrap().unwrap();
        assert!(stamp.is_dir);
        let head = read_head(&projects, "p/01-a/article.md").unwrap();
        assert!(!head.complete);
        assert!(head.bytes.len() <= FIRST_READ);
        assert_eq!(head.stamp.len, text.len() as u64);

        let long_yaml = format!("---\n{}---\nbody", "k: v\n".repeat(5000));
        std::fs::write(project.join("article.md"), &long_yaml).unwrap();
        let head = read_head(&projects, "p/01-a/article.md").unwrap();
        assert!(matches!(frontmatter::locate(&head.bytes), Located::Found { .. }));
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn never_leaves_the_repository() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "---\ntitle: secret\n---\n").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("projects/p/01-a");
        std::fs::create_dir_all(&dir).unwrap();
        mcp_tests::os::symlink(outside.path().join("secret.md"), dir.join("article.md")).unwrap();
        mcp_tests::os::symlink("../../../../", tmp.path().join("projects/p/02-up")).unwrap();
        let view = View::open(tmp.path()).unwrap();
        let (projects, _) = view.projects().unwrap().unwrap();
        assert!(read_head(&projects, "p/01-a/article.md").is_err());
        assert!(read_head(&projects, "p/02-up/secret.md").is_err());
        assert!(read_head(&projects, "../projects/p/01-a/article.md").is_err());
    }

    #[test]
    fn lists_and_recognises_leftovers() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("projects/p/03-x")).unwrap();
        std::fs::write(tmp.path().join("projects/p/03-x/.article.md.mcp-tmp-0123"), "partial").unwrap();
        std::fs::create_dir_all(tmp.path().join("projects/p/04-y")).unwrap();
        std::fs::write(tmp.path().join("projects/p/04-y/notes.txt"), "mine").unwrap();
        let view = View::open(tmp.path()).unwrap();
        let (projects, _) = view.projects().unwrap().unwrap();
        let mut names = list(&projects, "p").unwrap();
        names.sort();
        assert_eq!(names, [("03-x".to_owned(), Kind::Dir), ("04-y".to_owned(), Kind::Dir)]);
        assert_eq!(only_temp_files(&projects, "p/03-x").unwrap(), Some(vec![".article.md.mcp-tmp-0123".to_owned()]));
        assert_eq!(only_temp_files(&projects, "p/04-y").unwrap(), None);
        assert!(remove_empty_dir(&projects, "p/04-y").is_err(), "never removes a non-empty directory");
        assert_eq!(lstat(&projects, "p/nope").unwrap(), None);
        assert!(View::open(tmp.path()).unwrap().projects().unwrap().is_some());
        // A FIFO is refused at once, not waited on.
        let fifo = tmp.path().join("projects/p/03-x/article.md");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(read_head(&projects, "p/03-x/article.md").is_err());
        let empty = tempfile::tempdir().unwrap();
        assert!(View::open(empty.path()).unwrap().projects().unwrap().is_none());
    }
}
