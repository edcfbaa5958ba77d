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

#[cfg(test)]
mod tests;

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use crate::platform::{self, FileId};

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

/// How [`Sandbox::write_atomic`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// fsync the file and its directory (default `true`; `--no-fsync` clears it).
    pub fsync: bool,
    /// Create missing parent directories (each one confined). Default `false`.
    pub create_parents: bool,
    /// Fail with [`SandboxError::AlreadyExists`] if the path exists, atomically
    /// against a concurrent creator. Default `false`.
    pub create_new: bool,
    /// Permission bits of a new file; default 0644 less the umask. An existing
    /// file keeps its own.
    pub mode_if_new: Option<u32>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { fsync: true, create_parents: false, create_new: false, mode_if_new: None }
    }
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

    /// Writes `bytes` to the file atomically: readers see the old content or
    /// the new, never a mix, even if the process is killed mid-way.
    ///
    /// A symlink (inside) as the last component is written through: the
    /// target changes, the link stays a link. An existing file keeps its
    /// permission bits.
    pub fn write_atomic(&self, p: &SandboxPath, bytes: &[u8], opts: &WriteOptions) -> Result<(), SandboxError> {
        let real = self.real(p, true)?;
        if p.dir_only {
            // `d/` names a directory: a file is never written there (POSIX: EISDIR).
            return Err(match real.md {
                Some(_) => SandboxError::IsADirectory { path: p.display().to_owned() },
                None => SandboxError::invalid(
                    p.display(),
                    "it is written with a trailing `/`, which names a directory, and a file cannot be written \
                     there; remove the `/` to write a file",
                ),
            });
        }
        self.write_real(&real, p.display(), bytes, opts, None)
    }

    /// [`write_atomic`](Self::write_atomic) of a file the caller read and edited: `unchanged`
    /// is asked just before the new content replaces the old (after it is written and synced),
    /// and when it says the file changed since it was read (another program, one that takes no
    /// lock, wrote it meanwhile), nothing is written: [`SandboxError::Changed`].
    pub fn write_atomic_unless_changed(
        &self,
        p: &SandboxPath,
        bytes: &[u8],
        opts: &WriteOptions,
        unchanged: &dyn Fn() -> bool,
    ) -> Result<(), SandboxError> {
        let real = self.real(p, true)?;
        if p.dir_only {
            return Err(SandboxError::IsADirectory { path: p.display().to_owned() });
        }
        self.write_real(&real, p.display(), bytes, opts, Some(unchanged))
    }

    /// The part of [`write_atomic`](Self::write_atomic) after resolution
    /// (separate so that tests can race it).
    fn write_real(
        &self,
        real: &Real,
        shown: &str,
        bytes: &[u8],
        opts: &WriteOptions,
        unchanged: Option<&dyn Fn() -> bool>,
    ) -> Result<(), SandboxError> {
        if let Some(md) = &real.md {
            if md.is_dir() {
                return Err(SandboxError::IsADirectory { path: shown.to_owned() });
            }
            if opts.create_new {
                return Err(SandboxError::AlreadyExists { path: shown.to_owned() });
            }
        }
        let Some(name) = real.rel.file_name() else {
            return Err(SandboxError::IsADirectory { path: shown.to_owned() });
        };
        let parent = real.rel.parent().unwrap_or(Path::new(""));
        let root = &self.inner.roots[real.root];
        if opts.create_parents && !parent.as_os_str().is_empty() {
            root.dir.create_dir_all(parent).map_err(|e| self.io(e, shown))?;
        }
        let parent_dir = open_dir_at(&root.dir, parent).map_err(|e| self.io(e, shown))?;
        atomic::write_in(&parent_dir, Path::new(name), bytes, opts, unchanged).map_err(|e| self.write_failed(e, shown))
    }

    /// An atomic write's failure as the sandbox says it.
    fn write_failed(&self, error: atomic::WriteError, shown: &str) -> SandboxError {
        match error {
            atomic::WriteError::DirectoryNotWritable => SandboxError::DirectoryNotWritable { path: shown.to_owned() },
            atomic::WriteError::Changed => SandboxError::Changed { path: shown.to_owned() },
            atomic::WriteError::Io(e) => self.io(e, shown),
        }
    }

    /// Writes (atomically) the file `rel` (a relative, `/`-separated path of plain names)
    /// beneath the directory `dir`, never through a symlink: each directory on the way is
    /// opened beneath the one before it without following a link (created when missing and
    /// `opts.create_parents` is set), and a symlink, directory or special file where the file
    /// goes is refused. With `bytes` `None` nothing is created or written: it only checks that
    /// the write would be made (a missing `dir` or directory on the way is fine then: it would
    /// be created). For files that must stay where they are named, such as an article's
    /// attachments, whatever links were planted beside them.
    pub fn write_beneath(
        &self,
        dir: &SandboxPath,
        rel: &str,
        bytes: Option<&[u8]>,
        opts: &WriteOptions,
    ) -> Result<(), SandboxError> {
        use cap_fs_ext::DirExt as _;
        let shown = format!("{}/{rel}", dir.display().trim_end_matches('/'));
        let parts: Vec<&str> = rel.split('/').collect();
        for part in &parts {
            lexical::check_name(part, &shown)?;
        }
        let Some((name, parents)) = parts.split_last() else {
            return Err(SandboxError::invalid(&shown, "the path is empty"));
        };
        let link = |part: &str| {
            SandboxError::invalid(
                &shown,
                format!(
                    "`{part}` is a symbolic link, and nothing is written through one here; remove the link or choose another path"
                ),
            )
        };
        let mut handle = match self.open_real_dir(dir) {
            Ok((_, handle)) => Some(handle),
            Err(SandboxError::NotFound { .. }) if bytes.is_none() => None,
            Err(e) => return Err(e),
        };
        for part in parents {
            let Some(current) = handle.take() else {
                break;
            };
            match current.symlink_metadata(part) {
                Ok(md) if md.is_symlink() => return Err(link(part)),
                Ok(md) if !md.is_dir() => {
                    return Err(SandboxError::invalid(
                        &shown,
                        format!("`{part}` on its way is a file, not a directory; choose another path"),
                    ));
                }
                Ok(_) => handle = Some(current.open_dir_nofollow(part).map_err(|e| self.io(e, &shown))?),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if bytes.is_none() {
                        break;
                    }
                    if !opts.create_parents {
                        return Err(SandboxError::not_found(&shown));
                    }
                    match current.create_dir(part) {
                        Ok(()) => {}
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(self.io(e, &shown)),
                    }
                    handle = Some(current.open_dir_nofollow(part).map_err(|e| self.io(e, &shown))?);
                }
                Err(e) => return Err(self.io(e, &shown)),
            }
        }
        if let Some(current) = &handle {
            match current.symlink_metadata(name) {
                Ok(md) if md.is_symlink() => return Err(link(name)),
                Ok(md) if md.is_dir() => return Err(SandboxError::IsADirectory { path: shown }),
                Ok(md) if !md.is_file() => {
                    return Err(SandboxError::invalid(&shown, "not a regular file (a device, socket or FIFO)"));
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.io(e, &shown)),
            }
        }
        let Some(bytes) = bytes else {
            return Ok(());
        };
        let Some(parent) = handle else {
            return Err(SandboxError::not_found(&shown));
        };
        atomic::write_in(&parent, Path::new(name), bytes, opts, None).map_err(|e| self.write_failed(e, &shown))
    }

    /// Removes a file (a symlink as the last component is removed itself, not
    /// its target).
    pub fn remove_file(&self, p: &SandboxPath) -> Result<(), SandboxError> {
        let shown = p.display();
        let real = self.real(p, false)?;
        match &real.md {
            None => Err(SandboxError::not_found(shown)),
            Some(md) if md.is_dir() => Err(SandboxError::IsADirectory { path: shown.to_owned() }),
            Some(_) => self.inner.roots[real.root].dir.remove_file(&real.rel).map_err(|e| self.io(e, shown)),
        }
    }

    /// Removes the directory `p` if it is empty: `Ok(true)` when removed, `Ok(false)` when it
    /// holds something, is not a directory (a symlink is never followed), is gone, or is a root.
    pub fn remove_empty_dir(&self, p: &SandboxPath) -> Result<bool, SandboxError> {
        let shown = p.display();
        let real = self.real(p, false)?;
        match &real.md {
            Some(md) if md.is_dir() && !real.rel.as_os_str().is_empty() => {
                match self.inner.roots[real.root].dir.remove_dir(&real.rel) {
                    Ok(()) => Ok(true),
                    Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => Ok(false),
                    Err(e) => Err(self.io(e, shown)),
                }
            }
            _ => Ok(false),
        }
    }

    /// Creates one directory; [`SandboxError::AlreadyExists`] if anything is
    /// there (the atomic claim of a name). The parent must exist.
    pub fn create_dir(&self, p: &SandboxPath) -> Result<(), SandboxError> {
        let shown = p.display();
        let real = self.real(p, false)?;
        if real.md.is_some() {
            return Err(SandboxError::AlreadyExists { path: shown.to_owned() });
        }
        self.inner.roots[real.root].dir.create_dir(&real.rel).map_err(|e| self.io(e, shown))
    }

    /// Creates a directory and its missing parents (each confined); `Ok` if it
    /// already is a directory.
    pub fn create_dir_all(&self, p: &SandboxPath) -> Result<(), SandboxError> {
        let shown = p.display();
        let real = self.real(p, true)?;
        match &real.md {
            Some(md) if md.is_dir() => Ok(()),
            Some(_) => Err(SandboxError::NotADirectory { path: shown.to_owned() }),
            None => self.inner.roots[real.root].dir.create_dir_all(&real.rel).map_err(|e| self.io(e, shown)),
        }
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
