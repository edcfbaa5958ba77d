//! Who makes a change, as the journal records it: the tool and the session, and whether another
//! session is still at work.

use crate::journal;

/// Who makes a change: the tool (and command) and the session, as the journal records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The tool, e.g. `text_editor str_replace`.
    pub tool: String,
    /// The session ([`session_label`]).
    pub session: String,
}

impl Default for Origin {
    fn default() -> Self {
        Origin { tool: "text_editor".to_owned(), session: process_session().to_owned() }
    }
}

/// This process's session label: `process-<pid>-<start>` (every call over stdio, and every
/// sessionless HTTP request, belongs to it).
pub fn process_session() -> &'static str {
    static LABEL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LABEL.get_or_init(|| {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        format!("process-{}-{:x}", std::process::id(), (nanos as u64) & 0xffff_ffff)
    })
}

/// The session label of an HTTP session: this process's, and a hash of its id (the id itself
/// admits to the session, so it is not written down); `None`: this process's
/// ([`process_session`]).
pub fn session_label(session_id: Option<&str>) -> String {
    match session_id {
        Some(id) => {
            format!("{}/http-{:012x}", process_session(), journal::fingerprint(id.as_bytes()) & 0xffff_ffff_ffff)
        }
        None => process_session().to_owned(),
    }
}

/// Whether the session `label` is another one than `mine` that may still be at work: another
/// HTTP session of this process, or a session of another server process that is still running.
/// A stopped server's sessions are over: their changes are anyone's to undo.
pub fn other_live_session(label: &str, mine: &str) -> bool {
    if label == mine {
        return false;
    }
    let process = label.split('/').next().unwrap_or_default();
    if process == process_session() {
        return true;
    }
    let pid = process.strip_prefix("process-").and_then(|rest| rest.split('-').next()).and_then(|p| p.parse().ok());
    pid.is_some_and(mcp_shared::platform::process_alive)
}
