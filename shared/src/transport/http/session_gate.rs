//! The sessions of the HTTP endpoint, around rmcp's local session manager:
//!
//! - `DELETE` of a session that does not exist is `404`; of one that does, `204` (rmcp's `202`
//!   makes the Python SDK log a failure);
//! - at `--max-sessions`, a new session takes the place of the least recently used idle one,
//!   those that never got past `initialize` first; a session with a call in flight is never
//!   ended. Only when every session is busy is the newcomer refused (`503`). A flood of
//!   abandoned sessions therefore never locks a real client out;
//! - a session without a request for `--session-idle-timeout` (and no call in flight) is ended;
//! - under OAuth a session belongs to the token's subject and client that opened it
//!   ([`SessionOwner`]): a request for it with another principal's token is `404`, as for a
//!   session that does not exist (the MCP security guidance: bind a session to its user).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};

use axum::{
    body::Body,
    extract::Request,
    http::{HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};
use rmcp::transport::streamable_http_server::session::{SessionManager as _, local::LocalSessionManager};
use tokio_util::sync::CancellationToken;

use super::wire::{HoldingBody, Onward, SessionOwner};

/// What rmcp answers for a session that does not exist; the same for one of someone else.
const NO_SUCH_SESSION: &str = "Not Found: Session not found";

/// What the server knows of one session beyond rmcp's map.
#[derive(Debug, Clone)]
struct Track {
    /// When a request of it last came.
    last: Instant,
    /// `POST`s of it being answered now.
    in_flight: usize,
    /// It sent something after its `initialize` (so its client has it).
    established: bool,
    /// Whom it belongs to, under OAuth.
    owner: Option<SessionOwner>,
}

/// The sessions, the cap, and the idle timeout.
pub struct SessionGate {
    manager: Arc<LocalSessionManager>,
    max: usize,
    tracks: Mutex<HashMap<Arc<str>, Track>>,
}

impl SessionGate {
    /// A gate over `manager`'s sessions, at most `max` of them.
    pub fn new(manager: Arc<LocalSessionManager>, max: usize) -> SessionGate {
        SessionGate { manager, max, tracks: Mutex::new(HashMap::new()) }
    }

    /// Ends every session that has had no request for `idle`, and no `POST` being answered,
    /// until `stop`. rmcp's own idle timeout counts only the messages that pass through its
    /// session worker (not the `GET` and `DELETE` requests, nor how long an answer takes);
    /// this one counts every request, and never ends a session while one of its calls is
    /// answered.
    pub fn sweep_idle(self: &Arc<Self>, idle: Duration, stop: CancellationToken) {
        let gate = Arc::clone(self);
        // Ended at most a quarter of the timeout late (and never checked more than 20 times a second).
        let every = (idle / 4).max(Duration::from_millis(50));
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    _ = ticks.tick() => gate.end_idle(idle).await,
                }
            }
        });
    }

    async fn end_idle(&self, idle: Duration) {
        let open: Vec<Arc<str>> = self.manager.sessions.read().await.keys().cloned().collect();
        let now = Instant::now();
        let idle_ones: Vec<Arc<str>> = {
            let mut tracks = self.tracks_of(&open);
            open.iter()
                .filter(|id| {
                    // One this gate did not see open starts its clock now.
                    let track = tracks.entry(Arc::clone(id)).or_insert(Track {
                        last: now,
                        in_flight: 0,
                        established: false,
                        owner: None,
                    });
                    track.in_flight == 0 && now.duration_since(track.last) >= idle
                })
                .cloned()
                .collect()
        };
        for id in idle_ones {
            self.tracks().remove(&id);
            if let Err(error) = self.manager.close_session(&id).await {
                tracing::warn!(%error, "could not end an idle session");
            }
            tracing::debug!(session = %id, "session ended after --session-idle-timeout without a request");
        }
    }

    /// The sessions open now (for `/metrics`).
    pub fn open_sessions(&self) -> usize {
        self.tracks().len()
    }

    fn tracks(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Track>> {
        self.tracks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The tracks, without those of sessions no longer `open` (ended without this gate: a
    /// `DELETE`, the session's service failing, rmcp's `initialize` timeout).
    fn tracks_of(&self, open: &[Arc<str>]) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Track>> {
        let mut tracks = self.tracks();
        if tracks.len() > open.len() {
            let alive: std::collections::HashSet<&Arc<str>> = open.iter().collect();
            tracks.retain(|id, _| alive.contains(id));
        }
        tracks
    }

    /// Ends the idle session to give way, if there is one: never-established ones first, then
    /// the least recently used. `false` when every open session has a call in flight.
    async fn evict_one(&self) -> bool {
        let open: Vec<Arc<str>> = self.manager.sessions.read().await.keys().cloned().collect();
        let victim = {
            let tracks = self.tracks_of(&open);
            open.iter()
                .filter_map(|id| {
                    let track = tracks.get(id).map(|t| (t.in_flight, t.established, t.last));
                    match track {
                        Some((in_flight, ..)) if in_flight > 0 => None,
                        // Unknown to us: opened while we were not looking; as good as idle.
                        None => Some((false, None, id)),
                        Some((_, established, last)) => Some((established, Some(last), id)),
                    }
                })
                .min_by_key(|(established, last, _)| (*established, *last))
                .map(|(_, _, id)| Arc::clone(id))
        };
        let Some(victim) = victim else { return false };
        self.tracks().remove(&victim);
        if let Err(error) = self.manager.close_session(&victim).await {
            tracing::warn!(%error, "could not end an idle session to make room");
        }
        tracing::debug!(session = %victim, "session cap reached: ended the least recently used idle session");
        true
    }
}

/// Counts a session's `POST` as in flight until its response body is done.
struct InFlight {
    gate: Arc<SessionGate>,
    id: Arc<str>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(track) = self.gate.tracks().get_mut(&self.id) {
            track.in_flight = track.in_flight.saturating_sub(1);
            track.last = Instant::now();
        }
    }
}

impl SessionGate {
    /// Whether `id` belongs to someone other than the request's owner (a session opened under
    /// OAuth, used with another principal's token).
    fn foreign(&self, id: &str, request: &Request) -> bool {
        let Some(owner) = request.extensions().get::<SessionOwner>() else { return false };
        self.tracks().get(id).is_some_and(|track| track.owner.as_ref().is_some_and(|o| o != owner))
    }
}

/// The session bookkeeping and the cap (see the module docs).
pub async fn sessions<F: Onward>(gate: &Arc<SessionGate>, request: Request, next: F) -> Response {
    let session: Option<Arc<str>> =
        request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(Arc::from);
    if let Some(id) = &session
        && gate.foreign(id, &request)
    {
        tracing::debug!(session = %id, "a session used with another principal's token: 404");
        return (StatusCode::NOT_FOUND, NO_SUCH_SESSION).into_response();
    }
    let method = request.method().clone();
    match (&method, session) {
        (&Method::DELETE, Some(id)) => {
            if !gate.manager.sessions.read().await.contains_key(&id) {
                return (StatusCode::NOT_FOUND, "Not Found: no such session (it ended, or never existed).\n")
                    .into_response();
            }
            gate.tracks().remove(&id);
            let mut response = next(request).await;
            if response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
                *response.body_mut() = Body::empty();
            }
            response
        }
        (&Method::POST, Some(id)) => {
            // Only sessions this gate saw open are tracked: an unknown id (ended, or made up)
            // adds nothing here, and rmcp answers it 404.
            let in_flight = gate.tracks().get_mut(&id).map(|track| {
                track.in_flight += 1;
                track.established = true;
                track.last = Instant::now();
            });
            let response = next(request).await;
            match in_flight {
                Some(()) => {
                    response.map(|inner| Body::new(HoldingBody::new(inner, InFlight { gate: Arc::clone(gate), id })))
                }
                None => response,
            }
        }
        (&Method::POST, None) if gate.max != usize::MAX => {
            let open = gate.manager.sessions.read().await.len();
            if open >= gate.max && !gate.evict_one().await {
                tracing::debug!(open, "session cap reached and every session is busy: 503");
                let mut response = (
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!(
                        "Too many open sessions ({open}, the limit is {}), each with a call in progress: retry \
                         later.\n",
                        gate.max
                    ),
                )
                    .into_response();
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("10"));
                return response;
            }
            let owner = request.extensions().get::<SessionOwner>().cloned();
            let response = next(request).await;
            if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                let track = Track { last: Instant::now(), in_flight: 0, established: false, owner };
                gate.tracks().insert(Arc::from(id), track);
            }
            response
        }
        (_, Some(id)) => {
            if let Some(track) = gate.tracks().get_mut(&id) {
                track.last = Instant::now();
                track.established = true;
            }
            next(request).await
        }
        (_, None) => next(request).await,
    }
}
