//! What `list_changes` and `revert_changes` say, and what `revert_changes` does, on the change
//! journal ([`crate::journal`]): the changes after a point, grouped by file, each file's combined
//! diff over the span (the file at the point against the file now), and the revert of them all
//! as one change. One diff budget is shared by every file of an answer, so a large span stays a
//! bounded answer that says what it left out.

use std::path::PathBuf;

use mcp_shared::{ErrorCode, sandbox::Sandbox};
use serde_json::{Value, json};

use super::timeline::{self, time_of};
use crate::{
    document,
    editor::{Editor, Origin, check_sha256},
    error::ToolError,
    journal::{
        Journal, Kind, State, Txn,
        plan::{self, Content, FilePlan, Plan, Taker},
    },
};

/// The bytes of diff an answer carries, shared by its files.
pub const MAX_DIFF_BYTES: usize = 48 * 1024;

/// The most changes an answer lists one by one (the files and diffs cover them all).
pub const MAX_LISTED_CHANGES: usize = 200;

/// The most files an answer describes one by one (a revert still takes back every file).
pub const MAX_LISTED_FILES: usize = 500;

/// Which changes: those after `after`, of one session or all, on some paths or all.
#[derive(Debug, Clone)]
pub struct Span {
    /// Changes after this number.
    pub after: u64,
    /// Instead of `after`: the changes since a session's start (after the change before its
    /// first; for this session, none when it made none).
    pub start: Option<Start>,
    /// Only this session's (`None`: every session's).
    pub session: Option<String>,
    /// Only changes touching these files (absolute; `None`: all).
    pub paths: Option<Vec<PathBuf>>,
}

/// A session whose start is a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The caller's own session.
    This,
    /// The session of this number (the timeline's).
    Session(u64),
}

/// A guard on a revert: what the caller saw.
#[derive(Debug, Clone, Default)]
pub struct Guards {
    /// Per file, the SHA-256 it must have now (`None`: it must be absent).
    pub sha256: Vec<(PathBuf, String, Option<String>)>,
    /// The latest change of the span the caller saw: a later one refuses the revert.
    pub latest: Option<u64>,
}

/// What a revert is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct RevertMode {
    /// Only say what it would do.
    pub dry_run: bool,
    /// Revert the files that can be, leaving those changed by someone else as they are.
    pub force: bool,
}

fn journal_error(e: &crate::journal::JournalError) -> ToolError {
    crate::editor::journal_unusable(e)
}

/// The span's error when no journal is kept.
fn no_journal() -> ToolError {
    ToolError::new(
        ErrorCode::InvalidArgs,
        "This server keeps no change journal (it was started with --undo-depth 0), so there are no changes to list or revert.",
    )
}

/// How a file is shown: relative to the root it is in.
fn shown(sandbox: &Sandbox, path: &std::path::Path) -> String {
    for root in sandbox.roots() {
        if let Ok(rel) = path.strip_prefix(root) {
            if sandbox.roots().len() == 1 {
                return rel.display().to_string();
            }
            return path.display().to_string();
        }
    }
    path.display().to_string()
}

/// What a revert does to a file: the span's changes seen backwards.
fn revert_status(file: &FilePlan) -> &'static str {
    match (&file.now, &file.then) {
        _ if file.moved_from.is_some() => "moved back",
        (None, Some(_)) => "restored",
        (Some(_), None) => "removed",
        (None, None) => "unchanged",
        (Some(a), Some(b)) if a == b => "unchanged",
        _ => "edited",
    }
}

/// Which way an answer describes the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// What the span's changes did: the file at the point against the file now.
    Listing,
    /// What the revert does: the file now against the file it writes.
    Reverting,
}

/// What happened to a file over the span.
fn status(file: &FilePlan) -> &'static str {
    match (&file.then, &file.now) {
        _ if file.moved_from.is_some() => "moved",
        (None, Some(_)) => "created",
        (Some(_), None) => "deleted",
        (None, None) => "unchanged",
        (Some(a), Some(b)) if a == b => "unchanged",
        _ => "edited",
    }
}

