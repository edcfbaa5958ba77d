//! Whole-file operations: `move_file` and `delete_file` (tools of their own, see
//! `tools/move_file.rs` and `tools/delete_file.rs`), and their undo through `undo_edit`.
//!
//! Both work on regular files only (not directories, not symlinks: a symlink's target would be
//! what an undo restored), through the shared sandbox like every write. A move is a confined copy
//! (atomic, durable, the source's permission bits) followed by the source's removal, so it
//! crosses directories and roots alike; the file's previous content at the destination, if
//! `overwrite` replaced one, is kept for undo. `undo_edit` on a deleted path writes the file back
//! byte for byte with its permission bits; on a move's destination it moves the file back (and
//! restores what it overwrote). Either refuses (`CONFLICT`) when someone changed the files since.
//! Both are changes of the journal whose reply promises an undo: their bytes are kept there
//! (never dropped while not undone), and when the journal has no room for them, or cannot be
//! written, nothing is changed.

use mcp_shared::{
    ErrorCode,
    sandbox::{Metadata, Sandbox, SandboxPath, WriteOptions},
};

use crate::journal::plan::missing_parents;
use crate::{
    editor::{Editor, Origin, Reply, Seen, check_sha256, history_key},
    error::ToolError,
    journal::{self, Before, Effect, Kind},
};

/// A regular file's content, and its metadata (permission bits, identity, size, time) as it was
/// once read, through the sandbox; `what` names it in messages.
fn read_regular(
    editor: &Editor,
    sandbox: &Sandbox,
    path: &SandboxPath,
    what: &str,
) -> Result<(Vec<u8>, Metadata), ToolError> {
    let shown = path.display();
    let md = sandbox.metadata(path).map_err(ToolError::from)?;
    if md.is_dir {
        return Err(ToolError::new(
            ErrorCode::InvalidArgs,
            format!("{what} {shown} is a directory; only files can be moved or deleted with this tool."),
        ));
    }
    if !md.is_file {
        return Err(ToolError::new(ErrorCode::InvalidArgs, format!("{what} {shown} is not a regular file.")));
    }
    // A symlink (anywhere on the way) would make an undo restore a copy of its target.
    let resolved = sandbox.resolve_file(path).map_err(ToolError::from)?;
    if resolved.canonical() != path.absolute() {
        return Err(ToolError::new(
            ErrorCode::InvalidArgs,
            format!(
                "{what} {shown} is reached through a symbolic link (it is {}); name the file itself.",
                resolved.canonical().display()
            ),
        ));
    }
    if md.len > editor.limits().max_file_size {
        return Err(ToolError::new(
            ErrorCode::FileTooLarge,
            format!(
                "{what} {shown} is {} bytes, more than this server's limit of {} bytes (--max-file-size); it was left as it is.",
                md.len,
                editor.limits().max_file_size
            ),
        ));
    }
    let bytes = sandbox.read(path).map_err(ToolError::from)?;
    // The metadata again after the read: a write during it shows as a change at the check.
    let md = sandbox.metadata(path).map_err(ToolError::from)?;
    Ok((bytes, md))
}

/// Removes `path` only if it is still the file read (`then`, `bytes`), checked on the file
/// itself once it is renamed aside ([`Sandbox::remove_file_if`]): a version saved between the
/// check under the lock and the removal is put back, and the answer is a `CONFLICT`.
fn remove_as_read(sandbox: &Sandbox, path: &SandboxPath, then: &Metadata, bytes: &[u8]) -> Result<(), ToolError> {
    let same = |file: &std::fs::File| {
        use std::io::Read as _;
        let id = mcp_shared::platform::file_id_of(file).ok();
        if then.id.is_some() && id.is_some() && id != then.id {
            return false;
        }
        let mut now = Vec::with_capacity(bytes.len());
        file.take(bytes.len() as u64 + 1).read_to_end(&mut now).is_ok() && now == bytes
    };
    match sandbox.remove_file_if(path, &same) {
        Err(mcp_shared::sandbox::SandboxError::Changed { .. }) => Err(ToolError::new(
            ErrorCode::Conflict,
            format!(
                "Nothing was changed: {} was changed after this call read it (another program, the user's editor or another server); its newer version is left as it is. Look at it again, then decide.",
                path.display()
            ),
        )),
        other => other.map_err(ToolError::from),
    }
}

