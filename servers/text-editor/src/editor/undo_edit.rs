//! `undo_edit`: reverts the last edit of a file made through this server, one level per call
//! (up to `--undo-depth`). Undoing a `create` deletes the file. If the file was changed by
//! someone else since that edit, nothing is written and the answer is `CONFLICT`.

use mcp_shared::ErrorCode;

use crate::{
    document,
    editor::{Editor, Reply, Target, history_key},
    error::ToolError,
    history::Change,
    lines::Normalized,
    render,
};

impl Editor {
    pub(crate) fn undo_edit(&self, t: &Target<'_>) -> Result<Reply, ToolError> {
        let key = history_key(t.path);
        if t.if_change.is_some() {
            self.check_change(t)?;
        }
        // A deleted file is not there: its undo is checked on its own terms.
        if matches!(self.history().peek(&key).map(|r| &r.change), Some(Change::Deleted { .. })) {
            return self.undo_file_operation(t, &key);
        }
        self.validate(t)?;
        if matches!(self.history().peek(&key).map(|r| &r.change), Some(Change::Moved { .. })) {
            return self.undo_file_operation(t, &key);
        }
        let Some(record) = self.history().pop(&key) else {
            return Err(ToolError::new(ErrorCode::NotFound, format!("No edit history found for {}.", t.shown)));
        };
        let result = (|| {
            let file = self.open_locked(t)?;
            let current = read_all(t, &file)?;
            let lock = Self::keep_lock(file);
            crate::editor::check_sha256(t.if_sha256, Some(&current), t.shown)?;
            if !record.matches(&current) {
                return Err(ToolError::new(
                    ErrorCode::Conflict,
                    format!(
                        "No edit was undone: {} was changed by someone else since the last edit made with this tool, and undoing it would overwrite those changes. View the file and edit it directly instead.",
                        t.shown
                    ),
                ));
            }
            match &record.change {
                Change::Created => {
                    drop(lock);
                    t.still_wanted()?;
                    t.sandbox.remove_file(t.path).map_err(|e| t.sandbox_error(e))?;
                    if self.limits.views {
                        *t.seen.borrow_mut() = Some(crate::editor::Seen::new(Some(current), None));
                    }
                    Ok(Reply::text(format!(
                        "Last edit to {0} undone successfully. {0} had been created by that edit, so it has been deleted.",
                        t.shown
                    )))
                }
                Change::Deleted { .. } | Change::Moved { .. } => Err(ToolError::new(
                    ErrorCode::InternalError,
                    "The undo record is of another kind; nothing was changed.",
                )),
                Change::Splice { .. } => {
                    let before = record.reverse(&current).ok_or_else(|| {
                        ToolError::new(
                            ErrorCode::InternalError,
                            "The undo record does not fit the file; nothing was changed.",
                        )
                    })?;
                    t.still_wanted()?;
                    t.sandbox.write_atomic(t.path, &before, &self.write_options()).map_err(|e| t.sandbox_error(e))?;
                    drop(lock);
                    if self.limits.views {
                        *t.seen.borrow_mut() = Some(crate::editor::Seen::new(Some(current), Some(&before)));
                    }
                    let text = match document::decode(before) {
                        Ok(doc) => doc.text,
                        Err(_) => String::new(),
                    };
                    let norm = Normalized::new(&text);
                    let shown = render::cat_n(norm.as_str(), t.shown, 1, self.limits.max_output_chars);
                    Ok(Reply::text(format!("Last edit to {} undone successfully. {shown}", t.shown)))
                }
            }
        })();
        if result.is_err() {
            self.history().restore(&key, record);
        }
        result
    }
}

/// The whole content of an opened file.
fn read_all(t: &Target<'_>, file: &std::fs::File) -> Result<Vec<u8>, ToolError> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    let mut reader = file;
    reader.read_to_end(&mut bytes).map_err(|e| {
        t.sandbox_error(mcp_shared::sandbox::SandboxError::Io { path: t.shown.to_owned(), kind: e.kind(), source: e })
    })?;
    Ok(bytes)
}
