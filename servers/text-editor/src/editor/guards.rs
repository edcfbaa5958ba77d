//! The guards a caller puts on a call: `if_sha256` (the file must have this content) and
//! `if_change` (the change of this id must be the file's latest), each checked before anything
//! is written, each a `CONFLICT` that says what to do when it does not hold.

use std::path::Path;

use mcp_shared::ErrorCode;

use crate::{
    editor::{Editor, Reply, Target, history_key},
    error::{self, ToolError},
    journal::{Kind, State, Txn},
};

/// `if_sha256`: `Ok` when no hash was given or `current` (the file's content; `None`: there is
/// no file) hashes to it; otherwise a `CONFLICT` that says what to do. A malformed hash is
/// `INVALID_ARGS`. Checked before anything is written.
pub fn check_sha256(expected: Option<&str>, current: Option<&[u8]>, shown: &str) -> Result<(), ToolError> {
    let Some(expected) = expected else {
        return Ok(());
    };
    if expected.len() != 64 || !expected.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ToolError::new(
            ErrorCode::InvalidArgs,
            format!(
                "`if_sha256` must be a SHA-256 in hex (64 characters 0-9, a-f), not `{}`; nothing was changed.",
                mcp_shared::view::shown_briefly(expected)
            ),
        ));
    }
    match current {
        None => Err(ToolError::new(
            ErrorCode::Conflict,
            format!(
                "No change was made: {shown} does not exist, so it cannot have the SHA-256 given in `if_sha256`. View the directory, then decide again."
            ),
        )),
        Some(bytes) => {
            let actual = mcp_shared::view::sha256_hex(bytes);
            if actual.eq_ignore_ascii_case(expected) {
                Ok(())
            } else {
                Err(ToolError::new(
                    ErrorCode::Conflict,
                    format!(
                        "No change was made: {shown} changed since it was read (its SHA-256 is now {actual}, not the {} given in `if_sha256`). View it again, then redo the change on what it holds now.",
                        expected.to_ascii_lowercase()
                    ),
                ))
            }
        }
    }
}

impl Editor {
    /// `if_change` (`view` with it is this check alone; `undo_edit` checks it first): `Ok` when
    /// the change of that id is the one `undo_edit` would take back and the file is as it left
    /// it (a deleted file still absent), otherwise a `CONFLICT` that says which change is the
    /// latest now. A view made for one change can so never undo another, even one that left the
    /// same content.
    pub(crate) fn check_change(&self, t: &Target<'_>) -> Result<Reply, ToolError> {
        if t.if_change.is_none() {
            return Ok(Reply::text(String::new()));
        }
        let Some(journal) = self.journal(t.sandbox) else {
            return self.check_change_without_journal(t);
        };
        self.with_txn(&journal, t.sandbox, |txn| self.check_change_in(t, txn))
            .map_err(|e| crate::editor::journal_unusable(&e))?
    }

    fn check_change_without_journal(&self, t: &Target<'_>) -> Result<Reply, ToolError> {
        Err(ToolError::new(
            ErrorCode::Conflict,
            format!(
                "Nothing was undone: this server keeps no undo history (--undo-depth 0), so the change `{}` of {} cannot be undone. View the file, then change it directly if it still needs it.",
                mcp_shared::view::shown_briefly(t.if_change.unwrap_or_default()),
                t.shown
            ),
        ))
    }

