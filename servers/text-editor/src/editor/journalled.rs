//! The editor's side of the change journal: each workspace's journal, held for one operation,
//! and the journalled write every writing tool makes.

use std::sync::Arc;

use mcp_shared::{ErrorCode, sandbox::Sandbox};

use crate::{
    editor::Editor,
    error::ToolError,
    journal::{self, Journal, JournalError, Txn},
};

impl Editor {
    /// The journal of `sandbox`'s workspace; `None` with `--undo-depth 0` (nothing is kept).
    pub fn journal(&self, sandbox: &Sandbox) -> Option<Arc<Journal>> {
        if self.limits.undo_depth == 0 {
            return None;
        }
        let roots = sandbox.roots().to_vec();
        let mut journals = self.journals.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(journal) = journals.get(&roots) {
            return Some(Arc::clone(journal));
        }
        let journal = Journal::for_roots(
            self.limits.journal_dir.as_deref(),
            &roots,
            (self.limits.journal_max_bytes, self.limits.journal_max_changes),
            self.limits.fsync,
        );
        // Every workspace whose place is right shares the one journal (and its index in memory).
        let shared = journal.dir().and_then(|dir| journals.values().find(|j| j.dir() == Some(dir)).cloned());
        let journal = shared.unwrap_or_else(|| Arc::new(journal));
        journals.insert(roots, Arc::clone(&journal));
        Some(journal)
    }

    /// Runs `f` on `journal`, held, after settling any change whose writer died.
    pub(crate) fn with_txn<R>(
        &self,
        journal: &Journal,
        sandbox: &Sandbox,
        f: impl FnOnce(&mut Txn<'_>) -> R,
    ) -> Result<R, JournalError> {
        let mut txn = journal.lock()?;
        if !self.limits.read_only && !txn.pending().is_empty() {
            journal::plan::settle(&mut txn, sandbox, self.limits.max_file_size, self.limits.fsync)?;
        }
        Ok(f(&mut txn))
    }

    /// Makes a change to the files (`write`) journalled as `change` with `payloads` (one per
    /// effect): recorded as begun before, as done or failed after, the journal held throughout.
    /// Gives the change's id, when it was recorded. When the journal cannot be used, an edit is
    /// made unrecorded (and logged). A pinned change (its reply promises an undo: `no_room`
    /// given) is refused instead, and also when the journal has no room for its bytes
    /// (`no_room(room, held)`).
    pub(crate) fn journalled<R>(
        &self,
        sandbox: &Sandbox,
        mut change: journal::Change,
        payloads: &[&[u8]],
        no_room: Option<&dyn Fn(u64, u64) -> ToolError>,
        write: impl FnOnce() -> Result<R, ToolError>,
    ) -> Result<(R, Option<String>), ToolError> {
        change.roots = sandbox.roots().to_vec();
        let Some(journal) = self.journal(sandbox) else {
            return write().map(|r| (r, None));
        };
        let mut write = Some(write);
        let held = self.with_txn(&journal, sandbox, |txn| {
            if let Some(no_room) = no_room {
                let (needed, room) = (change.payload_bytes_of(payloads), txn.room_for_pinned());
                if needed > room {
                    return Ok(Err(no_room(room, txn.pinned_bytes())));
                }
            }
            let seq = txn.begin(change, payloads)?;
            let Some(write) = write.take() else {
                return Ok(Err(ToolError::new(ErrorCode::InternalError, "The change was made already.")));
            };
            let result = write();
            if let Err(error) = txn.finish(seq, result.is_ok()) {
                tracing::error!(%error, seq, "the end of a change could not be journalled");
            }
            Ok(result.map(|r| (r, Some(txn.id_of(seq)))))
        });
        let error = match held {
            Ok(Ok(result)) => return result,
            Ok(Err(error)) | Err(error) => error,
        };
        match write.take() {
            Some(write) if no_room.is_none() => {
                tracing::warn!(%error, "the change journal cannot be written; the edit is made without it");
                write().map(|r| (r, None))
            }
            _ => Err(journal_unusable(&error)),
        }
    }
}

/// The error of a change refused because the journal that would keep its undo cannot be used.
pub(crate) fn journal_unusable(error: &JournalError) -> ToolError {
    ToolError::new(
        ErrorCode::InternalError,
        format!(
            "Nothing was changed: {error}. Its reply would promise an undo the journal could not keep; check the journal's directory (--journal-dir), or ask the user to."
        ),
    )
}
