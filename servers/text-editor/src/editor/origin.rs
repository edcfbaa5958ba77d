//! Who makes a change, as the journal records it: the tool and the session, and whether another
//! session is still at work.

use crate::journal;

pub use journal::Origin;

impl Origin {
    /// Who makes a change with `tool` in the call `ctx`: its session, the client as it named
    /// itself in `initialize` (`clientInfo`), and when the session started (this process's
    /// start over stdio; its first call over HTTP).
    pub fn of(tool: &str, ctx: &mcp_shared::ToolContext) -> Origin {
        let session = session_label(ctx.session());
        let client = ctx
            .peer()
            .and_then(|peer| peer.peer_info())
            .map(|info| {
                let name = info.client_info.title.as_deref().unwrap_or(&info.client_info.name);
                format!("{name} {}", info.client_info.version).trim().to_owned()
            })
            .unwrap_or_default();
        let started_ms = started(&session);
        Origin { tool: tool.to_owned(), session, client, started_ms }
    }

    /// Who makes a change from this process's command line (`revert`): its session, named
    /// `client`.
    pub fn command(tool: &str, client: &str) -> Origin {
        let session = process_session().to_owned();
        Origin { tool: tool.to_owned(), started_ms: started(&session), session, client: client.to_owned() }
    }
}

impl Default for Origin {
    fn default() -> Self {
        Origin::new("text_editor", process_session())
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// When the session `label` started: the first time this process saw it (this process's
/// start for its own session). At most [`MAX_REMEMBERED`] sessions are remembered; a later one
/// starts at its first call.
fn started(label: &str) -> u64 {
    static SEEN: std::sync::Mutex<Option<std::collections::HashMap<String, u64>>> = std::sync::Mutex::new(None);
    static START: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let process_start = *START.get_or_init(now_ms);
    if label == process_session() {
        return process_start;
    }
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let seen = seen.get_or_insert_with(Default::default);
    if let Some(ms) = seen.get(label) {
        return *ms;
    }
    let now = now_ms();
    if seen.len() < MAX_REMEMBERED {
        seen.insert(label.to_owned(), now);
    }
    now
}

/// The most HTTP sessions whose start a process remembers.
const MAX_REMEMBERED: usize = 10_000;

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