/// The text of a file's content for a diff (`None`: not text).
fn text_of(content: Option<&Content>) -> Option<String> {
    match content {
        None => Some(String::new()),
        Some(c) => document::decode(c.bytes.clone()).ok().map(|doc| doc.text),
    }
}

/// One file of an answer, its diff taken from the shared `budget`.
fn file_entry(
    sandbox: &Sandbox,
    path: &std::path::Path,
    file: &FilePlan,
    origin: Option<&FilePlan>,
    budget: &mut usize,
    direction: Direction,
) -> Value {
    let name = shown(sandbox, path);
    let mut entry = json!({
        "path": name,
        "status": if direction == Direction::Reverting { revert_status(file) } else { status(file) },
        "changes": file.changes.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(),
        "sha256": file.now.as_ref().map(|c| mcp_shared::view::sha256_hex(&c.bytes)),
    });
    if let Some(from) = &file.moved_from {
        entry["from"] = json!(shown(sandbox, from));
    }
    // A move's diff runs from the source at the point to the destination now.
    let then = origin.map_or(file.then.as_ref(), |o| o.then.as_ref());
    match (text_of(then), text_of(file.now.as_ref())) {
        (Some(old), Some(new)) => {
            let old_name = file.moved_from.as_ref().map_or_else(|| name.clone(), |f| shown(sandbox, f));
            // A revert's diff runs the other way: from now to what it writes.
            let diff = match direction {
                Direction::Listing => {
                    mcp_shared::diff::unified(&old, &new, &format!("a/{old_name}"), &format!("b/{name}"), *budget)
                }
                Direction::Reverting => {
                    mcp_shared::diff::unified(&new, &old, &format!("a/{name}"), &format!("b/{old_name}"), *budget)
                }
            };
            *budget = budget.saturating_sub(diff.text.len());
            entry["added"] = json!(diff.added);
            entry["removed"] = json!(diff.removed);
            entry["diff"] = json!(diff.text);
            entry["truncated"] = json!(diff.truncated);
        }
        _ => {
            let size = |c: Option<&Content>| c.map_or(0, |c| c.bytes.len());
            entry["note"] =
                json!(format!("not text: {} bytes then, {} bytes now", size(then), size(file.now.as_ref())));
        }
    }
    entry
}

/// The files of a plan, with their diffs, and the text lines that say them.
fn files_of(sandbox: &Sandbox, plan: &Plan, direction: Direction) -> (Vec<Value>, String) {
    let mut budget = MAX_DIFF_BYTES;
    let mut files = Vec::new();
    let mut text = String::new();
    // A move's source is shown with its destination.
    let sources: Vec<&PathBuf> = plan.files.values().filter_map(|f| f.moved_from.as_ref()).collect();
    let mut left_out = 0;
    for (path, file) in &plan.files {
        if sources.contains(&path) && file.now.is_none() {
            continue;
        }
        if files.len() == MAX_LISTED_FILES {
            left_out += 1;
            continue;
        }
        let origin = file.moved_from.as_ref().and_then(|from| plan.files.get(from));
        let entry = file_entry(sandbox, path, file, origin, &mut budget, direction);
        let counts = match (entry["added"].as_u64(), entry["removed"].as_u64()) {
            (Some(a), Some(r)) => format!(" (+{a} -{r})"),
            _ => String::new(),
        };
        let by: Vec<String> = file.changes.iter().map(|(seq, tool)| format!("{seq} {tool}")).collect();
        let (from, cause) = match direction {
            Direction::Listing => (
                entry["from"]
                    .as_str()
                    .map_or_else(String::new, |f| format!(" from {}", mcp_shared::escape::one_line(f))),
                "by",
            ),
            Direction::Reverting => (
                entry["from"].as_str().map_or_else(String::new, |f| format!(" to {}", mcp_shared::escape::one_line(f))),
                "undoing",
            ),
        };
        text.push_str(&format!(
            "- {}: {}{from}{counts}, {cause} change{} {}\n",
            mcp_shared::escape::one_line(entry["path"].as_str().unwrap_or_default()),
            entry["status"].as_str().unwrap_or_default(),
            if by.len() == 1 { "" } else { "s" },
            by.join(", ")
        ));
        files.push(entry);
    }
    if left_out > 0 {
        text.push_str(&format!(
            "[{left_out} more file(s) not described here (the first {MAX_LISTED_FILES} are); a revert takes them back too. Pass `paths` to see them.]\n"
        ));
    }
    (files, text)
}