/// `Ok` when the file at `path` is still the one read (`then`, `bytes`): the same file (identity),
/// size, modification time and bytes, a regular file reached without a link. Checked under the
/// journal's lock just before a move or deletion acts, so that a version saved meanwhile (by
/// the user, another program or another server on the root) is never moved or removed unread:
/// it stays in place, and the answer is a `CONFLICT` naming it.
fn still_as_read(sandbox: &Sandbox, path: &SandboxPath, then: &Metadata, bytes: &[u8]) -> Result<(), ToolError> {
    let shown = path.display();
    let conflict = |what: &str| {
        ToolError::new(
            ErrorCode::Conflict,
            format!(
                "Nothing was changed: {shown} {what} after this call read it (another program, the user's editor or another server); its newer version is left as it is. Look at it again, then decide."
            ),
        )
    };
    let now = match sandbox.metadata(path) {
        Ok(now) => now,
        Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => return Err(conflict("was deleted")),
        Err(e) => return Err(e.into()),
    };
    let linked = sandbox.resolve_file(path).map(|r| r.canonical() != path.absolute()).unwrap_or(true);
    if !now.is_file || linked {
        return Err(conflict("was replaced by something that is not a regular file"));
    }
    let same_file = then.id.is_none() || now.id.is_none() || then.id == now.id;
    if !same_file || now.len != then.len || now.modified != then.modified {
        return Err(conflict("was changed"));
    }
    match sandbox.read(path) {
        Ok(current) if current == bytes => Ok(()),
        Ok(_) => Err(conflict("was changed")),
        Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => Err(conflict("was deleted")),
        Err(e) => Err(e.into()),
    }
}

impl Editor {
    fn file_write_options(&self, mode: u32, create_new: bool) -> WriteOptions {
        WriteOptions { fsync: self.limits().fsync, create_parents: true, create_new, mode_if_new: Some(mode) }
    }

    /// `delete_file`: removes the regular file `path`, keeping it in the journal for
    /// `undo_edit`. When the journal has no room for its bytes, nothing is deleted (a reply never
    /// promises an undo the journal could drop); with `--undo-depth 0`, the reply says it cannot
    /// be undone.
    pub fn delete_file(
        &self,
        sandbox: &Sandbox,
        path: &SandboxPath,
        if_sha256: Option<&str>,
        origin: &Origin,
    ) -> Result<Reply, ToolError> {
        if self.journal(sandbox).is_none() {
            let (bytes, md) = read_regular(self, sandbox, path, "The path")?;
            check_sha256(if_sha256, Some(&bytes), path.display())?;
            still_as_read(sandbox, path, &md, &bytes)?;
            remove_as_read(sandbox, path, &md, &bytes)?;
            return Ok(Reply::text(format!(
                "Deleted {} ({} bytes). This cannot be undone: this server keeps no undo history (--undo-depth 0).",
                path.display(),
                bytes.len()
            )));
        }
        // The size first, so that a file with no room is refused before it is read.
        self.room_for_undo(sandbox, path, "deleted")?;
        let (bytes, md) = read_regular(self, sandbox, path, "The path")?;
        let mode = md.permissions_mode;
        check_sha256(if_sha256, Some(&bytes), path.display())?;
        let len = bytes.len();
        let effect = Effect::new(history_key(path), Before::Bytes { mode }, None);
        let mut change = journal::Change::new(origin, Kind::Edit, vec![effect]);
        change.pinned = true;
        let no_room = |room: u64, held: u64| self.no_room_for_undo(len, path, "deleted", room, held);
        let ((), id) = self.journalled(sandbox, change, &[&bytes], Some(&no_room), || {
            still_as_read(sandbox, path, &md, &bytes)?;
            remove_as_read(sandbox, path, &md, &bytes)
        })?;
        let seen = self.limits.views.then_some(Seen {
            before: None,
            after: None,
            kept: true,
            sha256: None,
            result_sha256: None,
            change: id,
        });
        Ok(Reply::text(format!("Deleted {} ({len} bytes). `undo_edit` on this path restores it.", path.display()))
            .with_seen(seen))
    }

    /// `Ok` when the journal has room for the file at `path` (by its size), to refuse a file
    /// with no room before it is read; the room is checked again, held, when it is recorded.
    fn room_for_undo(&self, sandbox: &Sandbox, path: &SandboxPath, what: &str) -> Result<(), ToolError> {
        let Some(journal) = self.journal(sandbox) else { return Ok(()) };
        let Ok(md) = sandbox.metadata(path) else { return Ok(()) };
        let (room, held) = self
            .with_txn(&journal, sandbox, |txn| (txn.room_for_pinned(), txn.pinned_bytes()))
            .map_err(|e| crate::editor::journal_unusable(&e))?;
        if md.len > room {
            return Err(self.no_room_for_undo(usize::try_from(md.len).unwrap_or(usize::MAX), path, what, room, held));
        }
        Ok(())
    }

    fn no_room_for_undo(&self, len: usize, path: &SandboxPath, what: &str, room: u64, held: u64) -> ToolError {
        ToolError::new(
            ErrorCode::FileTooLarge,
            format!(
                "{} was not {what}: its {len} bytes would be kept in the change journal so that `undo_edit` can bring it back, and the journal has room for {room} more bytes of deleted and replaced files (it holds {held} of them, of --journal-max-bytes {} in all). Nothing was changed. Undo a deletion or move that should not stay, or remove the file outside this server.",
                path.display(),
                self.limits.journal_max_bytes
            ),
        )
    }

