//! Confined, symlink-safe, atomic file access under one or more roots.
//!
//! Every file operation of every server goes through a [`Sandbox`]. It holds,
//! for each root, its canonical path and an open [`cap_std::fs::Dir`]; no file
//! is ever opened by an absolute path string.
//!
//! Two layers keep every access inside:
//!
//! 1. **Resolution.** [`Sandbox::resolve`] is lexical: it normalises `.` and
//!    `..` and checks, component-wise, that the result lies in a root. Each
//!    operation then walks the path one component at a time through the root's
//!    handle, reading symlinks itself: a relative target is expanded in place, an
//!    absolute one must lie in a root, and a `..` may climb out of a root only
//!    into an enclosing root. Anything else is [`SandboxError::OutsideRoot`],
//!    decided from the link text alone, so the error is the same whether the
//!    outside target exists or not. (`resolve.rs`)
//! 2. **The open itself.** The resolved, symlink-free path is opened through the
//!    root's `Dir` handle, which on Linux uses `openat2(RESOLVE_BENEATH)`: if a
//!    directory is swapped for an escaping symlink after step 1, the kernel
//!    refuses. Writes then work on a handle of the parent directory, with
//!    single-component names only.
//!
//! Writes are atomic: a hidden temporary file (`.name.mcp-tmp-<random>`) is
//! created in the target's directory, written, given the old file's
//! permissions, fsync'ed, renamed over the target (or hard-linked, for
//! `create_new`), and the directory is fsync'ed (`atomic.rs`).

mod atomic;
mod error;
mod lexical;
mod resolve;
mod walk;
mod write;

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use crate::platform::{self, FileId};

pub use atomic::WriteOptions;
pub use error::{SandboxError, path_hint};
pub use lexical::{TEMP_MARKER, is_temp_name, shown_name};
pub use walk::{FileEntry, Walk, WalkEntry, WalkOptions};

use resolve::Real;

/// One root: where it is, how it was spelled, and a handle on it.
struct Root {
    canonical: Arc<Path>,
    /// The absolute spelling the root was given by, if it differs from the
    /// canonical one (e.g. `/tmp/x` for `/private/tmp/x`).
    alias: Option<PathBuf>,
    dir: Dir,
}

struct Inner {
    roots: Vec<Root>,
    paths: Vec<PathBuf>,
    /// The roots for error messages (as configured).
    shown: String,
}

/// Confines file operations to one or more root directories.
///
/// Cheap to clone (one `Arc`).
#[derive(Clone)]
pub struct Sandbox {
    inner: Arc<Inner>,
}

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox").field("roots", &self.inner.paths).finish()
    }
}

/// A path resolved (lexically) into a root of a [`Sandbox`].
///
/// It holds no handle: every operation resolves symlinks anew, so a
/// `SandboxPath` never goes stale in a way that could escape.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SandboxPath {
    root: Arc<Path>,
    rel: PathBuf,
    display: String,
    /// The caller's path ended in `/` (or `/.`): it names a directory, as everywhere in POSIX,
    /// so a file there is [`SandboxError::NotADirectory`] and a file is never written there.
    dir_only: bool,
}

impl SandboxPath {
    /// The path relative to its root, normalised (no `.` or `..`); empty for
    /// the root itself.
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// The path as the caller passed it (for messages).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The root this path lies in (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The root joined with [`rel`](Self::rel) (lexical; symlinks not resolved).
    pub fn absolute(&self) -> PathBuf {
        if self.rel.as_os_str().is_empty() { self.root.to_path_buf() } else { self.root.join(&self.rel) }
    }

    /// This path with one more component `name` (no `/`, not `.` or `..`,
    /// no NUL byte).
    pub fn join(&self, name: &str) -> Result<SandboxPath, SandboxError> {
        let display = if self.display.ends_with('/') {
            format!("{}{name}", self.display)
        } else {
            format!("{}/{name}", self.display)
        };
        lexical::check_name(name, &display)?;
        Ok(SandboxPath { root: Arc::clone(&self.root), rel: self.rel.join(name), display, dir_only: false })
    }

    /// The parent directory, or `None` for a root itself.
    ///
    /// Its display string is absolute if this path's was, else relative to
    /// the root.
    pub fn parent(&self) -> Option<SandboxPath> {
        if self.rel.as_os_str().is_empty() {
            return None;
        }
        let rel = self.rel.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut parent = SandboxPath { root: Arc::clone(&self.root), rel, display: String::new(), dir_only: false };
        parent.display = if Path::new(&self.display).is_absolute() {
            parent.absolute().display().to_string()
        } else if parent.rel.as_os_str().is_empty() {
            ".".to_owned()
        } else {
            parent.rel.display().to_string()
        };
        Some(parent)
    }

    /// This path, marked as naming a directory only, for a caller that shows the path without
    /// its trailing `/` (the text editor shows paths as Python's `pathlib` does) but must keep
    /// its meaning: `names_directory` is whether the path as the client sent it ended in `/`.
    pub fn directory_only(mut self, names_directory: bool) -> SandboxPath {
        self.dir_only |= names_directory;
        self
    }

    /// Whether a path as a client wrote it can only name a directory (it ends in `/` or `/.`).
    pub fn is_directory_spelling(user_path: &str) -> bool {
        names_a_directory(user_path)
    }

    /// Whether the caller's path ended in `/` (or `/.`), so that it can only name a directory.
    pub fn names_a_directory(&self) -> bool {
        self.dir_only
    }

    /// The last component, or `None` for a root itself (or a non-UTF-8 name).
    pub fn file_name(&self) -> Option<&str> {
        self.rel.file_name().and_then(|name| name.to_str())
    }
}

/// Whether a path as the caller wrote it can only name a directory: it ends in `/` or `/.`
/// (`d/`, `d/.`; a lone `.` too, which is a directory anyway).
fn names_a_directory(user_path: &str) -> bool {
    let sep = std::path::MAIN_SEPARATOR;
    user_path.ends_with('/')
        || user_path.ends_with("/.")
        || user_path == "."
        || (sep != '/' && (user_path.ends_with(sep) || user_path.ends_with(&format!("{sep}."))))
}

/// What [`Sandbox::metadata`] tells about a file or directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// It is a directory.
    pub is_dir: bool,
    /// It is a regular file.
    pub is_file: bool,
    /// Size in bytes.
    pub len: u64,
    /// Last modification time, where the platform has one.
    pub modified: Option<SystemTime>,
    /// The permission bits (`st_mode & 0o7777`).
    pub permissions_mode: u32,
    /// Which file it is (device and inode), where the platform says.
    pub id: Option<FileId>,
}

/// What [`Sandbox::resolve_file`] found at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolvedKind {
    /// Nothing (the rest of the path was taken as written).
    Missing,
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else: a FIFO, a socket, a device.
    Other,
}

/// A path resolved by [`Sandbox::resolve_file`]: symlinks followed, confined to a root.
#[derive(Debug, Clone)]
pub struct ResolvedFile {
    root: Arc<Path>,
    rel: PathBuf,
    canonical: PathBuf,
    identity: Option<FileId>,
    kind: ResolvedKind,
    display: String,
}

impl ResolvedFile {
    /// The root it lies in (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path relative to that root, symlink-free (the components the resolution walked).
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// The canonical absolute path: the root joined with [`rel`](Self::rel).
    pub fn canonical(&self) -> &Path {
        &self.canonical
    }

    /// What was there when it was resolved.
    pub fn kind(&self) -> ResolvedKind {
        self.kind
    }
}

/// One entry of [`Sandbox::read_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name (UTF-8; other names are skipped).
    pub name: String,
    /// The entry itself is a directory (a symlink to one is not).
    pub is_dir: bool,
    /// The entry is a symlink.
    pub is_symlink: bool,
}

/// `rel`, or `.` for the root itself (cap-std wants a non-empty path).
fn dot(rel: &Path) -> &Path {
    if rel.as_os_str().is_empty() { Path::new(".") } else { rel }
}

fn open_dir_at(dir: &Dir, rel: &Path) -> io::Result<Dir> {
    if rel.as_os_str().is_empty() { dir.try_clone() } else { dir.open_dir(rel) }
}

impl Sandbox {
    /// A sandbox over `roots`: each must exist and be a directory; they are
    /// canonicalised (duplicates dropped). At least one is required.
    pub fn new(roots: impl IntoIterator<Item = impl AsRef<Path>>) -> Result<Sandbox, SandboxError> {
        let mut out: Vec<Root> = Vec::new();
        for given in roots {
            let given = given.as_ref();
            let shown = given.display().to_string();
            lexical::check_user_path(&shown)?;
            let canonical = platform::canonicalize(given).map_err(|e| SandboxError::from_io(e, &shown, ""))?;
            let is_dir = std::fs::metadata(&canonical).map_err(|e| SandboxError::from_io(e, &shown, ""))?.is_dir();
            if !is_dir {
                return Err(SandboxError::NotADirectory { path: shown });
            }
            let dir = Dir::open_ambient_dir(&canonical, ambient_authority())
                .map_err(|e| SandboxError::from_io(e, &shown, ""))?;
            let alias =
                std::path::absolute(given).ok().map(|abs| lexical::normalize_abs(&abs)).filter(|abs| abs != &canonical);
            if out.iter().all(|root| *root.canonical != *canonical) {
                out.push(Root { canonical: canonical.into(), alias, dir });
            }
        }
        if out.is_empty() {
            return Err(SandboxError::invalid("", "at least one root directory is required"));
        }
        Ok(Sandbox::from_roots(out))
    }