fn conflicts_of(sandbox: &Sandbox, plan: &Plan) -> Vec<Value> {
    plan.conflicts.iter().map(|(path, why)| json!({"path": shown(sandbox, path), "why": why})).collect()
}

/// The diffs of `files`, for the text the model reads.
fn diffs_text(files: &[Value]) -> String {
    files.iter().filter_map(|f| f["diff"].as_str()).filter(|d| !d.is_empty()).collect::<Vec<_>>().join("")
}

impl Editor {
    fn journal_or_error(&self, sandbox: &Sandbox) -> Result<std::sync::Arc<Journal>, ToolError> {
        self.journal(sandbox).ok_or_else(no_journal)
    }

    /// The facts every answer starts with: the journal, the span, what can be reached.
    fn header(&self, sandbox: &Sandbox, txn: &Txn<'_>, span: &Span, origin: &Origin) -> Value {
        let mine = txn.changes().iter().find(|c| c.session == origin.session && c.state == State::Done);
        json!({
            "latest": txn.latest_seq(),
            "since": span.after,
            "sessions": if span.session.is_some() { "this" } else { "all" },
            "this_session_since": mine.map(|c| c.seq - 1),
            "earliest_point": txn.earliest_point(sandbox.roots()),
            "journal": txn.journal().dir().map(|d| d.display().to_string()),
            "transient": txn.journal().transient_because(),
            "set_aside": txn.set_aside().iter().map(|a| json!({
                "path": a.path.display().to_string(),
                "time": time_of(a.time_ms),
                "carried_over": a.readable,
                "latest": a.latest,
            })).collect::<Vec<_>>(),
        })
    }

    /// The changes of `span`, each listed (the latest [`MAX_LISTED_CHANGES`]).
    fn listed(&self, sandbox: &Sandbox, txn: &Txn<'_>, picked: &[(u64, u32)]) -> Vec<Value> {
        let mut seqs: Vec<u64> = picked.iter().map(|(s, _)| *s).collect();
        seqs.dedup();
        seqs.reverse();
        let skip = seqs.len().saturating_sub(MAX_LISTED_CHANGES);
        seqs.iter()
            .skip(skip)
            .filter_map(|seq| txn.change(*seq))
            .map(|c| {
                let mut files: Vec<String> = c.effects.iter().map(|e| shown(sandbox, &e.path)).collect();
                files.dedup();
                json!({
                    "change": c.seq,
                    "time": time_of(c.time_ms),
                    "tool": c.tool,
                    "kind": match c.kind { Kind::Edit => "edit", Kind::Undo => "undo", Kind::Revert => "revert" },
                    "session": c.session,
                    "session_no": c.session_no,
                    "client": c.client,
                    "files": files,
                })
            })
            .collect()
    }

