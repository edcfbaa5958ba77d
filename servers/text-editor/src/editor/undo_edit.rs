//! `undo_edit`: reverts the latest change of a file made through this server's writing tools,
//! one level per call (up to `--undo-depth`), from the change journal: so it works after a
//! restart, and on a change another process or session made. Undoing a `create` deletes the
//! file, a `delete_file` writes it back, a `move_file` moves it back. If the file was changed by
//! someone else since that change, nothing is written and the answer is `CONFLICT`. The undo is
//! itself a change of the journal (`revert_changes` can take it back).

use mcp_shared::ErrorCode;

use crate::{
    document,
    editor::{
        Editor, Reply, Seen, Target,
        guards::{candidate, refuse_other_session},
        history_key,
    },
    error::ToolError,
    journal::{
        Before, Kind, Txn,
        plan::{self, ApplyError, Taker},
    },
    lines::Normalized,
    render,
};

impl Editor {
    pub(crate) fn undo_edit(&self, t: &Target<'_>) -> Result<Reply, ToolError> {
        let no_history = || ToolError::new(ErrorCode::NotFound, format!("No edit history found for {}.", t.shown));
        let Some(journal) = self.journal(t.sandbox) else {
            return Err(no_history());
        };
        self.with_txn(&journal, t.sandbox, |txn| self.undo_in(t, txn, &no_history))
            .map_err(|e| crate::editor::journal_unusable(&e))?
    }

    fn undo_in(
        &self,
        t: &Target<'_>,
        txn: &mut Txn<'_>,
        no_history: &dyn Fn() -> ToolError,
    ) -> Result<Reply, ToolError> {
        let key = history_key(t.path);
        // The reference's checks of the path come first, unless the change to undo left no
        // file there (a deletion, a move away).
        let valid = self.validate(t).map(|_| ());
        let found = candidate(txn, &key, self.limits.undo_depth);
        let Some((seq, group)) = found else {
            valid?;
            if t.if_change.is_some() {
                self.check_change_in(t, txn)?;
            }
            return Err(no_history());
        };
        let Some(change) = txn.change(seq).cloned() else {
            return Err(no_history());
        };
        let left_no_file = change.effects.iter().any(|e| e.group == group && e.path == key && e.after.is_none());
        match valid {
            Err(error) if !(left_no_file && error.code == ErrorCode::NotFound) => return Err(error),
            _ => {}
        }
        if t.if_change.is_some() {
            self.check_change_in(t, txn)?;
        }
        refuse_other_session(&change, t)?;
        let effects: Vec<_> = change.effects.iter().filter(|e| e.group == group).cloned().collect();
        let moved_from = effects.iter().find(|e| matches!(e.before, Before::SameAs { .. })).map(|e| e.path.clone());
        let mine = effects.iter().find(|e| e.path == key).cloned();
        let plan = plan::plan(txn, t.sandbox, &[(seq, group)], self.limits.max_file_size)
            .map_err(|e| crate::editor::journal_unusable(&e))?;
        if let Some((path, why)) = plan.conflicts.iter().next() {
            let message = if *path == key && moved_from.is_none() {
                format!(
                    "No edit was undone: {} was changed by someone else since the last edit made with this tool, and undoing it would overwrite those changes. View the file and edit it directly instead.",
                    t.shown
                )
            } else {
                format!(
                    "No edit was undone: {why}, and undoing would overwrite that. Check the files and act on them directly."
                )
            };
            return Err(ToolError::new(ErrorCode::Conflict, message));
        }
        let file = plan.files.get(&key).cloned();
        let now = file.as_ref().and_then(|f| f.now.clone());
        let then = file.as_ref().and_then(|f| f.then.clone());
        crate::editor::check_sha256(t.if_sha256, now.as_ref().map(|c| c.bytes.as_slice()), t.shown)?;
        t.still_wanted()?;
        let taker = Taker { origin: t.origin, kind: Kind::Undo, fsync: self.limits.fsync };
        plan::apply(txn, t.sandbox, &plan, &taker).map_err(|e| apply_error(e, t.shown))?;
        let text = match (&mine, &moved_from) {
            (_, Some(source)) => {
                let also = if effects.iter().any(|e| e.path != *source && matches!(e.before, Before::Bytes { .. })) {
                    ", and the file it had replaced is back"
                } else {
                    ""
                };
                let shown_source = if *source == key {
                    effects
                        .iter()
                        .find(|e| e.path != *source)
                        .map_or_else(String::new, |e| e.path.display().to_string())
                } else {
                    source.display().to_string()
                };
                if *source == key {
                    format!(
                        "Last edit to {} undone successfully: the file was moved back from {shown_source}{also}.",
                        t.shown
                    )
                } else {
                    format!(
                        "Last edit to {} undone successfully: the file was moved back to {shown_source}{also}.",
                        t.shown
                    )
                }
            }
            (Some(effect), None) if matches!(effect.before, Before::Absent) => {
                if self.limits.views {
                    *t.seen.borrow_mut() = Some(Seen::new(now.map(|c| c.bytes), None));
                }
                format!(
                    "Last edit to {0} undone successfully. {0} had been created by that edit, so it has been deleted.",
                    t.shown
                )
            }
            (Some(effect), None) if effect.after.is_none() => {
                let len = then.as_ref().map_or(0, |c| c.bytes.len());
                if self.limits.views {
                    *t.seen.borrow_mut() = Some(Seen::new(None, then.as_ref().map(|c| c.bytes.as_slice())));
                }
                format!(
                    "Last edit to {0} undone successfully. {0} had been deleted by that edit, so it has been restored ({len} bytes).",
                    t.shown
                )
            }
            _ => {
                let before = then.map(|c| c.bytes).unwrap_or_default();
                if self.limits.views {
                    *t.seen.borrow_mut() = Some(Seen::new(now.map(|c| c.bytes), Some(&before)));
                }
                let text = match document::decode(before) {
                    Ok(doc) => doc.text,
                    Err(_) => String::new(),
                };
                let norm = Normalized::new(&text);
                let shown = render::cat_n(norm.as_str(), t.shown, 1, self.limits.max_output_chars);
                format!("Last edit to {} undone successfully. {shown}", t.shown)
            }
        };
        Ok(Reply::text(text))
    }
}

/// The error of an undo or revert that wrote nothing.
pub(crate) fn apply_error(error: ApplyError, shown: &str) -> ToolError {
    match error {
        ApplyError::Journal(e) => crate::editor::journal_unusable(&e),
        ApplyError::Moved(why) => ToolError::new(
            ErrorCode::Conflict,
            format!("Nothing was changed: {why}; what had been written was put back. Try again."),
        ),
        ApplyError::Kept(why) => ToolError::new(
            ErrorCode::InternalError,
            format!("The revert stopped ({shown}): {why}; what had been written was put back."),
        ),
        ApplyError::Write(e) => ToolError::new(
            e.code(),
            format!(
                "Nothing was changed ({shown}): a file could not be written ({e}); what had been written was put back."
            ),
        ),
    }
}