    /// [`Editor::check_change`] on the journal, held.
    pub(crate) fn check_change_in(&self, t: &Target<'_>, txn: &mut Txn<'_>) -> Result<Reply, ToolError> {
        let Some(wanted) = t.if_change else {
            return Ok(Reply::text(String::new()));
        };
        let key = history_key(t.path);
        let refused = |why: String| {
            Err(ToolError::new(
                ErrorCode::Conflict,
                format!("Nothing was undone: {why}. View the file, then change it directly if it still needs it."),
            ))
        };
        let latest = candidate(txn, &key, self.limits.undo_depth);
        let Some((seq, group)) = latest else {
            return refused(format!(
                "the change `{}` is not in the undo history of {} (it was undone already, or dropped from the journal)",
                mcp_shared::view::shown_briefly(wanted),
                t.shown
            ));
        };
        let latest_id = txn.id_of(seq);
        if latest_id != wanted {
            return refused(format!(
                "the change `{}` is no longer the latest change of {} (a later change, `{latest_id}`, would be undone instead)",
                mcp_shared::view::shown_briefly(wanted),
                t.shown
            ));
        }
        if let Some(change) = txn.change(seq) {
            refuse_other_session(change, t)?;
        }
        let effect =
            txn.change(seq).and_then(|c| c.effects.iter().find(|e| e.group == group && e.path == key)).cloned();
        let current = match t.sandbox.read(t.path) {
            Ok(bytes) => Some(bytes),
            Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => None,
            Err(e) => return Err(t.sandbox_error(e)),
        };
        if !effect.is_some_and(|e| e.left(current.as_deref())) {
            return refused(format!("{} was changed by someone else since the change `{wanted}`", t.shown));
        }
        Ok(Reply::text(format!(
            "The change `{wanted}` is the latest change of {}: undo_edit with this if_change reverts exactly it.",
            t.shown
        )))
    }

    /// `view` with `if_sha256`: refused unless the file has that content (a check that it has not
    /// changed since it was read, e.g. by the change view before it offers its Undo).
    pub(super) fn check_current(&self, t: &Target<'_>) -> Result<(), ToolError> {
        match t.sandbox.metadata(t.path) {
            Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => check_sha256(t.if_sha256, None, t.shown),
            Err(e) => Err(t.sandbox_error(e)),
            Ok(md) if md.is_dir => {
                Err(error::invalid(format!("{} is a directory; `if_sha256` applies to files.", t.shown)))
            }
            Ok(md) if md.len > self.limits.max_file_size => Err(self.too_large(t, md.len)),
            Ok(_) => {
                let bytes = t.sandbox.read(t.path).map_err(|e| t.sandbox_error(e))?;
                check_sha256(t.if_sha256, Some(&bytes), t.shown)
            }
        }
    }
}

/// The group `undo_edit` on `key` would take back: the latest group of a writing tool's change
/// touching it that is not undone yet, if it is within `depth` undos of the newest.
pub(crate) fn candidate(txn: &Txn<'_>, key: &Path, depth: usize) -> Option<(u64, u32)> {
    let undone = txn.undone();
    let mut newer = 0;
    for change in txn.changes().iter().rev() {
        if change.state != State::Done || change.kind != Kind::Edit || !change.touches(key) {
            continue;
        }
        for group in change.groups().into_iter().rev() {
            if !change.effects.iter().any(|e| e.group == group && e.path == key) {
                continue;
            }
            if undone.contains(&(change.seq, group)) {
                newer += 1;
                continue;
            }
            return (newer < depth).then_some((change.seq, group));
        }
    }
    None
}

/// `undo_edit` takes back this session's changes, and those of servers that have stopped: a
/// change another session still at work made is refused (`revert_changes` with
/// `sessions: "all"` takes it back when that is what the user wants).
pub(crate) fn refuse_other_session(change: &crate::journal::Change, t: &Target<'_>) -> Result<(), ToolError> {
    if crate::editor::other_live_session(&change.session, &t.origin.session) {
        return Err(ToolError::new(
            ErrorCode::Conflict,
            format!(
                "No edit was undone: the latest change of {} (change {}, by {}) was made by another session that is still at work, and undo_edit takes back only this session's changes. View the file and change it directly, or use revert_changes with sessions \"all\" if the user wants that change taken back.",
                t.shown, change.seq, change.tool
            ),
        ));
    }
    Ok(())
}