    fn from_roots(roots: Vec<Root>) -> Sandbox {
        let paths = roots.iter().map(|root| root.canonical.to_path_buf()).collect();
        let shown = roots
            .iter()
            .map(|root| root.alias.as_deref().unwrap_or(&root.canonical).display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Sandbox { inner: Arc::new(Inner { roots, paths, shown }) }
    }

    /// The roots, canonical, in the order given.
    pub fn roots(&self) -> &[PathBuf] {
        &self.inner.paths
    }

    /// Narrows to the client's MCP roots: keeps the client roots that lie inside
    /// one of ours and those of our roots that lie inside one of the client's.
    /// The result is never wider than `self`. An empty intersection is
    /// [`SandboxError::OutsideRoot`]; client roots that do not exist are skipped.
    pub fn narrowed(&self, client_roots: &[PathBuf]) -> Result<Sandbox, SandboxError> {
        let mut out: Vec<Root> = Vec::new();
        for client in client_roots {
            let shown = client.display().to_string();
            if !client.is_absolute() || shown.contains('\0') {
                continue;
            }
            let Ok(client_canonical) = platform::canonicalize(client) else {
                continue;
            };
            for root in &self.inner.roots {
                let candidate = if let Some(rel) = lexical::strip_base(&client_canonical, &root.canonical) {
                    // Opened beneath our root: never wider, whatever happens meanwhile.
                    let Ok(dir) = open_dir_at(&root.dir, &rel) else {
                        continue;
                    };
                    let alias = Some(lexical::normalize_abs(client)).filter(|a| a != &client_canonical);
                    Root { canonical: client_canonical.clone().into(), alias, dir }
                } else if lexical::strip_base(&root.canonical, &client_canonical).is_some() {
                    let Ok(dir) = root.dir.try_clone() else {
                        continue;
                    };
                    Root { canonical: Arc::clone(&root.canonical), alias: root.alias.clone(), dir }
                } else {
                    continue;
                };
                if out.iter().all(|r| r.canonical != candidate.canonical) {
                    out.push(candidate);
                }
            }
        }
        if out.is_empty() {
            let path = client_roots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
            return Err(self.outside(&path));
        }
        Ok(Sandbox::from_roots(out))
    }

    /// Resolves a path the caller passed, lexically (no filesystem access).
    ///
    /// An absolute path must lie, component-wise, in a root after `.` and `..`
    /// are normalised (also when spelled through a root's non-canonical
    /// spelling); a relative one is joined to the first root. The deepest
    /// containing root wins.
    pub fn resolve(&self, user_path: &str) -> Result<SandboxPath, SandboxError> {
        lexical::check_user_path(user_path)?;
        let path = Path::new(user_path);
        let absolute = if path.is_absolute() {
            lexical::normalize_abs(path)
        } else {
            lexical::normalize_abs(&self.inner.roots[0].canonical.join(path))
        };
        let (root, rel) = self.locate_abs(&absolute, true).ok_or_else(|| self.outside(user_path))?;
        Ok(SandboxPath {
            root: Arc::clone(&self.inner.roots[root].canonical),
            rel,
            display: user_path.to_owned(),
            dir_only: names_a_directory(user_path),
        })
    }

    /// Resolves a path relative to the first root only (the WebSocket host's
    /// paths). An absolute path, or one whose `..` leaves the first root, is
    /// [`SandboxError::OutsideRoot`].
    pub fn resolve_rel(&self, rel: &str) -> Result<SandboxPath, SandboxError> {
        lexical::check_user_path(rel)?;
        let path = Path::new(rel);
        if path.has_root() {
            return Err(self.outside(rel));
        }
        let first = &self.inner.roots[0].canonical;
        let absolute = lexical::normalize_abs(&first.join(path));
        let inside = lexical::strip_base(&absolute, first).ok_or_else(|| self.outside(rel))?;
        Ok(SandboxPath {
            root: Arc::clone(first),
            rel: inside,
            display: rel.to_owned(),
            dir_only: names_a_directory(rel),
        })
    }

    /// Metadata of the file or directory (symlinks inside followed).
    pub fn metadata(&self, p: &SandboxPath) -> Result<Metadata, SandboxError> {
        let real = self.real(p, true)?;
        let md = real.md.ok_or_else(|| SandboxError::not_found(p.display()))?;
        Ok(Metadata {
            is_dir: md.is_dir(),
            is_file: md.is_file(),
            len: md.len(),
            modified: md.modified().ok().map(|t| t.into_std()),
            permissions_mode: platform::permission_bits(&md),
            id: platform::file_id(&md),
        })
    }

    /// Whether something exists at the path: `Ok(false)` for a missing path
    /// inside (or a dangling symlink inside), `OutsideRoot` for an escape.
    pub fn exists(&self, p: &SandboxPath) -> Result<bool, SandboxError> {
        match self.real(p, true) {
            Ok(real) => Ok(real.md.is_some()),
            Err(SandboxError::NotFound { .. } | SandboxError::NotADirectory { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The whole content of a file.
    pub fn read(&self, p: &SandboxPath) -> Result<Vec<u8>, SandboxError> {
        let mut file = self.open_read(p)?;
        let capacity = file.metadata().map(|m| usize::try_from(m.len()).unwrap_or(0)).unwrap_or(0);
        let mut bytes = Vec::with_capacity(capacity);
        file.read_to_end(&mut bytes).map_err(|e| self.io(e, p.display()))?;
        Ok(bytes)
    }

    /// Opens a regular file for reading (streaming). A directory is
    /// [`SandboxError::IsADirectory`]; any other non-regular file is
    /// [`SandboxError::InvalidPath`].
    pub fn open_read(&self, p: &SandboxPath) -> Result<std::fs::File, SandboxError> {
        let real = self.real(p, true)?;
        self.open_read_real(&real, p.display())
    }

    /// The part of [`open_read`](Self::open_read) after resolution.
    fn open_read_real(&self, real: &Real, shown: &str) -> Result<std::fs::File, SandboxError> {
        match &real.md {
            None => return Err(SandboxError::not_found(shown)),
            Some(md) if md.is_dir() => {
                return Err(SandboxError::IsADirectory { path: shown.to_owned() });
            }
            Some(md) if !md.is_file() => {
                return Err(SandboxError::invalid(shown, "not a regular file (a device, socket or FIFO)"));
            }
            Some(_) => {}
        }
        // The type seen at resolution may be stale: a FIFO renamed over the file meanwhile would
        // make a blocking `open` wait for a writer forever. So the (symlink-free) path is opened
        // without blocking and without following a last-component symlink, and the type is
        // checked again on the open descriptor.
        use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt as _};
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        platform::never_block(&mut options);
        let file = self.inner.roots[real.root]
            .dir
            .open_with(dot(&real.rel), &options)
            .map_err(|e| match self.io(e, shown) {
                SandboxError::InvalidPath { .. } => {
                    SandboxError::invalid(shown, "it changed while it was being opened; try again")
                }
                other => other,
            })?
            .into_std();
        let md = file.metadata().map_err(|e| self.io(e, shown))?;
        if md.is_dir() {
            return Err(SandboxError::IsADirectory { path: shown.to_owned() });
        }
        if !md.is_file() {
            return Err(SandboxError::invalid(shown, "not a regular file (a device, socket or FIFO)"));
        }
        Ok(file)
    }

    /// Resolves `p` (symlinks followed, confined as for every operation) without opening it:
    /// the canonical path it names and what was there at that moment. Pair it with
    /// [`open_resolved`](Self::open_resolved) to check the real path (its name, its
    /// components) before anything is read, with no window for a swap in between.
    pub fn resolve_file(&self, p: &SandboxPath) -> Result<ResolvedFile, SandboxError> {
        let real = self.real(p, true)?;
        let root = &self.inner.roots[real.root].canonical;
        let kind = match &real.md {
            None => ResolvedKind::Missing,
            Some(md) if md.is_dir() => ResolvedKind::Dir,
            Some(md) if md.is_file() => ResolvedKind::File,
            Some(_) => ResolvedKind::Other,
        };
        Ok(ResolvedFile {
            root: Arc::clone(root),
            canonical: if real.rel.as_os_str().is_empty() { root.to_path_buf() } else { root.join(&real.rel) },
            rel: real.rel,
            identity: real.md.as_ref().and_then(platform::file_id),
            kind,
            display: p.display().to_owned(),
        })
    }

    /// Opens for reading the regular file [`resolve_file`](Self::resolve_file) found, and
    /// proves it is that file: the symlink-free path is opened beneath its root's handle
    /// without following a symlink as its last component and without blocking (a FIFO put
    /// there meanwhile is not waited on), and the opened descriptor's device and inode must be
    /// those seen at resolution. A path swapped for a symlink, or for another file, between
    /// the two calls is refused ([`SandboxError::InvalidPath`]); read from the returned
    /// descriptor only.
    pub fn open_resolved(&self, r: &ResolvedFile) -> Result<std::fs::File, SandboxError> {
        use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt as _};
        let shown = r.display.as_str();
        let changed = || SandboxError::invalid(shown, "it changed while it was being opened; try again");
        let (root, rel) = self.locate_abs(&r.canonical, false).ok_or_else(|| self.outside(shown))?;
        let Some(identity) = r.identity.filter(|_| r.kind == ResolvedKind::File) else {
            return match r.kind {
                ResolvedKind::Missing => Err(SandboxError::not_found(shown)),
                ResolvedKind::Dir => Err(SandboxError::IsADirectory { path: shown.to_owned() }),
                _ => Err(SandboxError::invalid(shown, "not a regular file (a device, socket or FIFO)")),
            };
        };
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        platform::never_block(&mut options);
        let file = match self.inner.roots[root].dir.open_with(dot(&rel), &options) {
            Ok(file) => file.into_std(),
            // Gone, a symlink now (refused as the last component, or leading out), a file on the
            // way: what was resolved is not there any more.
            Err(e) => {
                return Err(match SandboxError::from_io(e, shown, &self.inner.shown) {
                    SandboxError::InvalidPath { .. }
                    | SandboxError::OutsideRoot { .. }
                    | SandboxError::NotFound { .. }
                    | SandboxError::NotADirectory { .. } => changed(),
                    SandboxError::Io { kind: io::ErrorKind::InvalidInput, .. } => changed(),
                    other => other,
                });
            }
        };
        let md = file.metadata().map_err(|e| self.io(e, shown))?;
        if !md.is_file() || platform::file_id_of(&file).map_err(|e| self.io(e, shown))? != identity {
            return Err(changed());
        }
        Ok(file)
    }

    /// The entries of a directory, sorted by name. Non-UTF-8 names and the
    /// sandbox's own temporary files are skipped; hidden files are listed.
    pub fn read_dir(&self, p: &SandboxPath) -> Result<Vec<DirEntry>, SandboxError> {
        let shown = p.display();
        let dir = self.open_real_dir(p)?.1;
        let mut out = Vec::new();
        for entry in dir.entries().map_err(|e| self.io(e, shown))? {
            let entry = entry.map_err(|e| self.io(e, shown))?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if lexical::is_temp_name(&name) {
                continue;
            }
            // An entry removed meanwhile is skipped.
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            out.push(DirEntry { name, is_dir: file_type.is_dir(), is_symlink: file_type.is_symlink() });
        }
        out.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// A capability handle on the directory `p` (symlinks resolved and checked as for every
    /// operation), for a server that reads a large tree itself: every open through the handle
    /// stays beneath it (`openat2(RESOLVE_BENEATH)` on Linux), so nothing outside the sandbox
    /// can be reached through it either.
    pub fn open_dir_handle(&self, p: &SandboxPath) -> Result<Dir, SandboxError> {
        Ok(self.open_real_dir(p)?.1)
    }

    /// Creates (mode 0644 less the umask) or opens a file for reading and
    /// writing, to lock it with `File::lock`. The parent must exist.
    pub fn open_lock_file(&self, p: &SandboxPath) -> Result<std::fs::File, SandboxError> {
        let shown = p.display();
        let real = self.real(p, true)?;
        if real.md.as_ref().is_some_and(|md| md.is_dir()) || real.rel.as_os_str().is_empty() {
            return Err(SandboxError::IsADirectory { path: shown.to_owned() });
        }
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true);
        platform::create_mode(&mut options, 0o644);
        let file = self.inner.roots[real.root].dir.open_with(&real.rel, &options).map_err(|e| self.io(e, shown))?;
        Ok(file.into_std())
    }

    /// Lists a directory recursively (see [`WalkOptions`]). Symlinks are
    /// listed, never followed; nothing outside the root is ever listed.
    pub fn walk(&self, p: &SandboxPath, opts: &WalkOptions) -> Result<Walk, SandboxError> {
        let (real, dir) = self.open_real_dir(p)?;
        Ok(walk::walk(&self.inner.roots[real.root].dir, &real.rel, &dir, opts))
    }

    /// The regular files under the directory `p`, recursively, as [`walk`](Self::walk) finds
    /// them (hidden entries and `.gitignore`d paths per `opts`, symlinks never followed), each
    /// opened beneath its directory's handle ([`FileEntry::open`]); and whether `max_entries`
    /// cut the list. For tools that read many files (search): the list is taken in one walk and
    /// the files can then be read on several threads.
    pub fn files(&self, p: &SandboxPath, opts: &WalkOptions) -> Result<(Vec<FileEntry>, bool), SandboxError> {
        let mut files = Vec::new();
        let truncated = self.each_file(p, opts, &mut |file| {
            files.push(file);
            true
        })?;
        Ok((files, truncated))
    }

    /// [`files`](Self::files), one at a time as the walk finds them (so that the files found so
    /// far can be read while the walk goes on), until `each` returns `false` (a search that was
    /// cancelled or has enough); whether `max_entries` cut the walk.
    pub fn each_file(
        &self,
        p: &SandboxPath,
        opts: &WalkOptions,
        each: &mut dyn FnMut(FileEntry) -> bool,
    ) -> Result<bool, SandboxError> {
        let (real, dir) = self.open_real_dir(p)?;
        Ok(walk::each_file(&self.inner.roots[real.root].dir, &real.rel, &dir, opts, each))
    }

    /// Resolves `p` to a directory and opens it beneath its root.
    fn open_real_dir(&self, p: &SandboxPath) -> Result<(Real, Dir), SandboxError> {
        let shown = p.display();
        let real = self.real(p, true)?;
        match &real.md {
            None => return Err(SandboxError::not_found(shown)),
            Some(md) if !md.is_dir() => {
                return Err(SandboxError::NotADirectory { path: shown.to_owned() });
            }
            Some(_) => {}
        }
        let dir = open_dir_at(&self.inner.roots[real.root].dir, &real.rel).map_err(|e| self.io(e, shown))?;
        Ok((real, dir))
    }

    fn outside(&self, path: &str) -> SandboxError {
        SandboxError::OutsideRoot { path: path.to_owned(), roots: self.inner.shown.clone() }
    }

    fn io(&self, err: io::Error, path: &str) -> SandboxError {
        SandboxError::from_io(err, path, &self.inner.shown)
    }
}

#[cfg(test)]
mod tests {
    // Tests of the sandbox: each on its own temporary directory, run in parallel.

    use std::fs;
    #[cfg(unix)]
    use std::os::unix::fs::{PermissionsExt, symlink};
    use std::path::{Component, Path, PathBuf};

    use proptest::prelude::*;

    use crate::ErrorCode;
    use tempfile::TempDir;

    use super::*;

    /// `base/proj` is the root; `base/outside/secret.txt` and
    /// `base/proj_evil/x` lie outside it.
    struct Fx {
        _tmp: TempDir,
        base: PathBuf,
        root: PathBuf,
        sb: Sandbox,
    }

    fn fx() -> Fx {
        let tmp = TempDir::new().unwrap();
        let base = crate::platform::canonicalize(tmp.path()).unwrap();
        let root = base.join("proj");
        fs::create_dir(&root).unwrap();
        fs::create_dir(base.join("outside")).unwrap();
        fs::write(base.join("outside/secret.txt"), "SECRET").unwrap();
        fs::create_dir(base.join("proj_evil")).unwrap();
        fs::write(base.join("proj_evil/x"), "EVIL").unwrap();
        let sb = Sandbox::new([&root]).unwrap();
        Fx { _tmp: tmp, base, root, sb }
    }

    #[test]
    fn a_checked_removal_puts_back_a_file_that_is_not_the_one_read() {
        let f = fx();
        fs::write(f.root.join("a.txt"), "newer").unwrap();
        let p = f.sb.resolve("a.txt").unwrap();
        let refused = f.sb.remove_file_if(&p, &|file| {
            use std::io::Read as _;
            let mut now = String::new();
            (&*file).read_to_string(&mut now).unwrap();
            now == "what was read"
        });
        assert!(matches!(refused, Err(SandboxError::Changed { .. })), "{refused:?}");
        assert_eq!(fs::read_to_string(f.root.join("a.txt")).unwrap(), "newer", "put back under its name");
        assert_eq!(fs::read_dir(&f.root).unwrap().count(), 1, "nothing left aside");
        f.sb.remove_file_if(&p, &|_| true).unwrap();
        assert!(!f.root.join("a.txt").exists());
        assert!(matches!(f.sb.remove_file_if(&p, &|_| true), Err(SandboxError::NotFound { .. })));
    }

    /// A symbolic link (Windows: a file or directory link, as the target is now; a target that
    /// does not exist gets a file link).
    #[cfg(windows)]
    fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> std::io::Result<()> {
        let (target, link) = (target.as_ref(), link.as_ref());
        let resolved = if target.is_absolute() { target.to_path_buf() } else { link.parent().unwrap().join(target) };
        if resolved.is_dir() {
            std::os::windows::fs::symlink_dir(target, link)
        } else {
            std::os::windows::fs::symlink_file(target, link)
        }
    }

    fn s(p: &Path) -> String {
        p.display().to_string()
    }

    fn is_outside<T: std::fmt::Debug>(r: Result<T, SandboxError>) -> bool {
        match r {
            Err(e @ SandboxError::OutsideRoot { .. }) => {
                assert_eq!(e.code(), ErrorCode::OutsideRoot);
                true
            }
            other => {
                eprintln!("expected OutsideRoot, got {other:?}");
                false
            }
        }
    }

    /// The walked paths, with `/` between components on every OS.
    fn names(walk: &Walk) -> Vec<String> {
        walk.entries.iter().map(|e| e.rel.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/")).collect()
    }

    fn no_temp_files(dir: &Path) -> bool {
        fs::read_dir(dir).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains(".mcp-tmp-"))
    }

    // ---- lexical resolution ----

    #[test]
    fn sandbox_dotdot_leaving_is_outside() {
        let f = fx();
        assert!(is_outside(f.sb.resolve("../outside/secret.txt")));
        assert!(is_outside(f.sb.resolve("a/../../x")));
        assert!(is_outside(f.sb.resolve("..")));
        let abs = format!("{}/../outside/secret.txt", s(&f.root));
        assert!(is_outside(f.sb.resolve(&abs)));
    }

    #[test]
    fn sandbox_dotdot_staying_inside() {
        let f = fx();
        let p = f.sb.resolve("a/../b").unwrap();
        assert_eq!(p.rel(), Path::new("b"));
        let p = f.sb.resolve(&format!("{}/a/../b/./c", s(&f.root))).unwrap();
        assert_eq!(p.rel(), Path::new("b/c"));
        assert_eq!(p.absolute(), f.root.join("b/c"));
        let p = f.sb.resolve(".").unwrap();
        assert_eq!(p.rel(), Path::new(""));
        assert_eq!(p.absolute(), f.root);
    }

    #[test]
    fn sandbox_absolute_elsewhere_is_outside() {
        let f = fx();
        let err = f.sb.resolve("/etc/passwd").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("/etc/passwd is outside the allowed root(s): "), "{msg}");
        assert!(msg.contains(&s(&f.root)), "{msg}");
        assert!(is_outside(f.sb.resolve("/")));
    }

    #[test]
    fn sandbox_sibling_prefix_is_outside() {
        let f = fx();
        let evil = format!("{}_evil/x", s(&f.root));
        assert!(is_outside(f.sb.resolve(&evil)));
        assert!(is_outside(f.sb.resolve("../proj_evil/x")));
        assert!(is_outside(f.sb.resolve_rel("../proj_evil/x")));
    }

    #[test]
    fn sandbox_nul_byte_and_empty_path_are_invalid() {
        let f = fx();
        for bad in ["a\0b", "", "/etc\0"] {
            let err = f.sb.resolve(bad).unwrap_err();
            assert!(matches!(err, SandboxError::InvalidPath { .. }), "{err:?}");
            assert_eq!(err.code(), ErrorCode::InvalidArgs);
            assert!(f.sb.resolve_rel(bad).is_err());
        }
        let p = f.sb.resolve("a").unwrap();
        assert!(matches!(p.join("b/c"), Err(SandboxError::InvalidPath { .. })));
        assert!(matches!(p.join(".."), Err(SandboxError::InvalidPath { .. })));
        assert!(matches!(p.join("x\0"), Err(SandboxError::InvalidPath { .. })));
    }

    #[test]
    fn sandbox_relative_paths_resolve_against_the_first_root() {
        let f = fx();
        let p = f.sb.resolve("src/a.rs").unwrap();
        assert_eq!(p.absolute(), f.root.join("src/a.rs"));
        assert_eq!(p.display(), "src/a.rs");
        assert_eq!(p.file_name(), Some("a.rs"));
        let parent = p.parent().unwrap();
        assert_eq!(parent.rel(), Path::new("src"));
        assert_eq!(parent.display(), "src");
        assert_eq!(parent.parent().unwrap().display(), ".");
        assert!(parent.parent().unwrap().parent().is_none());
        let joined = parent.join("b.rs").unwrap();
        assert_eq!(joined.display(), "src/b.rs");
        assert_eq!(joined.rel(), Path::new("src/b.rs"));

        let q = f.sb.resolve_rel("src/./a.rs").unwrap();
        assert_eq!(q.rel(), Path::new("src/a.rs"));
        assert!(is_outside(f.sb.resolve_rel("/etc/passwd")));
        assert!(is_outside(f.sb.resolve_rel("../x")));

        let abs = f.sb.resolve(&s(&f.root.join("src/a.rs"))).unwrap();
        assert_eq!(abs.parent().unwrap().display(), s(&f.root.join("src")));
    }

    // ---- symlinks ----

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_symlink_to_outside_file_is_refused() {
        let f = fx();
        symlink(f.base.join("outside/secret.txt"), f.root.join("link")).unwrap();
        symlink("../outside/secret.txt", f.root.join("rel_link")).unwrap();
        for name in ["link", "rel_link"] {
            let p = f.sb.resolve(name).unwrap();
            assert!(is_outside(f.sb.read(&p)));
            assert!(is_outside(f.sb.open_read(&p)));
            assert!(is_outside(f.sb.metadata(&p)));
            assert!(is_outside(f.sb.exists(&p)));
            assert!(is_outside(f.sb.write_atomic(&p, b"pwned", &WriteOptions::default())));
            assert!(is_outside(f.sb.open_lock_file(&p)));
        }
        assert_eq!(fs::read_to_string(f.base.join("outside/secret.txt")).unwrap(), "SECRET");
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_symlink_to_outside_dir_is_refused() {
        let f = fx();
        symlink(f.base.join("outside"), f.root.join("d")).unwrap();
        let secret = f.sb.resolve("d/secret.txt").unwrap();
        assert!(is_outside(f.sb.read(&secret)));
        let new = f.sb.resolve("d/new.txt").unwrap();
        assert!(is_outside(f.sb.write_atomic(&new, b"x", &WriteOptions::default())));
        assert!(is_outside(f.sb.create_dir(&f.sb.resolve("d/x").unwrap())));
        assert!(is_outside(f.sb.create_dir_all(&f.sb.resolve("d/x/y").unwrap())));
        let d = f.sb.resolve("d").unwrap();
        assert!(is_outside(f.sb.read_dir(&d)));
        assert!(is_outside(f.sb.walk(&d, &WalkOptions::default())));
        assert!(!f.base.join("outside/new.txt").exists());
        assert!(!f.base.join("outside/x").exists());
        // Listed as a symlink, never descended.
        let walk = f.sb.walk(&f.sb.resolve(".").unwrap(), &WalkOptions::default()).unwrap();
        assert_eq!(
            walk.entries,
            vec![WalkEntry { rel: "d".into(), is_dir: false, is_symlink: true, unreadable: false, len: None }]
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_dir_handle_is_confined() {
        let f = fx();
        fs::create_dir(f.root.join("sub")).unwrap();
        fs::write(f.root.join("sub/a.txt"), "A").unwrap();
        symlink(f.base.join("outside"), f.root.join("d")).unwrap();
        symlink("../outside/secret.txt", f.root.join("sub/link")).unwrap();
        let root = f.sb.open_dir_handle(&f.sb.resolve(".").unwrap()).unwrap();
        assert_eq!(root.read_to_string("sub/a.txt").unwrap(), "A");
        // Nothing outside is reachable through the handle: `..`, absolute paths, symlinks out.
        assert!(root.read_to_string("../outside/secret.txt").is_err());
        assert!(root.read_to_string(s(&f.base.join("outside/secret.txt"))).is_err());
        assert!(root.read_to_string("d/secret.txt").is_err());
        assert!(root.read_to_string("sub/link").is_err());
        // A directory symlinked out is refused before any handle exists.
        assert!(is_outside(f.sb.open_dir_handle(&f.sb.resolve("d").unwrap())));
        let sub = f.sb.open_dir_handle(&f.sb.resolve("sub").unwrap()).unwrap();
        assert!(sub.read_to_string("../../outside/secret.txt").is_err());
        assert!(matches!(
            f.sb.open_dir_handle(&f.sb.resolve("sub/a.txt").unwrap()),
            Err(SandboxError::NotADirectory { .. })
        ));
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_dangling_symlinks() {
        let f = fx();
        symlink(f.base.join("outside/missing"), f.root.join("out_abs")).unwrap();
        symlink("../outside/missing", f.root.join("out_rel")).unwrap();
        symlink("missing.txt", f.root.join("in")).unwrap();
        assert!(is_outside(f.sb.read(&f.sb.resolve("out_abs").unwrap())));
        assert!(is_outside(f.sb.read(&f.sb.resolve("out_rel").unwrap())));
        let write = f.sb.write_atomic(&f.sb.resolve("out_rel").unwrap(), b"x", &WriteOptions::default());
        assert!(is_outside(write));
        assert!(!f.base.join("outside/missing").exists());

        let inside = f.sb.resolve("in").unwrap();
        assert!(matches!(f.sb.read(&inside), Err(SandboxError::NotFound { .. })));
        assert!(!f.sb.exists(&inside).unwrap());
        // Writing through a dangling link inside creates its target.
        f.sb.write_atomic(&inside, b"made", &WriteOptions::default()).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("missing.txt")).unwrap(), "made");
        assert!(fs::symlink_metadata(f.root.join("in")).unwrap().is_symlink());
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_same_error_whether_the_outside_target_exists_or_not() {
        let f = fx();
        let pairs = [
            (f.base.join("outside/secret.txt"), f.base.join("outside/nothing")),
            (PathBuf::from("../outside/secret.txt"), PathBuf::from("../outside/nothing")),
            (PathBuf::from("/etc/passwd"), PathBuf::from("/etc/no-such-file")),
        ];
        for (existing, missing) in pairs {
            symlink(&existing, f.root.join("a")).unwrap();
            symlink(&missing, f.root.join("b")).unwrap();
            for op in 0..4 {
                let run = |name: &str| -> String {
                    let p = f.sb.resolve(name).unwrap();
                    let err = match op {
                        0 => f.sb.read(&p).map(|_| ()),
                        1 => f.sb.metadata(&p).map(|_| ()),
                        2 => f.sb.exists(&p).map(|_| ()),
                        _ => f.sb.write_atomic(&p, b"x", &WriteOptions::default()),
                    }
                    .unwrap_err();
                    assert_eq!(err.code(), ErrorCode::OutsideRoot);
                    err.to_string().replacen(name, "NAME", 1)
                };
                let (a, b) = (run("a"), run("b"));
                assert_eq!(a, b);
                assert!(!a.contains("outside/"), "{a}");
                assert!(!a.contains("/etc"), "{a}");
            }
            fs::remove_file(f.root.join("a")).unwrap();
            fs::remove_file(f.root.join("b")).unwrap();
        }
        // The same for plain paths.
        let a = f.sb.resolve("../outside/secret.txt").unwrap_err().to_string();
        let b = f.sb.resolve("../outside/nothing.txt").unwrap_err().to_string();
        assert_eq!(a.replacen("../outside/secret.txt", "X", 1), b.replacen("../outside/nothing.txt", "X", 1));
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_intermediate_directory_symlink_is_refused() {
        let f = fx();
        fs::create_dir(f.root.join("a")).unwrap();
        symlink(f.base.join("outside"), f.root.join("a/b")).unwrap();
        let opts = WriteOptions { create_parents: true, ..WriteOptions::default() };
        let p = f.sb.resolve("a/b/c/x.txt").unwrap();
        assert!(is_outside(f.sb.write_atomic(&p, b"x", &opts)));
        assert!(is_outside(f.sb.create_dir_all(&f.sb.resolve("a/b/c").unwrap())));
        assert!(is_outside(f.sb.read(&f.sb.resolve("a/b/secret.txt").unwrap())));
        assert!(!f.base.join("outside/c").exists());
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_symlink_loops_are_refused() {
        let f = fx();
        symlink("l2", f.root.join("l1")).unwrap();
        symlink("l1", f.root.join("l2")).unwrap();
        symlink("self", f.root.join("self")).unwrap();
        for name in ["l1", "self", "l1/x"] {
            let p = f.sb.resolve(name).unwrap();
            let err = f.sb.read(&p).unwrap_err();
            assert!(matches!(err, SandboxError::InvalidPath { .. }), "{err:?}");
            let err = f.sb.write_atomic(&p, b"x", &WriteOptions::default()).unwrap_err();
            assert!(matches!(err, SandboxError::InvalidPath { .. }), "{err:?}");
        }
        // The links themselves can still be removed.
        f.sb.remove_file(&f.sb.resolve("self").unwrap()).unwrap();
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_symlink_inside_to_inside_reads_and_writes_through() {
        let f = fx();
        fs::create_dir(f.root.join("sub")).unwrap();
        fs::write(f.root.join("real.txt"), "hello").unwrap();
        symlink("real.txt", f.root.join("link")).unwrap();
        symlink(f.root.join("real.txt"), f.root.join("abs_link")).unwrap();
        symlink("../real.txt", f.root.join("sub/up_link")).unwrap();
        symlink("sub", f.root.join("dir_link")).unwrap();
        symlink("../sub/../link", f.root.join("sub/winding")).unwrap();
        for name in ["link", "abs_link", "sub/up_link", "dir_link/up_link", "sub/winding"] {
            let p = f.sb.resolve(name).unwrap();
            assert_eq!(f.sb.read(&p).unwrap(), b"hello", "{name}");
            assert!(f.sb.metadata(&p).unwrap().is_file);
        }
        let link = f.sb.resolve("link").unwrap();
        f.sb.write_atomic(&link, b"new", &WriteOptions::default()).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("real.txt")).unwrap(), "new");
        assert!(fs::symlink_metadata(f.root.join("link")).unwrap().is_symlink());
        let via_dir = f.sb.resolve("dir_link/f.txt").unwrap();
        f.sb.write_atomic(&via_dir, b"f", &WriteOptions::default()).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("sub/f.txt")).unwrap(), "f");
        assert!(no_temp_files(&f.root));
        assert!(no_temp_files(&f.root.join("sub")));
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_symlink_climbs_only_into_an_enclosing_root() {
        let f = fx();
        fs::create_dir(f.root.join("sub")).unwrap();
        fs::write(f.root.join("top.txt"), "top").unwrap();
        symlink("../top.txt", f.root.join("sub/up")).unwrap();
        let nested = Sandbox::new([f.root.join("sub"), f.root.clone()]).unwrap();
        let p = nested.resolve(&s(&f.root.join("sub/up"))).unwrap();
        assert_eq!(p.root(), f.root.join("sub"));
        assert_eq!(nested.read(&p).unwrap(), b"top");
        // With only the inner root, the same link leads out.
        let inner = Sandbox::new([f.root.join("sub")]).unwrap();
        assert!(is_outside(inner.read(&inner.resolve("up").unwrap())));
    }

    // ---- writes ----

    #[cfg(unix)]
    #[test]
    fn sandbox_atomic_write_keeps_mode() {
        let f = fx();
        let script = f.root.join("run.sh");
        fs::write(&script, "old").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        let p = f.sb.resolve("run.sh").unwrap();
        f.sb.write_atomic(&p, b"#!/bin/sh\n", &WriteOptions::default()).unwrap();
        assert_eq!(fs::read(&script).unwrap(), b"#!/bin/sh\n");
        assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o7777, 0o755);
        assert_eq!(f.sb.metadata(&p).unwrap().permissions_mode, 0o755);

        let private = f.sb.resolve("private").unwrap();
        let opts = WriteOptions { mode_if_new: Some(0o600), fsync: false, ..WriteOptions::default() };
        f.sb.write_atomic(&private, b"x", &opts).unwrap();
        assert_eq!(f.sb.metadata(&private).unwrap().permissions_mode, 0o600);

        let plain = f.sb.resolve("plain").unwrap();
        f.sb.write_atomic(&plain, b"x", &WriteOptions::default()).unwrap();
        let mode = f.sb.metadata(&plain).unwrap().permissions_mode;
        assert_eq!(mode & 0o600, 0o600);
        assert_eq!(mode & 0o133, 0, "{mode:o}");
        assert!(no_temp_files(&f.root));
    }

    #[test]
    fn sandbox_create_new_on_existing_file_is_already_exists() {
        let f = fx();
        fs::write(f.root.join("a.txt"), "keep").unwrap();
        let opts = WriteOptions { create_new: true, ..WriteOptions::default() };
        let p = f.sb.resolve("a.txt").unwrap();
        let err = f.sb.write_atomic(&p, b"clobber", &opts).unwrap_err();
        assert!(matches!(err, SandboxError::AlreadyExists { .. }), "{err:?}");
        assert_eq!(err.code(), ErrorCode::AlreadyExists);
        assert_eq!(fs::read_to_string(f.root.join("a.txt")).unwrap(), "keep");

        let q = f.sb.resolve("b.txt").unwrap();
        f.sb.write_atomic(&q, b"new", &opts).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("b.txt")).unwrap(), "new");
        let file = fs::File::open(f.root.join("b.txt")).unwrap();
        assert_eq!(crate::platform::link_count(&file).unwrap(), 1);
        assert!(no_temp_files(&f.root));
    }

    #[test]
    fn sandbox_create_new_races_have_one_winner() {
        let f = fx();
        let p = f.sb.resolve("claim.txt").unwrap();
        let opts = WriteOptions { create_new: true, fsync: false, ..WriteOptions::default() };
        let wins = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8u8)
                .map(|i| {
                    let (sb, p, opts) = (&f.sb, &p, &opts);
                    scope.spawn(move || sb.write_atomic(p, &[b'0' + i], opts).is_ok())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).filter(|won| *won).count()
        });
        assert_eq!(wins, 1);
        assert_eq!(fs::read(f.root.join("claim.txt")).unwrap().len(), 1);
        assert!(no_temp_files(&f.root));
    }