    /// `span` with its point resolved: a session's start made a change number; an error for a
    /// session the journal does not know.
    fn resolved(txn: &Txn<'_>, span: &Span, origin: &Origin) -> Result<Span, ToolError> {
        let after = match span.start {
            None => return Ok(span.clone()),
            Some(Start::This) => {
                let first = txn.changes().iter().find(|c| c.session == origin.session && c.state == State::Done);
                first.map_or(txn.latest_seq(), |c| c.seq - 1)
            }
            Some(Start::Session(no)) => {
                let first = txn.changes().iter().find(|c| c.session_no == no && c.state == State::Done);
                match first {
                    Some(c) => c.seq - 1,
                    None => {
                        let known = txn.changes().iter().map(|c| c.session_no).filter(|n| *n > 0);
                        let (low, high) = known.fold((u64::MAX, 0), |(l, h), n| (l.min(n), h.max(n)));
                        let range = if high == 0 {
                            "the journal holds no sessions' changes yet".to_owned()
                        } else {
                            format!("the journal holds sessions {low} to {high}")
                        };
                        return Err(ToolError::new(
                            ErrorCode::InvalidArgs,
                            format!(
                                "There is no session {no} with changes in the journal ({range}); list_changes shows each session with its number."
                            ),
                        ));
                    }
                }
            }
        };
        Ok(Span { after, start: None, ..span.clone() })
    }

    /// `list_changes`: the changes of `span`, grouped by file, with each file's combined diff.
    pub fn list_changes(&self, sandbox: &Sandbox, span: &Span, origin: &Origin) -> Result<(String, Value), ToolError> {
        let journal = self.journal_or_error(sandbox)?;
        let this_session = span.start == Some(Start::This);
        self.with_txn(&journal, sandbox, |txn| {
            let span = &Self::resolved(txn, span, origin)?;
            let picked = plan::select(txn, sandbox.roots(), span.after, span.session.as_deref(), span.paths.as_deref());
            let plan = plan::plan(txn, sandbox, &picked, self.limits.max_file_size).map_err(|e| journal_error(&e))?;
            let mut data = self.header(sandbox, txn, span, origin);
            let listed = self.listed(sandbox, txn, &picked);
            let (files, lines) = files_of(sandbox, &plan, Direction::Listing);
            let conflicts = conflicts_of(sandbox, &plan);
            let count = picked.iter().map(|(seq, _)| *seq).collect::<std::collections::BTreeSet<_>>().len();
            data["changes"] = json!(listed);
            data["files"] = json!(files);
            data["conflicts"] = json!(conflicts);
            let seqs: std::collections::BTreeSet<u64> = picked.iter().map(|(seq, _)| *seq).collect();
            let sessions = timeline::sessions(sandbox, txn, &seqs, &plan, origin);
            data["timeline"] = json!(sessions);
            let mut text = if picked.is_empty() {
                let mut text = format!(
                    "No changes after change {} ({}). The latest change is {}.",
                    span.after,
                    if span.session.is_some() {
                        "this session's; `sessions: \"all\"` lists every session's"
                    } else {
                        "all sessions"
                    },
                    txn.latest_seq()
                );
                if this_session {
                    text.push_str(&match timeline::previous(sandbox, txn, origin) {
                        Some((no, client, started, first)) => format!(
                            " This session has made no change in this workspace yet. The previous session{} ({}, started {}) began after change {}: `since: {}` lists its changes and everything after.",
                            if no > 0 { format!(" was session {no}") } else { String::new() },
                            if client.is_empty() { "a client that did not name itself".to_owned() } else { mcp_shared::escape::one_line(&client).to_string() },
                            time_of(started),
                            first - 1,
                            if no > 0 { format!("\"session:{no}\"") } else { (first - 1).to_string() }
                        ),
                        None => " This session has made no change in this workspace yet, and no earlier session made one either.".to_owned(),
                    });
                }
                text
            } else {
                format!(
                    "{count} change(s) after change {} ({}), the latest {}.\nBy session ({}):\n{}By file ({}):\n{lines}",
                    span.after,
                    if span.session.is_some() { "this session's" } else { "all sessions" },
                    txn.latest_seq(),
                    sessions.len(),
                    timeline::text(&sessions),
                    files.len()
                )
            };
            for conflict in &conflicts {
                text.push_str(&format!(
                    "- {}: changed outside since ({}); revert_changes would refuse it\n",
                    mcp_shared::escape::one_line(conflict["path"].as_str().unwrap_or_default()),
                    mcp_shared::escape::one_line(conflict["why"].as_str().unwrap_or_default())
                ));
            }
            let earliest = txn.earliest_point(sandbox.roots());
            if span.after < earliest {
                text.push_str(&format!(
                    "Changes up to {earliest} were dropped to keep the journal within its bounds (--journal-max-bytes, --journal-max-changes): the earliest point revert_changes can go back to is {earliest}.\n"
                ));
            }
            if let Some(why) = txn.journal().transient_because() {
                text.push_str(&format!("These changes will not survive a restart: {why}.\n"));
            }
            for aside in txn.set_aside() {
                text.push_str(&format!(
                    "The journal was found damaged at {} and kept aside as {}: the {} change(s) that read back were carried over; anything up to change {} that did not cannot be listed or reverted from here.\n",
                    time_of(aside.time_ms),
                    mcp_shared::escape::one_line(&aside.path.display().to_string()),
                    aside.readable,
                    aside.latest
                ));
            }
            let diffs = diffs_text(&files);
            if !diffs.is_empty() {
                text.push('\n');
                text.push_str(&diffs);
            }
            Ok((text, data))
        })
        .map_err(|e| journal_error(&e))?
    }

