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

use mcp_shared::{
    ErrorCode,
    sandbox::{Sandbox, SandboxPath, WriteOptions},
};

use crate::{
    editor::{Editor, Reply, Seen, Target, check_sha256, history_key},
    error::ToolError,
    history::{self, Change, Record},
};

/// The directories above `path` that do not exist (absolute, deepest first): those a write
/// with `create_parents` makes.
fn missing_parents(sandbox: &Sandbox, path: &SandboxPath) -> Vec<String> {
    let mut missing = Vec::new();
    let mut at = path.parent();
    while let Some(dir) = at {
        if !matches!(sandbox.exists(&dir), Ok(false)) {
            break;
        }
        missing.push(dir.absolute().display().to_string());
        at = dir.parent();
    }
    missing
}

/// A regular file's content and permission bits, read through the sandbox; `what` names it in
/// messages.
fn read_regular(
    editor: &Editor,
    sandbox: &Sandbox,
    path: &SandboxPath,
    what: &str,
) -> Result<(Vec<u8>, u32), ToolError> {
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
    Ok((bytes, md.permissions_mode))
}

impl Editor {
    fn file_write_options(&self, mode: u32, create_new: bool) -> WriteOptions {
        WriteOptions { fsync: self.limits().fsync, create_parents: true, create_new, mode_if_new: Some(mode) }
    }

