//! `ide/openDiff` and `ide/closeDiffs` through the Claude Code IDE protocol.
//!
//! The IDE's `openDiff` blocks until the user acts: `FILE_SAVED` and the final text (their own
//! edits included), or `DIFF_REJECTED`. The IDE never writes the file: the bridge does, through
//! the sandbox and atomically, then closes the tab (`close_tab`). The wait runs in a task of its
//! own, so that a call that stops waiting (`pending`) leaves the diff open: the same proposal
//! asked again waits on the same diff (`reused`), an accept after the call gave up is still
//! written, a different proposal for the file replaces it. The IDE quitting (or dropping the
//! bridge for another client) answers every waiting call at once: nothing was written.

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use mcp_shared::ErrorCode;
use serde_json::json;
use tokio::sync::watch;

use super::{Caller, ClaudeIde};
use crate::{
    bridge::RequestError,
    host::fs::WorkspaceFolder,
    protocol::{
        CloseDiffsResult, DEFAULT_DIFF_WAIT_MS, DiffStatus, MAX_DIFF_WAIT_MS, OpenDiffParams, OpenDiffResult, WireError,
    },
};

/// The most diffs open at once.
pub const MAX_OPEN_DIFFS: usize = 32;
/// The longest a diff stays open waiting for the user; then it is withdrawn (`close_tab`).
const MAX_OPEN_FOR: Duration = Duration::from_secs(3600);
/// How long closing a tab may take.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// What became of a proposal.
#[derive(Debug, Clone)]
enum Outcome {
    Accepted { final_text: String, created: bool },
    Rejected,
    Failed(WireError),
}

#[derive(Debug)]
struct Entry {
    new_text: String,
    tab: String,
    outcome: watch::Receiver<Option<Outcome>>,
    task: tokio::task::AbortHandle,
}

/// The diffs this connection has open, by workspace path.
#[derive(Debug, Default)]
pub struct Diffs {
    open: Mutex<HashMap<String, Entry>>,
    proposals: AtomicU64,
}

fn failed(code: ErrorCode, message: String) -> RequestError {
    RequestError::Host(WireError::new(code, message))
}

/// `ide/openDiff`.
pub async fn open(ide: &ClaudeIde, params: OpenDiffParams, timeout: Duration) -> Result<OpenDiffResult, RequestError> {
    if !ide.has("openDiff") {
        return Err(ide.lacks("openDiff tool"));
    }
    let wait = Duration::from_millis(params.wait_ms.unwrap_or(DEFAULT_DIFF_WAIT_MS).min(MAX_DIFF_WAIT_MS)).min(timeout);
    let file = ide.absolute(&params.path, false).await?;
    let path = params.path;
    // A buffer with unsaved edits: the diff would be made from a text the user no longer sees,
    // and its accept would overwrite their edits (claudecode.nvim refuses it too).
    let dirty = ide.caller.dirty(&path, &file).await.unwrap_or(false);
    let reusable =
        ide.diffs.open.lock().is_ok_and(|open| open.get(&path).is_some_and(|e| e.new_text == params.new_text));
    if dirty && !reusable {
        return Err(failed(
            ErrorCode::Conflict,
            format!(
                "`{path}` has unsaved edits in {}'s buffer: no diff was opened, since accepting it would overwrite them. Ask the user to save (save_file) or discard them, then read the file again and propose the change",
                ide.caller.name
            ),
        ));
    }
    // What a new diff is made from: an accept is written only over that.
    let shown = path.clone();
    let folder = ide.folder.clone();
    let mut base = tokio::task::spawn_blocking(move || folder.current_text(&shown))
        .await
        .map_err(|e| failed(ErrorCode::InternalError, e.to_string()))?
        .map_err(RequestError::Host)?;
    let (mut outcome, reused) = {
        let mut open = ide.diffs.open.lock().map_err(|_| RequestError::Lost)?;
        match open.get(&path) {
            Some(entry) if entry.new_text == params.new_text => (entry.outcome.clone(), true),
            _ => {
                if let Some(old) = open.remove(&path) {
                    withdraw(&ide.caller, old);
                }
                if open.len() >= MAX_OPEN_DIFFS {
                    return Err(failed(
                        ErrorCode::Unavailable,
                        format!(
                            "{MAX_OPEN_DIFFS} diffs are already open in {} and waiting for the user; nothing was opened for `{path}`. Wait for their decisions, or withdraw them with close_diffs.",
                            ide.caller.name
                        ),
                    ));
                }
                let n = ide.diffs.proposals.fetch_add(1, Ordering::Relaxed) + 1;
                // `✻ … ⧉` marks a diff tab, as the Claude Code CLI names them: an IDE closes it on
                // `close_tab` only with both (claudecode.nvim).
                let tab = format!("✻ [mcp-suite] {path} (proposal {n}) ⧉");
                let (tx, rx) = watch::channel(None);
                let decided = decide(
                    ide.caller.clone(),
                    ide.folder.clone(),
                    path.clone(),
                    file,
                    (base.take(), params.new_text.clone()),
                    tab.clone(),
                );
                let task = tokio::spawn(async move {
                    let outcome = decided.await;
                    let _ = tx.send(Some(outcome));
                })
                .abort_handle();
                open.insert(path.clone(), Entry { new_text: params.new_text.clone(), tab, outcome: rx.clone(), task });
                (rx, false)
            }
        }
    };
    let decided = match tokio::time::timeout(wait, outcome.wait_for(Option::is_some)).await {
        Err(_) => None,
        Ok(Ok(outcome)) => outcome.clone(),
        // The task was withdrawn: replaced by another proposal, or closed with close_diffs.
        Ok(Err(_)) => Some(Outcome::Rejected),
    };
    let pending = |status| OpenDiffResult {
        path: path.clone(),
        status,
        final_text: None,
        user_edited: false,
        created: false,
        reused,
    };
    let Some(decided) = decided else { return Ok(pending(DiffStatus::Pending)) };
    if let Ok(mut open) = ide.diffs.open.lock()
        && open.get(&path).is_some_and(|e| e.new_text == params.new_text && e.outcome.borrow().is_some())
    {
        open.remove(&path);
    }
    match decided {
        Outcome::Rejected => Ok(pending(DiffStatus::Rejected)),
        Outcome::Accepted { final_text, created } => Ok(OpenDiffResult {
            user_edited: final_text != params.new_text,
            final_text: Some(final_text),
            created,
            ..pending(DiffStatus::Accepted)
        }),
        Outcome::Failed(error) => Err(RequestError::Host(error)),
    }
}

