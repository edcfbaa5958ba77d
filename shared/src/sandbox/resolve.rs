//! Resolution: a sandboxed path walked one component at a time through the root's handle,
//! symlinks read and expanded here (a relative target in place, an absolute one only into a root,
//! a `..` out of a root only into an enclosing root), anything else `OutsideRoot`, decided from the
//! link text alone. The result ([`Real`]) is symlink-free, so the open that follows through the
//! root's `Dir` (with `RESOLVE_BENEATH` on Linux) cannot be redirected.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::{Sandbox, SandboxError, SandboxPath, dot};

/// How many symlinks one resolution may follow (Linux's limit).
const MAX_SYMLINKS: usize = 40;

/// A path after symlink resolution: root index, symlink-free relative path,
/// and the `lstat` of its last component if it exists.
pub(super) struct Real {
    pub(super) root: usize,
    pub(super) rel: PathBuf,
    pub(super) md: Option<cap_std::fs::Metadata>,
}

/// One step of a resolution.
enum Step {
    Down(OsString),
    Up,
}

fn steps(path: &Path) -> Vec<Step> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(Step::Down(name.to_owned())),
            Component::ParentDir => Some(Step::Up),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

impl Sandbox {
    /// The deepest root containing `abs` (component-wise), and the rest.
    /// `abs` is taken as is: a `..` after the root's prefix stays in the rest.
    pub(super) fn locate_abs(&self, abs: &Path, use_alias: bool) -> Option<(usize, PathBuf)> {
        let mut best: Option<(usize, usize, PathBuf)> = None;
        for (index, root) in self.inner.roots.iter().enumerate() {
            let rest = super::lexical::strip_base(abs, &root.canonical).or_else(|| {
                root.alias.as_deref().filter(|_| use_alias).and_then(|alias| super::lexical::strip_base(abs, alias))
            });
            if let Some(rest) = rest {
                let depth = root.canonical.components().count();
                if best.as_ref().is_none_or(|(_, best_depth, _)| depth > *best_depth) {
                    best = Some((index, depth, rest));
                }
            }
        }
        best.map(|(index, _, rest)| (index, rest))
    }

    /// Which of our roots `p` belongs to now (it may come from a wider sandbox).
    pub(super) fn locate(&self, p: &SandboxPath) -> Result<(usize, PathBuf), SandboxError> {
        self.locate_abs(&p.absolute(), false).ok_or_else(|| self.outside(p.display()))
    }

    /// Resolves `p`. A path that names a directory (`d/`) follows a final symlink, as POSIX
    /// does, and is [`SandboxError::NotADirectory`] when something other than a directory is
    /// there.
    pub(super) fn real(&self, p: &SandboxPath, follow_final: bool) -> Result<Real, SandboxError> {
        let (root, rel) = self.locate(p)?;
        let real = self.real_at(root, &rel, follow_final || p.names_a_directory(), p.display())?;
        if p.names_a_directory() && real.md.as_ref().is_some_and(|md| !md.is_dir()) {
            return Err(SandboxError::invalid(
                p.display(),
                "it is written with a trailing `/`, which names a directory, but it is a file; remove the `/` \
                 to use the file",
            ));
        }
        Ok(real)
    }

    /// Resolves symlinks of `rel` (in root `root`) one component at a time,
    /// through the root's handle; see the module docs. With `follow_final`
    /// false, a symlink as the last component is kept.
    pub(super) fn real_at(
        &self,
        mut root: usize,
        rel: &Path,
        follow_final: bool,
        shown: &str,
    ) -> Result<Real, SandboxError> {
        let mut canon: Vec<OsString> = Vec::new();
        let mut queue: VecDeque<Step> = steps(rel).into();
        let mut links = 0usize;
        // Set once a component does not exist: the rest is appended as is.
        let mut missing = false;
        while let Some(step) = queue.pop_front() {
            match step {
                Step::Up => {
                    if missing {
                        return Err(SandboxError::not_found(shown));
                    }
                    if canon.pop().is_none() {
                        // Climb out of this root: only into an enclosing root.
                        let parent = self.inner.roots[root].canonical.parent().ok_or_else(|| self.outside(shown))?;
                        let (outer, rest) = self.locate_abs(parent, false).ok_or_else(|| self.outside(shown))?;
                        root = outer;
                        canon = rest.iter().map(|c| c.to_owned()).collect();
                    }
                }
                Step::Down(name) => {
                    if missing {
                        canon.push(name);
                        continue;
                    }
                    let is_last = queue.is_empty();
                    let here: PathBuf = canon.iter().chain(std::iter::once(&name)).collect();
                    let dir = &self.inner.roots[root].dir;
                    match dir.symlink_metadata(&here) {
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {
                            missing = true;
                            canon.push(name);
                        }
                        Err(e) => return Err(self.io(e, shown)),
                        Ok(md) if md.is_symlink() && (follow_final || !is_last) => {
                            links += 1;
                            if links > MAX_SYMLINKS {
                                return Err(SandboxError::loop_detected(shown));
                            }
                            let target = dir.read_link_contents(&here).map_err(|e| self.io(e, shown))?;
                            if target.as_os_str().is_empty() {
                                return Err(SandboxError::not_found(shown));
                            }
                            let expansion = if target.has_root() {
                                // Decided from the link text only: no lookup outside.
                                let (target_root, rest) =
                                    self.locate_abs(&target, true).ok_or_else(|| self.outside(shown))?;
                                root = target_root;
                                canon.clear();
                                steps(&rest)
                            } else {
                                steps(&target)
                            };
                            for step in expansion.into_iter().rev() {
                                queue.push_front(step);
                            }
                        }
                        Ok(md) => {
                            if !is_last && !md.is_dir() && !md.is_symlink() {
                                return Err(SandboxError::NotADirectory { path: shown.to_owned() });
                            }
                            canon.push(name);
                        }
                    }
                }
            }
        }
        let rel: PathBuf = canon.iter().collect();
        let md = if missing {
            None
        } else {
            match self.inner.roots[root].dir.symlink_metadata(dot(&rel)) {
                Ok(md) => Some(md),
                Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => return Err(self.io(e, shown)),
            }
        };
        Ok(Real { root, rel, md })
    }
}