    /// `move_file`: moves the regular file `from` to `to` (parents created); an existing file
    /// at `to` is replaced only with `overwrite`.
    pub fn move_file(
        &self,
        sandbox: &Sandbox,
        from: &SandboxPath,
        to: &SandboxPath,
        overwrite: bool,
        if_sha256: Option<&str>,
        origin: &Origin,
    ) -> Result<Reply, ToolError> {
        if from.absolute() == to.absolute() {
            return Err(ToolError::new(
                ErrorCode::InvalidArgs,
                format!("The source and the destination are the same file ({}); nothing was moved.", from.display()),
            ));
        }
        let (bytes, from_md) = read_regular(self, sandbox, from, "The source")?;
        let mode = from_md.permissions_mode;
        check_sha256(if_sha256, Some(&bytes), from.display())?;
        let seen = self.limits.views.then(|| Seen {
            before: None,
            after: None,
            kept: true,
            sha256: Some(mcp_shared::view::sha256_hex(&bytes)),
            result_sha256: None,
            change: None,
        });
        let keeps = self.journal(sandbox).is_some();
        let created_dirs = missing_parents(sandbox, to);
        let overwritten = self.destination(sandbox, from, to, overwrite)?;
        let move_it = || -> Result<(), ToolError> {
            // Both files as they were read, checked under the journal's lock.
            still_as_read(sandbox, from, &from_md, &bytes)?;
            match &overwritten {
                Some((old, _, old_md)) => still_as_read(sandbox, to, old_md, old)?,
                None => {
                    if !matches!(sandbox.exists(to), Ok(false)) {
                        return Err(ToolError::new(
                            ErrorCode::Conflict,
                            format!(
                                "Nothing was moved: {} was created by someone else after this call looked; it is left as it is. Look at it, then decide (`overwrite: true` replaces it, and undo_edit brings it back).",
                                to.display()
                            ),
                        ));
                    }
                }
            }
            let options = self.file_write_options(mode, overwritten.is_none());
            sandbox.write_atomic(to, &bytes, &options).map_err(ToolError::from)?;
            if let Err(error) = remove_as_read(sandbox, from, &from_md, &bytes) {
                // Put the destination back as it was: the move did not happen.
                let _ = match &overwritten {
                    Some((old, old_mode, _)) => {
                        sandbox.write_atomic(to, old, &self.file_write_options(*old_mode, false))
                    }
                    None => sandbox.remove_file(to),
                };
                return Err(error);
            }
            Ok(())
        };
        let len = bytes.len();
        if !keeps {
            move_it()?;
            return Ok(Reply::text(format!(
                "Moved {} to {} ({len} bytes). This cannot be undone: this server keeps no undo history (--undo-depth 0).",
                from.display(),
                to.display()
            )));
        }
        let source = Effect::new(history_key(from), Before::SameAs { path: history_key(to), mode }, None);
        let (was, kept): (Before, &[u8]) = match &overwritten {
            Some((old, old_mode, _)) => (Before::Bytes { mode: *old_mode }, old),
            None => (Before::Absent, &[]),
        };
        let destination = Effect::new(history_key(to), was, Some(&bytes));
        let mut change = journal::Change::new(origin, Kind::Edit, vec![source, destination]);
        change.pinned = true;
        change.dirs = created_dirs.into_iter().map(Into::into).collect();
        let no_room = |room: u64, held: u64| self.no_room_for_undo(kept.len(), to, "replaced", room, held);
        let ((), id) = self.journalled(sandbox, change, &[&[], kept], Some(&no_room), move_it)?;
        let seen = seen.map(|seen| Seen { change: id, ..seen });
        Ok(Reply::text(format!(
            "Moved {} to {} ({len} bytes). `undo_edit` on {} moves it back.",
            from.display(),
            to.display(),
            to.display()
        ))
        .with_seen(seen))
    }

    /// What is at the destination of a move: nothing (`None`), or the file `overwrite` lets it
    /// replace (content, permission bits, metadata as read), kept for the undo.
    fn destination(
        &self,
        sandbox: &Sandbox,
        from: &SandboxPath,
        to: &SandboxPath,
        overwrite: bool,
    ) -> Result<Option<(Vec<u8>, u32, Metadata)>, ToolError> {
        match sandbox.metadata(to) {
            Ok(md) if md.is_dir => Err(ToolError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "The destination {} is a directory; give the file's new path, e.g. {}/{}.",
                    to.display(),
                    to.display().trim_end_matches('/'),
                    from.file_name().unwrap_or("name")
                ),
            )),
            Ok(_) if !overwrite => Err(ToolError::new(
                ErrorCode::AlreadyExists,
                format!(
                    "The destination {} already exists; nothing was moved. Pass `overwrite: true` to replace it (undo_edit brings it back).",
                    to.display()
                ),
            )),
            Ok(_) => {
                self.room_for_undo(sandbox, to, "replaced")?;
                let (bytes, md) = read_regular(self, sandbox, to, "The destination")?;
                Ok(Some((bytes, md.permissions_mode, md)))
            }
            Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}