/// Closes the tab of a proposal given up, and stops waiting on it.
fn withdraw(caller: &Caller, entry: Entry) {
    entry.task.abort();
    if entry.outcome.borrow().is_none() {
        let caller = caller.clone();
        tokio::spawn(async move {
            let _ = caller.call_tool("close_tab", json!({"tab_name": entry.tab}), CLOSE_TIMEOUT).await;
        });
    }
}

/// Shows the diff and waits for the user; writes the accepted text.
async fn decide(
    caller: Caller,
    folder: WorkspaceFolder,
    path: String,
    file: PathBuf,
    (base, new_text): (Option<String>, String),
    tab: String,
) -> Outcome {
    let arguments = json!({
        "old_file_path": file,
        "new_file_path": file,
        "new_file_contents": new_text,
        "tab_name": tab,
    });
    let answer = caller.call_tool("openDiff", arguments, MAX_OPEN_FOR).await;
    let close = || async {
        if let Err(error) = caller.call_tool("close_tab", json!({"tab_name": tab}), CLOSE_TIMEOUT).await {
            tracing::debug!(?error, "closing the diff tab failed");
        }
    };
    let name = &caller.name;
    match answer {
        Ok(texts) => match texts.first().map(String::as_str) {
            Some("FILE_SAVED") => {
                let final_text = texts.get(1).cloned().unwrap_or(new_text);
                // Closed first: the IDE's diff buffers are not the file's buffer whose unsaved
                // edits are checked next.
                close().await;
                let dirty = caller.dirty(&path, &file).await;
                match crate::bridge::adapter::write_accepted(&folder, name, &path, base, dirty, &final_text).await {
                    Ok(result) => Outcome::Accepted { final_text, created: result.created },
                    Err(error) => Outcome::Failed(error),
                }
            }
            Some("DIFF_REJECTED") => {
                close().await;
                Outcome::Rejected
            }
            other => {
                close().await;
                Outcome::Failed(WireError::new(
                    ErrorCode::InternalError,
                    format!(
                        "{name} answered openDiff with {:?}, neither FILE_SAVED nor DIFF_REJECTED: nothing was written to `{path}`",
                        other.map(|t| mcp_shared::escape::one_line(t).chars().take(80).collect::<String>())
                    ),
                ))
            }
        },
        Err(RequestError::Lost) => Outcome::Failed(WireError::new(
            ErrorCode::Unavailable,
            format!(
                "{name} closed the connection (it quit, or took another client) before the user decided on the change to `{path}`: nothing was written. Open the diff again once the IDE is back"
            ),
        )),
        Err(RequestError::Timeout(_)) => {
            close().await;
            Outcome::Failed(WireError::new(
                ErrorCode::Timeout,
                format!(
                    "the diff of `{path}` waited {} minutes for the user and was withdrawn: nothing was written",
                    MAX_OPEN_FOR.as_secs() / 60
                ),
            ))
        }
        Err(RequestError::TooLarge { bytes, max }) => Outcome::Failed(WireError::new(
            ErrorCode::FileTooLarge,
            format!(
                "the proposal is {bytes} bytes, over the {max} bytes a message may have: nothing was opened or written"
            ),
        )),
        Err(RequestError::Host(error)) => Outcome::Failed(WireError {
            message: format!("{}: nothing was written to `{path}`", error.message),
            ..error
        }),
    }
}

/// `ide/closeDiffs`: every diff this connection has open is withdrawn (counted as rejected).
pub async fn close_all(ide: &ClaudeIde, timeout: Duration) -> Result<CloseDiffsResult, RequestError> {
    if !ide.has("closeAllDiffTabs") {
        return Err(ide.lacks("closeAllDiffTabs tool"));
    }
    let entries: Vec<(String, Entry)> = match ide.diffs.open.lock() {
        Ok(mut open) => open.drain().collect(),
        Err(_) => Vec::new(),
    };
    let mut closed = Vec::new();
    for (path, entry) in entries {
        entry.task.abort();
        if entry.outcome.borrow().is_none() {
            closed.push(path);
        }
    }
    closed.sort();
    ide.call_tool("closeAllDiffTabs", json!({}), timeout).await?;
    Ok(CloseDiffsResult { closed })
}