    /// `delete_file`: removes the regular file `path`, keeping it for `undo_edit`. When the
    /// undo history has no room for its bytes, nothing is deleted (a reply never promises an
    /// undo the history could drop); with `--undo-depth 0`, the reply says it cannot be undone.
    pub fn delete_file(
        &self,
        sandbox: &Sandbox,
        path: &SandboxPath,
        if_sha256: Option<&str>,
    ) -> Result<Reply, ToolError> {
        if !self.history().keeps_anything() {
            let (bytes, _) = read_regular(self, sandbox, path, "The path")?;
            check_sha256(if_sha256, Some(&bytes), path.display())?;
            sandbox.remove_file(path).map_err(ToolError::from)?;
            return Ok(Reply::text(format!(
                "Deleted {} ({} bytes). This cannot be undone: this server keeps no undo history (--undo-depth 0).",
                path.display(),
                bytes.len()
            )));
        }
        // The size first, so that a file with no room is refused before it is read.
        let md = sandbox.metadata(path).map_err(ToolError::from)?;
        self.room_for_undo(usize::try_from(md.len).unwrap_or(usize::MAX), path, "deleted")?;
        let (bytes, mode) = read_regular(self, sandbox, path, "The path")?;
        check_sha256(if_sha256, Some(&bytes), path.display())?;
        let len = bytes.len();
        if !self.history().reserve_pinned(len) {
            return Err(self.no_room_for_undo(len, path, "deleted"));
        }
        if let Err(error) = sandbox.remove_file(path) {
            self.history().release_pinned(len);
            return Err(error.into());
        }
        let id = self.history().push(&history_key(path), Record::new(Change::Deleted { bytes, mode }, &[]));
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

    /// `Ok` when the undo history has room for `len` more bytes of a file kept for its undo.
    fn room_for_undo(&self, len: usize, path: &SandboxPath, what: &str) -> Result<(), ToolError> {
        if len > self.history().room_for_pinned() { Err(self.no_room_for_undo(len, path, what)) } else { Ok(()) }
    }

    fn no_room_for_undo(&self, len: usize, path: &SandboxPath, what: &str) -> ToolError {
        let (room, held) = {
            let history = self.history();
            (history.room_for_pinned(), history.pinned_bytes())
        };
        ToolError::new(
            ErrorCode::FileTooLarge,
            format!(
                "{} was not {what}: its {len} bytes would be kept in memory so that `undo_edit` can bring it back, and the undo history has room for {room} more bytes (it holds {held} bytes of deleted and replaced files, of {} in all). Nothing was changed. Undo a deletion or move that should not stay, or remove the file outside this server.",
                path.display(),
                history::DEFAULT_BUDGET_BYTES
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
    ) -> Result<Reply, ToolError> {
        if from.absolute() == to.absolute() {
            return Err(ToolError::new(
                ErrorCode::InvalidArgs,
                format!("The source and the destination are the same file ({}); nothing was moved.", from.display()),
            ));
        }
        let (bytes, mode) = read_regular(self, sandbox, from, "The source")?;
        check_sha256(if_sha256, Some(&bytes), from.display())?;
        let seen = self.limits.views.then(|| Seen {
            before: None,
            after: None,
            kept: true,
            sha256: Some(mcp_shared::view::sha256_hex(&bytes)),
            result_sha256: None,
            change: None,
        });
        let keeps = self.history().keeps_anything();
        let created_dirs = missing_parents(sandbox, to);
        // With `overwrite`, a destination that appears between the look and the write (another
        // process moving a file there) is looked at again and replaced, so that the undo keeps
        // what was really replaced: a second try, then the honest answer.
        let mut tries = 0;
        let (overwritten, kept) = loop {
            tries += 1;
            let overwritten = self.destination(sandbox, from, to, overwrite)?;
            // The undo's room (what the move replaces), reserved before anything is touched.
            let kept = overwritten.as_ref().map_or(0, |(old, _)| old.len());
            if keeps && !self.history().reserve_pinned(kept) {
                return Err(self.no_room_for_undo(kept, to, "replaced"));
            }
            let options = self.file_write_options(mode, overwritten.is_none());
            match sandbox.write_atomic(to, &bytes, &options) {
                Ok(()) => break (overwritten, kept),
                Err(error) => {
                    if keeps {
                        self.history().release_pinned(kept);
                    }
                    let raced = matches!(error, mcp_shared::sandbox::SandboxError::AlreadyExists { .. });
                    if !(raced && overwrite && tries < 3) {
                        return Err(error.into());
                    }
                }
            }
        };
        let release = || {
            if keeps {
                self.history().release_pinned(kept);
            }
        };
        if let Err(error) = sandbox.remove_file(from) {
            // Put the destination back as it was: the move did not happen.
            let _ = match &overwritten {
                Some((old, old_mode)) => sandbox.write_atomic(to, old, &self.file_write_options(*old_mode, false)),
                None => sandbox.remove_file(to),
            };
            release();
            return Err(error.into());
        }
        let len = bytes.len();
        if !keeps {
            return Ok(Reply::text(format!(
                "Moved {} to {} ({len} bytes). This cannot be undone: this server keeps no undo history (--undo-depth 0).",
                from.display(),
                to.display()
            )));
        }
        let change = Change::Moved { from: from.absolute().display().to_string(), mode, overwritten, created_dirs };
        let id = self.history().push(&history_key(to), Record::new(change, &bytes));
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
    /// replace (content, permission bits), kept for the undo if the history has room.
    fn destination(
        &self,
        sandbox: &Sandbox,
        from: &SandboxPath,
        to: &SandboxPath,
        overwrite: bool,
    ) -> Result<Option<(Vec<u8>, u32)>, ToolError> {
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
            Ok(md) => {
                if self.history().keeps_anything() {
                    self.room_for_undo(usize::try_from(md.len).unwrap_or(usize::MAX), to, "replaced")?;
                }
                Ok(Some(read_regular(self, sandbox, to, "The destination")?))
            }
            Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// `undo_edit` of a `delete_file` or of a `move_file` (the record on top of `key`'s stack).
    pub(crate) fn undo_file_operation(&self, t: &Target<'_>, key: &std::path::Path) -> Result<Reply, ToolError> {
        let Some(record) = self.history().pop(key) else {
            return Err(ToolError::new(ErrorCode::NotFound, format!("No edit history found for {}.", t.shown)));
        };
        let conflict = |why: String| {
            ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "No edit was undone: {why}, and undoing would overwrite that. Check the files and act on them directly."
                ),
            )
        };
        let result = (|| match &record.change {
            Change::Deleted { bytes, mode } => {
                if t.sandbox.exists(t.path).map_err(|e| t.sandbox_error(e))? {
                    return Err(conflict(format!("{} was created again since it was deleted", t.shown)));
                }
                crate::editor::check_sha256(t.if_sha256, None, t.shown)?;
                t.still_wanted()?;
                t.sandbox
                    .write_atomic(t.path, bytes, &self.file_write_options(*mode, true))
                    .map_err(|e| t.sandbox_error(e))?;
                if self.limits.views {
                    *t.seen.borrow_mut() = Some(crate::editor::Seen::new(None, Some(bytes)));
                }
                Ok(Reply::text(format!(
                    "Last edit to {0} undone successfully. {0} had been deleted by that edit, so it has been restored ({1} bytes).",
                    t.shown,
                    bytes.len()
                )))
            }
            Change::Moved { from, mode, overwritten, created_dirs } => {
                let source = t.sandbox.resolve(from).map_err(ToolError::from)?;
                let current = t.sandbox.read(t.path).map_err(|e| t.sandbox_error(e))?;
                if !record.matches(&current) {
                    return Err(conflict(format!("{} was changed since it was moved there", t.shown)));
                }
                crate::editor::check_sha256(t.if_sha256, Some(&current), t.shown)?;
                if t.sandbox.exists(&source).map_err(ToolError::from)? {
                    return Err(conflict(format!("{from} exists again since the file was moved from there")));
                }
                t.still_wanted()?;
                t.sandbox
                    .write_atomic(&source, &current, &self.file_write_options(*mode, true))
                    .map_err(ToolError::from)?;
                let restored = match overwritten {
                    Some((old, old_mode)) => {
                        t.sandbox.write_atomic(t.path, old, &self.file_write_options(*old_mode, false))
                    }
                    None => t.sandbox.remove_file(t.path),
                };
                restored.map_err(|e| t.sandbox_error(e))?;
                // The directories the move made, if nothing else was put in them since.
                for dir in created_dirs {
                    let removed = t.sandbox.resolve(dir).and_then(|dir| t.sandbox.remove_empty_dir(&dir));
                    if !matches!(removed, Ok(true)) {
                        break;
                    }
                }
                let also = if overwritten.is_some() { ", and the file it had replaced is back" } else { "" };
                Ok(Reply::text(format!(
                    "Last edit to {} undone successfully: the file was moved back to {from}{also}.",
                    t.shown
                )))
            }
            _ => Err(ToolError::new(
                ErrorCode::InternalError,
                "The undo record is of another kind; nothing was changed.",
            )),
        })();
        if result.is_err() {
            self.history().restore(key, record);
        }
        result
    }
}