    #[test]
    fn sandbox_create_parents() {
        let f = fx();
        let p = f.sb.resolve("x/y/z.txt").unwrap();
        let err = f.sb.write_atomic(&p, b"z", &WriteOptions::default()).unwrap_err();
        assert!(matches!(err, SandboxError::NotFound { .. }), "{err:?}");
        assert!(!f.root.join("x").exists());
        let opts = WriteOptions { create_parents: true, ..WriteOptions::default() };
        f.sb.write_atomic(&p, b"z", &opts).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("x/y/z.txt")).unwrap(), "z");
        // A file in the way of a parent.
        let q = f.sb.resolve("x/y/z.txt/w").unwrap();
        let err = f.sb.write_atomic(&q, b"w", &opts).unwrap_err();
        assert!(matches!(err, SandboxError::NotADirectory { .. }), "{err:?}");
        // Writing over a directory.
        let dir = f.sb.resolve("x").unwrap();
        let err = f.sb.write_atomic(&dir, b"w", &opts).unwrap_err();
        assert!(matches!(err, SandboxError::IsADirectory { .. }), "{err:?}");
        let root = f.sb.resolve(".").unwrap();
        assert!(f.sb.write_atomic(&root, b"w", &opts).is_err());
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_create_dir_claims_a_name_once() {
        let f = fx();
        let p = f.sb.resolve("projects/01-hello").unwrap();
        assert!(matches!(f.sb.create_dir(&p), Err(SandboxError::NotFound { .. })));
        f.sb.create_dir_all(&p.parent().unwrap()).unwrap();
        f.sb.create_dir(&p).unwrap();
        let err = f.sb.create_dir(&p).unwrap_err();
        assert!(matches!(err, SandboxError::AlreadyExists { .. }), "{err:?}");
        f.sb.create_dir_all(&p).unwrap();
        fs::write(f.root.join("file"), "").unwrap();
        let file = f.sb.resolve("file").unwrap();
        assert!(matches!(f.sb.create_dir(&file), Err(SandboxError::AlreadyExists { .. })));
        assert!(matches!(f.sb.create_dir_all(&file), Err(SandboxError::NotADirectory { .. })));
        // A dangling symlink occupies the name too.
        symlink("nowhere", f.root.join("dangling")).unwrap();
        let dangling = f.sb.resolve("dangling").unwrap();
        assert!(matches!(f.sb.create_dir(&dangling), Err(SandboxError::AlreadyExists { .. })));
    }

    #[test]
    fn sandbox_no_temp_files_left_and_crash_leftovers_hidden() {
        let f = fx();
        let p = f.sb.resolve("a.txt").unwrap();
        for i in 0..5 {
            f.sb.write_atomic(&p, format!("v{i}").as_bytes(), &WriteOptions::default()).unwrap();
        }
        let opts = WriteOptions { create_new: true, ..WriteOptions::default() };
        assert!(f.sb.write_atomic(&p, b"no", &opts).is_err());
        assert!(no_temp_files(&f.root));
        assert_eq!(fs::read_to_string(f.root.join("a.txt")).unwrap(), "v4");
        // What a kill -9 mid-write would leave: never listed.
        fs::write(f.root.join(".a.txt.mcp-tmp-0123456789abcdef"), "half").unwrap();
        let root = f.sb.resolve(".").unwrap();
        let listed: Vec<_> = f.sb.read_dir(&root).unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(listed, vec!["a.txt"]);
        let opts = WalkOptions { hidden: true, ..WalkOptions::default() };
        assert_eq!(names(&f.sb.walk(&root, &opts).unwrap()), vec!["a.txt"]);
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_dir_swapped_for_symlink_after_resolve() {
        let f = fx();
        fs::create_dir(f.root.join("sub")).unwrap();
        fs::write(f.root.join("sub/secret.txt"), "inside").unwrap();
        let p = f.sb.resolve("sub/f.txt").unwrap();
        let q = f.sb.resolve("sub/secret.txt").unwrap();
        // Resolved through both layers before the swap...
        let real_p = f.sb.real(&p, true).unwrap();
        let real_q = f.sb.real(&q, true).unwrap();
        fs::rename(f.root.join("sub"), f.root.join("sub_old")).unwrap();
        symlink(f.base.join("outside"), f.root.join("sub")).unwrap();
        // ...the lexical path is re-resolved and refused,
        assert!(is_outside(f.sb.write_atomic(&p, b"x", &WriteOptions::default())));
        assert!(is_outside(f.sb.read(&q)));
        // ...and the open beneath the root refuses the stale resolved path too.
        assert!(is_outside(f.sb.write_real(&real_p, "sub/f.txt", b"x", &WriteOptions::default(), None)));
        assert!(is_outside(f.sb.open_read_real(&real_q, "sub/secret.txt")));
        assert!(!f.base.join("outside/f.txt").exists());
        assert_eq!(fs::read_to_string(f.base.join("outside/secret.txt")).unwrap(), "SECRET");
    }

    // ---- reads, listings, misc ----

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_read_metadata_read_dir_remove_lock() {
        let f = fx();
        fs::create_dir(f.root.join("d")).unwrap();
        fs::write(f.root.join("b.txt"), "bb").unwrap();
        symlink("b.txt", f.root.join("a_link")).unwrap();
        let root = f.sb.resolve(".").unwrap();
        let entries = f.sb.read_dir(&root).unwrap();
        let got: Vec<_> = entries.iter().map(|e| (e.name.as_str(), e.is_dir, e.is_symlink)).collect();
        assert_eq!(got, vec![("a_link", false, true), ("b.txt", false, false), ("d", true, false)]);

        let b = f.sb.resolve("b.txt").unwrap();
        let md = f.sb.metadata(&b).unwrap();
        assert!(md.is_file && !md.is_dir && md.len == 2 && md.modified.is_some());
        assert!(f.sb.metadata(&root).unwrap().is_dir);
        let d = f.sb.resolve("d").unwrap();
        assert!(matches!(f.sb.read(&d), Err(SandboxError::IsADirectory { .. })));
        assert!(matches!(f.sb.read_dir(&b), Err(SandboxError::NotADirectory { .. })));
        assert!(matches!(f.sb.remove_file(&d), Err(SandboxError::IsADirectory { .. })));
        let missing = f.sb.resolve("missing/x").unwrap();
        assert!(!f.sb.exists(&missing).unwrap());
        assert!(matches!(f.sb.read(&missing), Err(SandboxError::NotFound { .. })));
        assert!(!f.sb.exists(&f.sb.resolve("b.txt/x").unwrap()).unwrap());

        // Removing a link removes the link, not its target.
        f.sb.remove_file(&f.sb.resolve("a_link").unwrap()).unwrap();
        assert!(f.root.join("b.txt").exists());
        assert!(matches!(f.sb.remove_file(&f.sb.resolve("a_link").unwrap()), Err(SandboxError::NotFound { .. })));

        let lock = f.sb.resolve("d/.lock").unwrap();
        let file = f.sb.open_lock_file(&lock).unwrap();
        file.lock().unwrap();
        file.unlock().unwrap();
        assert!(f.root.join("d/.lock").is_file());
        assert!(matches!(f.sb.open_lock_file(&d), Err(SandboxError::IsADirectory { .. })));
    }

    #[test]
    fn sandbox_walk_honours_gitignore_outside_a_git_repo() {
        let f = fx();
        let r = &f.root;
        fs::write(r.join(".gitignore"), "target/\n*.log\n!keep.log\n").unwrap();
        for dir in ["target", "src", ".hidden"] {
            fs::create_dir(r.join(dir)).unwrap();
        }
        for file in
            ["a.rs", "b.log", "keep.log", "target/x", "src/main.rs", "src/gen.rs", "src/c.log", ".hidden/f", ".env"]
        {
            fs::write(r.join(file), "").unwrap();
        }
        fs::write(r.join("src/.gitignore"), "gen.rs\n").unwrap();
        assert!(!r.join(".git").exists());

        let root = f.sb.resolve(".").unwrap();
        let walk = f.sb.walk(&root, &WalkOptions::default()).unwrap();
        assert_eq!(names(&walk), vec!["a.rs", "keep.log", "src", "src/main.rs"]);
        assert!(!walk.truncated);
        assert!(walk.entries[2].is_dir && !walk.entries[3].is_dir);

        // Walking a subdirectory still honours the root's .gitignore.
        let src = f.sb.resolve("src").unwrap();
        let walk = f.sb.walk(&src, &WalkOptions::default()).unwrap();
        assert_eq!(names(&walk), vec!["main.rs"]);

        let all = WalkOptions { hidden: true, respect_gitignore: false, ..WalkOptions::default() };
        let walk = f.sb.walk(&root, &all).unwrap();
        assert_eq!(
            names(&walk),
            vec![
                ".env",
                ".gitignore",
                ".hidden",
                ".hidden/f",
                "a.rs",
                "b.log",
                "keep.log",
                "src",
                "src/.gitignore",
                "src/c.log",
                "src/gen.rs",
                "src/main.rs",
                "target",
                "target/x"
            ]
        );
    }

    #[test]
    fn sandbox_walk_depth_limit_and_truncation() {
        let f = fx();
        fs::create_dir_all(f.root.join("a/b/c")).unwrap();
        fs::write(f.root.join("a/b/c/d.txt"), "").unwrap();
        fs::write(f.root.join("a.txt"), "").unwrap();
        fs::write(f.root.join("z.txt"), "").unwrap();
        let root = f.sb.resolve(".").unwrap();
        let depth = |d| WalkOptions { max_depth: Some(d), ..WalkOptions::default() };
        assert_eq!(names(&f.sb.walk(&root, &depth(1)).unwrap()), vec!["a", "a.txt", "z.txt"]);
        assert_eq!(names(&f.sb.walk(&root, &depth(2)).unwrap()), vec!["a", "a/b", "a.txt", "z.txt"]);
        assert!(f.sb.walk(&root, &depth(0)).unwrap().entries.is_empty());
        let full = f.sb.walk(&root, &WalkOptions::default()).unwrap();
        assert_eq!(names(&full), vec!["a", "a/b", "a/b/c", "a/b/c/d.txt", "a.txt", "z.txt"]);

        let cap = |n| WalkOptions { max_entries: Some(n), ..WalkOptions::default() };
        let walk = f.sb.walk(&root, &cap(2)).unwrap();
        assert_eq!(names(&walk), vec!["a", "a/b"]);
        assert!(walk.truncated);
        let walk = f.sb.walk(&root, &cap(6)).unwrap();
        assert_eq!(walk.entries.len(), 6);
        assert!(!walk.truncated);
        let a = f.sb.resolve("a").unwrap();
        assert_eq!(names(&f.sb.walk(&a, &WalkOptions::default()).unwrap()), vec!["b", "b/c", "b/c/d.txt"]);
    }

    /// A tree 1,900 levels deep (a client can make one with `create`; a cloned repository can hold
    /// one) is walked on a thread with a small stack: the walk keeps its directories on the heap. The
    /// walker that recursed per level overflowed the stack and killed the process.
    #[test]
    #[cfg_attr(windows, ignore = "a path of 3,800 characters is beyond Windows' MAX_PATH")]
    fn sandbox_walk_of_a_very_deep_tree_does_not_recurse() {
        let f = fx();
        let deep = "d/".repeat(1900);
        fs::create_dir_all(f.root.join(&deep)).unwrap();
        fs::write(f.root.join(&deep).join("leaf.txt"), "x").unwrap();
        let sb = f.sb.clone();
        let found = std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(move || {
                let root = sb.resolve(".").unwrap();
                let walk = sb.walk(&root, &WalkOptions::default()).unwrap();
                let (files, _) = sb.files(&root, &WalkOptions::default()).unwrap();
                (walk.entries.len(), files.into_iter().map(|f| f.rel).collect::<Vec<_>>())
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(found.0, 1901, "1,900 directories and the file");
        assert_eq!(found.1, vec![PathBuf::from(deep).join("leaf.txt")]);
    }

    /// A FIFO (or socket, or device) is not a file to read: `files` leaves it out (reading it would
    /// block), the listing shows it as what it is (not a directory).
    #[test]
    #[cfg(unix)]
    fn sandbox_files_leave_out_fifos() {
        let f = fx();
        fs::write(f.root.join("a.txt"), "a").unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            f.root.join("pipe"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from(0o644),
            0,
        )
        .unwrap();
        let root = f.sb.resolve(".").unwrap();
        let (files, _) = f.sb.files(&root, &WalkOptions::default()).unwrap();
        assert_eq!(files.iter().map(|f| f.rel.clone()).collect::<Vec<_>>(), vec![PathBuf::from("a.txt")]);
        assert_eq!(names(&f.sb.walk(&root, &WalkOptions::default()).unwrap()), vec!["a.txt", "pipe"]);
    }

    /// `each_file` stops as soon as its callback says so.
    #[test]
    fn sandbox_each_file_stops_when_told() {
        let f = fx();
        for name in ["a", "b", "c"] {
            fs::write(f.root.join(name), name).unwrap();
        }
        let root = f.sb.resolve(".").unwrap();
        let mut seen = Vec::new();
        f.sb.each_file(&root, &WalkOptions::default(), &mut |file| {
            seen.push(file.rel);
            seen.len() < 2
        })
        .unwrap();
        assert_eq!(seen, vec![PathBuf::from("a"), PathBuf::from("b")]);
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_narrowed() {
        let f = fx();
        for dir in ["a", "b"] {
            fs::create_dir(f.root.join(dir)).unwrap();
            fs::write(f.root.join(dir).join("f"), dir).unwrap();
        }
        let narrow = f.sb.narrowed(&[f.root.join("a")]).unwrap();
        assert_eq!(narrow.roots(), &[f.root.join("a")]);
        assert_eq!(narrow.read(&narrow.resolve("f").unwrap()).unwrap(), b"a");
        assert!(is_outside(narrow.resolve(&s(&f.root.join("b/f")))));
        assert!(is_outside(narrow.resolve("../b/f")));
        // A path resolved by the wider sandbox is re-checked by the narrower one.
        let wide_path = f.sb.resolve("b/f").unwrap();
        assert!(is_outside(narrow.read(&wide_path)));

        // A client root enclosing ours keeps ours, never wider.
        let same = f.sb.narrowed(std::slice::from_ref(&f.base)).unwrap();
        assert_eq!(same.roots(), std::slice::from_ref(&f.root));
        assert!(is_outside(same.resolve(&s(&f.base.join("outside/secret.txt")))));

        assert!(is_outside(f.sb.narrowed(&[f.base.join("outside")])));
        assert!(is_outside(f.sb.narrowed(&[f.root.join("missing")])));
        assert!(is_outside(f.sb.narrowed(&[])));
        // A client root that is a symlink inside ours leading out is not kept.
        symlink(f.base.join("outside"), f.root.join("esc")).unwrap();
        assert!(is_outside(f.sb.narrowed(&[f.root.join("esc")])));
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_multiple_roots() {
        let f = fx();
        let other = f.base.join("other");
        fs::create_dir(&other).unwrap();
        fs::write(other.join("o.txt"), "other").unwrap();
        symlink(other.join("o.txt"), f.root.join("to_other")).unwrap();
        let sb = Sandbox::new([&f.root, &other]).unwrap();
        assert_eq!(sb.roots(), &[f.root.clone(), other.clone()]);
        let p = sb.resolve(&s(&other.join("o.txt"))).unwrap();
        assert_eq!(p.root(), other);
        assert_eq!(sb.read(&p).unwrap(), b"other");
        assert_eq!(sb.resolve("x").unwrap().absolute(), f.root.join("x"));
        // A symlink from one root into another is inside.
        assert_eq!(sb.read(&sb.resolve("to_other").unwrap()).unwrap(), b"other");
        assert!(is_outside(f.sb.read(&f.sb.resolve("to_other").unwrap())));
        assert!(is_outside(sb.resolve(&s(&f.base.join("outside/secret.txt")))));

        // Nested roots: the deepest wins.
        fs::create_dir(f.root.join("sub")).unwrap();
        let nested = Sandbox::new([&f.root, &f.root.join("sub")]).unwrap();
        let p = nested.resolve(&s(&f.root.join("sub/x"))).unwrap();
        assert_eq!(p.root(), f.root.join("sub"));
        assert_eq!(p.rel(), Path::new("x"));

        assert!(Sandbox::new(Vec::<PathBuf>::new()).is_err());
        assert!(matches!(Sandbox::new([f.base.join("nope")]), Err(SandboxError::NotFound { .. })));
        assert!(matches!(Sandbox::new([f.base.join("outside/secret.txt")]), Err(SandboxError::NotADirectory { .. })));
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_root_given_through_a_symlink() {
        let f = fx();
        let alias = f.base.join("alias");
        symlink(&f.root, &alias).unwrap();
        fs::write(f.root.join("f"), "via alias").unwrap();
        let sb = Sandbox::new([&alias]).unwrap();
        assert_eq!(sb.roots(), std::slice::from_ref(&f.root));
        for spelling in [alias.join("f"), f.root.join("f")] {
            let p = sb.resolve(&s(&spelling)).unwrap();
            assert_eq!(p.rel(), Path::new("f"));
            assert_eq!(sb.read(&p).unwrap(), b"via alias");
        }
        // An absolute symlink spelled through the alias is inside as well.
        symlink(alias.join("f"), f.root.join("l")).unwrap();
        assert_eq!(sb.read(&sb.resolve("l").unwrap()).unwrap(), b"via alias");
        let msg = sb.resolve("/etc").unwrap_err().to_string();
        assert!(msg.contains(&s(&alias)), "{msg}");
    }

    // ---- properties ----

    fn component() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["a", "b", "..", ".", "c"])
    }

    /// The model: a stack of names; a `..` at the root leaves it.
    fn model(parts: &[&str]) -> Option<PathBuf> {
        let mut stack: Vec<&str> = Vec::new();
        for part in parts {
            match *part {
                "." => {}
                ".." => {
                    stack.pop()?;
                }
                name => stack.push(name),
            }
        }
        Some(stack.iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn sandbox_prop_resolve_stays_inside(parts in prop::collection::vec(component(), 1..10), absolute in any::<bool>()) {
            let tmp = TempDir::new().unwrap();
            let root = crate::platform::canonicalize(tmp.path()).unwrap().join("root");
            fs::create_dir(&root).unwrap();
            let sb = Sandbox::new([&root]).unwrap();
            let rel = parts.join("/");
            let user = if absolute { format!("{}/{rel}", s(&root)) } else { rel };
            match sb.resolve(&user) {
                Ok(p) => {
                    prop_assert!(p.absolute().starts_with(&root));
                    prop_assert!(p.rel().components().all(|c| matches!(c, Component::Normal(_))));
                    prop_assert_eq!(Some(p.rel().to_path_buf()), model(&parts));
                }
                Err(e) => {
                    prop_assert!(matches!(e, SandboxError::OutsideRoot { .. }), "{:?}", e);
                    prop_assert_eq!(model(&parts), None);
                }
            }
        }

        #[test]
        fn sandbox_prop_operations_never_reach_outside(
            parts in prop::collection::vec(
                prop::sample::select(vec!["a", "b", "..", ".", "in", "out", "up", "secret.txt"]),
                1..7,
            )
        ) {
            let f = fx();
            fs::create_dir_all(f.root.join("a/b")).unwrap();
            fs::write(f.root.join("a/secret.txt"), "inside").unwrap();
            symlink("a", f.root.join("in")).unwrap();
            symlink(f.base.join("outside"), f.root.join("out")).unwrap();
            symlink("../..", f.root.join("a/up")).unwrap();
            let user = parts.join("/");
            if let Ok(p) = f.sb.resolve(&user) {
                if let Ok(bytes) = f.sb.read(&p) {
                    prop_assert_eq!(bytes, b"inside".to_vec());
                }
                if let Ok(walk) = f.sb.walk(&p, &WalkOptions::default()) {
                    // Symlinks are listed, never descended: nothing below `out` or `up`.
                    let through_link = |e: &WalkEntry| {
                        let names: Vec<_> = e.rel.iter().collect();
                        names[..names.len() - 1].iter().any(|n| *n == "out" || *n == "up")
                    };
                    prop_assert!(!walk.entries.iter().any(through_link));
                }
                let _ = f.sb.write_atomic(&p.join("new.txt").unwrap(), b"n", &WriteOptions { fsync: false, ..WriteOptions::default() });
                let _ = f.sb.create_dir(&p.join("newdir").unwrap());
            }
            let outside: Vec<_> = fs::read_dir(f.base.join("outside")).unwrap().map(|e| e.unwrap().file_name()).collect();
            prop_assert_eq!(outside, vec![std::ffi::OsString::from("secret.txt")]);
            prop_assert_eq!(fs::read_to_string(f.base.join("outside/secret.txt")).unwrap(), "SECRET");
            prop_assert!(!f.base.join("new.txt").exists() && !f.base.join("newdir").exists());
        }
    }

    #[test]
    fn sandbox_is_send_sync_and_cheap_to_clone() {
        fn assert_send_sync<T: Send + Sync + Clone>() {}
        assert_send_sync::<Sandbox>();
        assert_send_sync::<SandboxPath>();
        let f = fx();
        let clone = f.sb.clone();
        assert_eq!(clone.roots(), f.sb.roots());
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn sandbox_open_resolved_reads_the_file_that_was_checked_or_nothing() {
        let f = fx();
        fs::create_dir(f.root.join(".hidden")).unwrap();
        fs::write(f.root.join(".hidden/key.md"), "KEY").unwrap();
        fs::write(f.root.join("seed.md"), "seed").unwrap();
        fs::write(f.root.join("other.md"), "other").unwrap();
        fs::create_dir(f.root.join("d")).unwrap();
        fs::write(f.root.join("d/inner.md"), "inner").unwrap();
        let read = |r: &ResolvedFile| -> Result<String, SandboxError> {
            let mut text = String::new();
            f.sb.open_resolved(r)?.read_to_string(&mut text).unwrap();
            Ok(text)
        };
        // Through a symlink inside: the canonical path is the target's.
        symlink("seed.md", f.root.join("link.md")).unwrap();
        let r = f.sb.resolve_file(&f.sb.resolve("link.md").unwrap()).unwrap();
        assert_eq!(r.canonical(), f.root.join("seed.md"));
        assert_eq!(r.rel(), Path::new("seed.md"));
        assert_eq!(r.kind(), ResolvedKind::File);
        assert_eq!(read(&r).unwrap(), "seed");

        // Swapped for a symlink (inside, to a hidden file) between the check and the open.
        let r = f.sb.resolve_file(&f.sb.resolve("seed.md").unwrap()).unwrap();
        fs::remove_file(f.root.join("seed.md")).unwrap();
        symlink(".hidden/key.md", f.root.join("seed.md")).unwrap();
        assert!(matches!(read(&r), Err(SandboxError::InvalidPath { .. })));
        // Swapped for another file.
        let r = f.sb.resolve_file(&f.sb.resolve("other.md").unwrap()).unwrap();
        fs::rename(f.root.join(".hidden/key.md"), f.root.join("other.md")).unwrap();
        assert!(matches!(read(&r), Err(SandboxError::InvalidPath { .. })));
        // A directory on the way swapped for a symlink to another one holding the same name.
        fs::create_dir(f.root.join(".hidden/d")).unwrap();
        fs::write(f.root.join(".hidden/d/inner.md"), "KEY").unwrap();
        let r = f.sb.resolve_file(&f.sb.resolve("d/inner.md").unwrap()).unwrap();
        fs::rename(f.root.join("d"), f.root.join("d-old")).unwrap();
        symlink(".hidden/d", f.root.join("d")).unwrap();
        assert!(matches!(read(&r), Err(SandboxError::InvalidPath { .. })));
        // Swapped for a FIFO: refused at once, not waited on.
        fs::write(f.root.join("fifo.md"), "x").unwrap();
        let r = f.sb.resolve_file(&f.sb.resolve("fifo.md").unwrap()).unwrap();
        fs::remove_file(f.root.join("fifo.md")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(f.root.join("fifo.md")).status().unwrap().success());
        assert!(matches!(read(&r), Err(SandboxError::InvalidPath { .. })));
        // Escapes are refused at resolution, whether the target exists or not.
        symlink(f.base.join("outside/secret.txt"), f.root.join("out.md")).unwrap();
        assert!(is_outside(f.sb.resolve_file(&f.sb.resolve("out.md").unwrap())));
        let missing = f.sb.resolve_file(&f.sb.resolve("nope/x.md").unwrap()).unwrap();
        assert_eq!(missing.kind(), ResolvedKind::Missing);
        assert!(matches!(read(&missing), Err(SandboxError::NotFound { .. })));
    }

    #[test]
    #[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
    fn a_trailing_slash_names_a_directory_for_every_operation() {
        let f = fx();
        fs::write(f.root.join("n.txt"), "hello\n").unwrap();
        fs::create_dir(f.root.join("d")).unwrap();
        symlink("n.txt", f.root.join("link")).unwrap();
        let opts = WriteOptions { create_parents: true, ..WriteOptions::default() };
        for file in ["n.txt/", "n.txt/.", "link/"] {
            let p = f.sb.resolve(file).unwrap();
            assert!(p.names_a_directory());
            for refused in [
                f.sb.read(&p).map(drop),
                f.sb.write_atomic(&p, b"pwned", &opts),
                f.sb.metadata(&p).map(drop),
                f.sb.remove_file(&p),
                f.sb.read_dir(&p).map(drop),
            ] {
                match refused {
                    Err(SandboxError::InvalidPath { reason, .. }) => {
                        assert!(reason.contains("trailing `/`"), "{reason}")
                    }
                    other => panic!("{file}: {other:?}"),
                }
            }
            assert!(f.sb.exists(&p).is_err(), "{file}: exists() says why, too");
        }
        assert_eq!(fs::read(f.root.join("n.txt")).unwrap(), b"hello\n", "the file is untouched");
        let new = f.sb.resolve("d1/").unwrap();
        assert!(matches!(f.sb.write_atomic(&new, b"x", &opts), Err(SandboxError::InvalidPath { .. })));
        assert!(!f.root.join("d1").exists(), "no file d1 was made");
        let dir = f.sb.resolve("d/").unwrap();
        assert!(matches!(f.sb.write_atomic(&dir, b"x", &opts), Err(SandboxError::IsADirectory { .. })));
        assert!(f.sb.metadata(&dir).unwrap().is_dir);
        assert!(f.sb.read_dir(&dir).is_ok());
        f.sb.create_dir(&f.sb.resolve("made/").unwrap()).unwrap();
        assert!(f.root.join("made").is_dir());
        // The same path without the slash is the file, and `resolve_rel` (the host's) agrees.
        assert!(f.sb.read(&f.sb.resolve("n.txt").unwrap()).is_ok());
        assert!(f.sb.resolve_rel("n.txt/").unwrap().names_a_directory());
        assert!(!f.sb.resolve("n.txt").unwrap().names_a_directory());
    }

    /// A regular file renamed over by a FIFO between resolution and open: the open never waits
    /// for a writer (it used to block forever); the type is checked on the open descriptor.
    #[cfg(unix)]
    #[test]
    fn a_fifo_swapped_in_after_resolution_is_refused_not_waited_on() {
        let f = fx();
        fs::write(f.root.join("f.txt"), "text").unwrap();
        let p = f.sb.resolve("f.txt").unwrap();
        let real = f.sb.real(&p, true).unwrap();
        let made = std::process::Command::new("mkfifo").arg(f.root.join("pipe")).status().unwrap();
        assert!(made.success());
        fs::rename(f.root.join("pipe"), f.root.join("f.txt")).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let sb = f.sb.clone();
        std::thread::spawn(move || {
            let _ = tx.send(sb.open_read_real(&real, "f.txt").map(|_| ()));
        });
        let answer = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("the open waited on the FIFO");
        let error = answer.unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        // And through the public door.
        assert!(f.sb.open_read(&p).is_err());
        assert!(f.sb.read(&p).is_err());
    }

    /// `write_beneath` never follows a link, on the way or in place, and checks without writing.
    #[cfg(unix)]
    #[test]
    fn write_beneath_never_follows_a_link() {
        let f = fx();
        fs::create_dir_all(f.root.join("a/art")).unwrap();
        fs::create_dir_all(f.root.join("b")).unwrap();
        fs::write(f.root.join("b/article.md"), "other").unwrap();
        std::os::unix::fs::symlink("../../b/article.md", f.root.join("a/art/fig.png")).unwrap();
        std::os::unix::fs::symlink("../../b", f.root.join("a/art/img")).unwrap();
        let dir = f.sb.resolve("a/art").unwrap();
        let opts = WriteOptions { create_parents: true, ..WriteOptions::default() };
        for rel in ["fig.png", "img/article.md"] {
            let checked = f.sb.write_beneath(&dir, rel, None, &opts).unwrap_err();
            assert!(checked.to_string().contains("symbolic link"), "{rel}: {checked}");
            assert!(f.sb.write_beneath(&dir, rel, Some(b"x"), &opts).is_err(), "{rel}");
        }
        assert_eq!(fs::read_to_string(f.root.join("b/article.md")).unwrap(), "other");
        // A plain path is created beneath, directories and all; a missing directory checks fine.
        f.sb.write_beneath(&dir, "new/deep/x.png", Some(b"png"), &opts).unwrap();
        assert_eq!(fs::read(f.root.join("a/art/new/deep/x.png")).unwrap(), b"png");
        let missing = f.sb.resolve("a/not-yet").unwrap();
        assert!(f.sb.write_beneath(&missing, "img/x.png", None, &opts).is_ok());
        assert!(!f.root.join("a/not-yet").exists());
        // A file where a directory must be.
        fs::write(f.root.join("a/art/file"), "f").unwrap();
        assert!(f.sb.write_beneath(&dir, "file/x.png", None, &opts).is_err());
    }

    /// The precondition of `write_atomic_unless_changed` is asked last: when it fails, nothing is
    /// written and no temporary file is left.
    #[test]
    fn a_write_whose_file_changed_meanwhile_writes_nothing() {
        let f = fx();
        fs::write(f.root.join("f.txt"), "old").unwrap();
        let p = f.sb.resolve("f.txt").unwrap();
        let changed = f.sb.write_atomic_unless_changed(&p, b"new", &WriteOptions::default(), &|| false).unwrap_err();
        assert!(matches!(changed, SandboxError::Changed { .. }), "{changed}");
        assert_eq!(changed.code(), crate::ErrorCode::Conflict);
        assert_eq!(fs::read_to_string(f.root.join("f.txt")).unwrap(), "old");
        assert!(no_temp_files(&f.root));
        f.sb.write_atomic_unless_changed(&p, b"new", &WriteOptions::default(), &|| true).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("f.txt")).unwrap(), "new");
    }

    /// A directory that refuses new files is named as the cause, not the file.
    #[cfg(unix)]
    #[test]
    fn a_read_only_directory_is_named_as_the_cause() {
        let f = fx();
        fs::create_dir(f.root.join("ro")).unwrap();
        fs::write(f.root.join("ro/f.txt"), "x").unwrap();
        fs::set_permissions(f.root.join("ro"), fs::Permissions::from_mode(0o555)).unwrap();
        if fs::write(f.root.join("ro/probe"), "").is_ok() {
            // Root (CI's containers) writes anywhere: there is no refusal to name.
            return;
        }
        let p = f.sb.resolve("ro/f.txt").unwrap();
        let error = f.sb.write_atomic(&p, b"y", &WriteOptions::default()).unwrap_err();
        fs::set_permissions(f.root.join("ro"), fs::Permissions::from_mode(0o755)).unwrap();
        assert!(matches!(error, SandboxError::DirectoryNotWritable { .. }), "{error}");
    }

    /// The temporary file of a write killed midway (kill -9) is removed by the next write of that
    /// file; one a live writer holds, or a fresh one, is not.
    #[cfg(unix)]
    #[test]
    fn a_killed_writes_temporary_file_is_swept_by_the_next_write() {
        let f = fx();
        fs::write(f.root.join("f.txt"), "v1").unwrap();
        let leftover = f.root.join(".f.txt.mcp-tmp-00000000deadbeef");
        fs::write(&leftover, vec![b'x'; 1 << 20]).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        fs::File::options().write(true).open(&leftover).unwrap().set_modified(old).unwrap();
        // One held by a live writer (locked), and a fresh one: both kept.
        let held = f.root.join(".f.txt.mcp-tmp-00000000feedface");
        fs::write(&held, "writing").unwrap();
        let holder = fs::File::open(&held).unwrap();
        holder.lock().unwrap();
        fs::File::options().write(true).open(&held).unwrap().set_modified(old).unwrap();
        let fresh = f.root.join(".f.txt.mcp-tmp-00000000cafebabe");
        fs::write(&fresh, "just created").unwrap();
        let other = f.root.join(".g.txt.mcp-tmp-00000000deadbeef");
        fs::write(&other, "another file's").unwrap();
        fs::File::options().write(true).open(&other).unwrap().set_modified(old).unwrap();
        let p = f.sb.resolve("f.txt").unwrap();
        f.sb.write_atomic(&p, b"v2", &WriteOptions::default()).unwrap();
        assert!(!leftover.exists(), "the killed write's leftover is removed");
        assert!(held.exists() && fresh.exists() && other.exists());
        drop(holder);
    }
}
