//! Writing inside the sandbox: atomic writes (and the one that refuses a file changed since it
//! was read), files beneath a directory without following links, removals and directories.

use std::{io, path::Path};

use super::{Sandbox, SandboxError, SandboxPath, WriteOptions, atomic, lexical, open_dir_at, resolve::Real};

impl Sandbox {
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
    pub(super) fn write_real(
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

    /// Removes the file at `p` only if it is still the one the caller read: it is first renamed
    /// aside (atomically, to a hidden name beside it), then `still_read` is asked about what
    /// was renamed (open, never through a link); another file or other bytes there (saved
    /// meanwhile by a program that takes no lock) are put back under its name and the answer is
    /// [`SandboxError::Changed`], so a newer version is never removed unread. A symlink as the
    /// last component is refused as for every checked operation.
    pub fn remove_file_if(
        &self,
        p: &SandboxPath,
        still_read: &dyn Fn(&std::fs::File) -> bool,
    ) -> Result<(), SandboxError> {
        let shown = p.display();
        let real = self.real(p, false)?;
        match &real.md {
            None => return Err(SandboxError::not_found(shown)),
            Some(md) if md.is_dir() => return Err(SandboxError::IsADirectory { path: shown.to_owned() }),
            Some(md) if !md.is_file() => return Err(SandboxError::Changed { path: shown.to_owned() }),
            Some(_) => {}
        }
        let Some(name) = real.rel.file_name() else {
            return Err(SandboxError::IsADirectory { path: shown.to_owned() });
        };
        let parent = real.rel.parent().unwrap_or(Path::new(""));
        let dir = open_dir_at(&self.inner.roots[real.root].dir, parent).map_err(|e| self.io(e, shown))?;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let aside = format!(".{}{}rm-{}-{nanos}", name.to_string_lossy(), lexical::TEMP_MARKER, std::process::id());
        dir.rename(name, &dir, &aside).map_err(|e| self.io(e, shown))?;
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true);
        crate::platform::never_block(&mut options);
        let same = dir
            .symlink_metadata(&aside)
            .is_ok_and(|md| md.is_file())
            .then(|| dir.open_with(&aside, &options).ok())
            .flatten()
            .is_some_and(|file| still_read(&file.into_std()));
        if same {
            return dir.remove_file(&aside).map_err(|e| self.io(e, shown));
        }
        // Put back without replacing whatever took the name since: a link under the name, then
        // the aside name dropped; where links cannot be made, renamed back if the name is free.
        match dir.hard_link(&aside, &dir, name) {
            Ok(()) => {
                let _ = dir.remove_file(&aside);
            }
            Err(_) if !dir.exists(name) => {
                let _ = dir.rename(&aside, &dir, name);
            }
            Err(error) => {
                tracing::error!(%error, path = shown, aside, "a file changed while it was removed could not be put back; it is kept under the hidden name");
            }
        }
        Err(SandboxError::Changed { path: shown.to_owned() })
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
}
