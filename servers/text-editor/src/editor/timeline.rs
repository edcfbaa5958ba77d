//! The changes of a span by session: when each session started, the client that made it (its
//! MCP `clientInfo`), whether it still runs, its change numbers, files and lines added and
//! removed. Sessions are numbered by the journal (from 1, at their first change), so a number
//! outlives the process: `"session:3"` names the start of session 3 as a point.

use std::collections::{BTreeMap, BTreeSet};

use mcp_shared::sandbox::Sandbox;
use serde_json::{Value, json};

use super::{Origin, other_live_session};
use crate::journal::{Change, State, Txn, plan::Plan};

/// The most sessions a timeline lists one by one (the latest).
pub const MAX_SESSIONS: usize = 50;

/// One session of a timeline.
#[derive(Debug, Default)]
struct Session {
    no: u64,
    label: String,
    client: String,
    started_ms: u64,
    changes: Vec<u64>,
    first_ms: u64,
    last_ms: u64,
    files: BTreeSet<std::path::PathBuf>,
    added: u64,
    removed: u64,
}

/// The time (milliseconds since the epoch) as RFC 3339, in UTC, to the second.
pub fn time_of(ms: u64) -> String {
    i64::try_from(ms / 1000)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .map_or_else(String::new, |t| t.to_string())
}

/// Numbers as ranges: `1-3, 5, 7-8`.
pub fn ranges(numbers: &[u64]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut at = 0;
    while at < numbers.len() {
        let start = numbers[at];
        let mut end = start;
        while at + 1 < numbers.len() && numbers[at + 1] == end + 1 {
            at += 1;
            end = numbers[at];
        }
        out.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        at += 1;
    }
    out.join(", ")
}

/// Where `change`'s session is: `"this session"`, `"running"` (another process or HTTP session
/// that may still be at work) or `"ended"`.
fn state_of(label: &str, origin: &Origin) -> &'static str {
    if label == origin.session {
        "this session"
    } else if other_live_session(label, &origin.session) {
        "running"
    } else {
        "ended"
    }
}

/// The sessions of the changes `seqs` (oldest first), with what `plan` counted of their lines.
pub fn sessions(sandbox: &Sandbox, txn: &Txn<'_>, seqs: &BTreeSet<u64>, plan: &Plan, origin: &Origin) -> Vec<Value> {
    let mut by_session: BTreeMap<(u64, String), Session> = BTreeMap::new();
    let mut order: Vec<(u64, String)> = Vec::new();
    for change in seqs.iter().filter_map(|seq| txn.change(*seq)) {
        // A change recorded before sessions were numbered is keyed by its label alone.
        let key = (change.session_no, if change.session_no > 0 { String::new() } else { change.session.clone() });
        let session = by_session.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            Session {
                no: change.session_no,
                label: change.session.clone(),
                client: change.client.clone(),
                started_ms: if change.session_started_ms > 0 { change.session_started_ms } else { change.time_ms },
                first_ms: change.time_ms,
                ..Session::default()
            }
        });
        session.changes.push(change.seq);
        session.last_ms = change.time_ms;
        for effect in change.effects.iter().filter(|e| sandbox.roots().iter().any(|r| e.path.starts_with(r))) {
            session.files.insert(effect.path.clone());
        }
        if let Some((added, removed)) = plan.lines.get(&change.seq) {
            session.added += added;
            session.removed += removed;
        }
    }
    order
        .iter()
        .filter_map(|key| by_session.remove(key))
        .map(|s| {
            json!({
                "session": if s.no > 0 { Some(s.no) } else { None },
                "label": s.label,
                "client": if s.client.is_empty() { None } else { Some(s.client.as_str()) },
                "state": state_of(&s.label, origin),
                "started": time_of(s.started_ms),
                "first_time": time_of(s.first_ms),
                "last_time": time_of(s.last_ms),
                "changes": s.changes,
                "point": s.changes.first().map(|c| c - 1),
                "files": s.files.len(),
                "added": s.added,
                "removed": s.removed,
            })
        })
        .collect()
}

/// The timeline's text: a line per session (the latest [`MAX_SESSIONS`]).
pub fn text(sessions: &[Value]) -> String {
    let mut text = String::new();
    let skip = sessions.len().saturating_sub(MAX_SESSIONS);
    if skip > 0 {
        text.push_str(&format!("[{skip} earlier session(s) not shown; pass `since` to start later.]\n"));
    }
    for s in sessions.iter().skip(skip) {
        text.push_str(&format!("{}\n", line(s)));
    }
    text
}

/// One session's line.
fn line(s: &Value) -> String {
    let changes: Vec<u64> =
        s["changes"].as_array().map_or_else(Vec::new, |a| a.iter().filter_map(Value::as_u64).collect());
    let name = s["session"].as_u64().map_or_else(|| "A session".to_owned(), |n| format!("Session {n}"));
    let client = s["client"].as_str().map_or_else(
        || "a client that did not name itself".to_owned(),
        |c| mcp_shared::escape::one_line(c).to_string(),
    );
    let point = s["session"].as_u64().map_or_else(
        || format!("`to: {}`", s["point"].as_u64().unwrap_or_default()),
        |n| format!("`to: \"session:{n}\"` (or {})", s["point"].as_u64().unwrap_or_default()),
    );
    format!(
        "- {name}: {client}, started {}, {}; change{} {} ({} to {}); {} file(s), +{} -{}; the point before it: {point}",
        s["started"].as_str().unwrap_or_default(),
        s["state"].as_str().unwrap_or_default(),
        if changes.len() == 1 { "" } else { "s" },
        ranges(&changes),
        s["first_time"].as_str().unwrap_or_default(),
        s["last_time"].as_str().unwrap_or_default(),
        s["files"].as_u64().unwrap_or_default(),
        s["added"].as_u64().unwrap_or_default(),
        s["removed"].as_u64().unwrap_or_default(),
    )
}

/// The session before the caller's, with changes inside `sandbox`'s roots: its number (0 when
/// it has none), client, start and first change; `None` when there is none.
pub fn previous(sandbox: &Sandbox, txn: &Txn<'_>, origin: &Origin) -> Option<(u64, String, u64, u64)> {
    let inside = |c: &&Change| {
        c.state == State::Done
            && c.session != origin.session
            && c.effects.iter().any(|e| sandbox.roots().iter().any(|r| e.path.starts_with(r)))
    };
    let last = txn.changes().iter().rev().find(inside)?;
    let first = txn.changes().iter().filter(inside).find(|c| c.session == last.session)?;
    let started = if last.session_started_ms > 0 { last.session_started_ms } else { first.time_ms };
    Some((last.session_no, last.client.clone(), started, first.seq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_ranges() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[4]), "4");
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1-3, 5, 7-8");
    }

    #[test]
    fn times_are_utc_to_the_second() {
        assert_eq!(time_of(1_765_151_999_999), "2025-12-07T23:59:59Z");
        assert_eq!(time_of(0), "1970-01-01T00:00:00Z");
    }
}