    /// `revert_changes`: every change of `span` undone, newest first, as one change of the
    /// journal; refused whole (`CONFLICT`, each file named) when a file was changed by someone
    /// else since, unless `force` (then those files are left as they are).
    pub fn revert_changes(
        &self,
        sandbox: &Sandbox,
        span: &Span,
        guards: &Guards,
        mode: RevertMode,
        origin: &Origin,
    ) -> Result<(String, Value), ToolError> {
        let journal = self.journal_or_error(sandbox)?;
        self.with_txn(&journal, sandbox, |txn| {
            let span = &Self::resolved(txn, span, origin)?;
            self.revert_in(sandbox, txn, span, guards, mode, origin)
        })
        .map_err(|e| journal_error(&e))?
    }

    fn revert_in(
        &self,
        sandbox: &Sandbox,
        txn: &mut Txn<'_>,
        span: &Span,
        guards: &Guards,
        mode: RevertMode,
        origin: &Origin,
    ) -> Result<(String, Value), ToolError> {
        let earliest = txn.earliest_point(sandbox.roots());
        if span.after < earliest {
            return Err(ToolError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "Nothing was reverted: the changes up to {earliest} were dropped from the journal to keep it within its bounds (--journal-max-bytes, --journal-max-changes), so the files cannot be taken back to how they were after change {}. The earliest point is {earliest}: pass `to: {earliest}` or later.",
                    span.after,
                ),
            ));
        }
        if span.after > txn.latest_seq() {
            return Err(ToolError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "Nothing was reverted: there is no change {} (the latest is {}). list_changes shows the changes and their numbers.",
                    span.after,
                    txn.latest_seq()
                ),
            ));
        }
        let picked = plan::select(txn, sandbox.roots(), span.after, span.session.as_deref(), span.paths.as_deref());
        if let Some(seen) = guards.latest
            && let Some(newest) = picked.first().map(|(seq, _)| *seq)
            && newest > seen
        {
            return Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "Nothing was reverted: change {newest} was made after the latest change that was shown ({seen}). Look at the changes again (list_changes), then decide."
                ),
            ));
        }
        let mut plan = plan::plan(txn, sandbox, &picked, self.limits.max_file_size).map_err(|e| journal_error(&e))?;
        // The caller's view of each file.
        for (path, shown_path, expected) in &guards.sha256 {
            let now = match plan.files.get(path) {
                Some(file) => file.now.as_ref().map(|c| c.bytes.clone()),
                None => plan::read_state(sandbox, path, self.limits.max_file_size)
                    .map_err(|why| ToolError::new(ErrorCode::Conflict, format!("Nothing was reverted: {why}.")))?
                    .map(|c| c.bytes),
            };
            match (expected, now) {
                (None, None) => {}
                (None, Some(_)) => {
                    return Err(ToolError::new(
                        ErrorCode::Conflict,
                        format!(
                            "Nothing was reverted: {shown_path} exists now, and it was absent when the changes were shown. Look at the changes again, then decide."
                        ),
                    ));
                }
                (Some(sha), now) => check_sha256(Some(sha), now.as_deref(), shown_path).map_err(|e| {
                    ToolError::new(e.code, e.message.replace("No change was made", "Nothing was reverted"))
                })?,
            }
        }
        let conflicts = conflicts_of(sandbox, &plan);
        if !conflicts.is_empty() && !mode.force && !mode.dry_run {
            let named: Vec<String> = conflicts
                .iter()
                .map(|c| {
                    format!(
                        "{} ({})",
                        mcp_shared::escape::one_line(c["path"].as_str().unwrap_or_default()),
                        mcp_shared::escape::one_line(c["why"].as_str().unwrap_or_default())
                    )
                })
                .collect();
            return Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "Nothing was reverted: {} file(s) changed outside these changes since they were made, and reverting would overwrite that: {}. Look at them; then revert the rest with `force: true` (which leaves those files as they are), or limit the revert with `paths`.",
                    named.len(),
                    named.join("; ")
                ),
            ));
        }
        let mut data = self.header(sandbox, txn, span, origin);
        let (files, lines) = files_of(sandbox, &plan, Direction::Reverting);
        data["files"] = json!(files);
        data["conflicts"] = json!(conflicts);
        data["dry_run"] = json!(mode.dry_run);
        let left: String = conflicts
            .iter()
            .map(|c| {
                format!(
                    "- {}: left as it is ({})\n",
                    mcp_shared::escape::one_line(c["path"].as_str().unwrap_or_default()),
                    mcp_shared::escape::one_line(c["why"].as_str().unwrap_or_default())
                )
            })
            .collect();
        if picked.is_empty() {
            data["reverted"] = json!(false);
            return Ok((
                format!(
                    "Nothing to revert: no changes after change {} match (the latest is {}).",
                    span.after,
                    txn.latest_seq()
                ),
                data,
            ));
        }
        if mode.dry_run {
            data["reverted"] = json!(false);
            let mut text = format!(
                "Dry run: reverting the {} change(s) after change {} would take {} file(s) back to how they were then (nothing was changed). What it would do to each:\n{lines}{left}",
                picked.iter().map(|(s, _)| *s).collect::<std::collections::BTreeSet<_>>().len(),
                span.after,
                files.len()
            );
            if !conflicts.is_empty() {
                text.push_str(
                    "Without `force`, the revert would be refused because of the files above left as they are.\n",
                );
            }
            let diffs = diffs_text(&files);
            if !diffs.is_empty() {
                text.push_str("\nWhat the revert would write (each file from now to how it would be):\n");
                text.push_str(&diffs);
            }
            return Ok((text, data));
        }
        if mode.force {
            plan.conflicts.clear();
        }
        let taker = Taker { origin, kind: Kind::Revert, fsync: self.limits.fsync };
        let seq = plan::apply(txn, sandbox, &plan, &taker)
            .map_err(|e| crate::editor::undo_edit::apply_error(e, "the files"))?;
        data["reverted"] = json!(true);
        data["change"] = json!(seq);
        data["latest"] = json!(txn.latest_seq());
        let undo_hint = seq.map_or_else(String::new, |seq| {
            format!("This revert is change {seq}: revert_changes with `to: {}` takes it back.\n", seq - 1)
        });
        let mut text = format!(
            "Reverted the changes after change {}: {} file(s) are back as they were then.\n{lines}{left}{undo_hint}",
            span.after,
            files.len()
        );
        let diffs = diffs_text(&files);
        if !diffs.is_empty() {
            text.push_str("\nWhat the revert wrote (each file from before the revert to now):\n");
            text.push_str(&diffs);
        }
        Ok((text, data))
    }
}
