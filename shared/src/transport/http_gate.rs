//! What the HTTP endpoint checks around rmcp's Streamable HTTP service, so that every refusal
//! has the status a client can act on:
//!
//! - a request with two `Host` headers is `400` (RFC 9112 §3.2): the second could slip past the
//!   host allow-list, which reads one;
//! - a `POST` body that does not arrive in time is `408` (not `500`), one over
//!   `--max-message-bytes` stays `413`;
//! - a body that is not JSON, not UTF-8 or not a JSON-RPC message is `400` with a JSON-RPC error
//!   (`-32700` / `-32600`, under the message's id when it shows one), where rmcp answers `415`
//!   although the media type was right;
//! - `DELETE` of a session that does not exist is `404`; of one that does, `204` (rmcp's `202`
//!   makes the Python SDK log a failure);
//! - at `--max-sessions`, a new session takes the place of the least recently used idle one,
//!   those that never got past `initialize` first; a session with a call in flight is never
//!   ended. Only when every session is busy is the newcomer refused (`503`). A flood of
//!   abandoned sessions therefore never locks a real client out;
//! - under OAuth a session belongs to the token's subject and client that opened it
//!   ([`SessionOwner`]): a request for it with another principal's token is `404`, as for a
//!   session that does not exist (the MCP security guidance: bind a session to its user).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};

use axum::{
    body::{Body, Bytes},
    extract::{Request, State},
    http::{HeaderValue, Method, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use tokio_util::sync::CancellationToken;

use super::{
    jsonrpc::refusal_of,
    listener::{BodyTimedOut, HoldingBody},
    sessions::Sessions,
};

/// `400` for a request with more than one `Host` header, `None` for one that has at most one.
/// The listener asks before the router sees the request, for every path.
pub fn two_hosts<B>(request: &axum::http::Request<B>) -> Option<Response> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    hosts.next()?;
    hosts.next()?;
    Some((StatusCode::BAD_REQUEST, "Bad Request: more than one Host header.\n").into_response())
}

/// Where a check hands a request on: the next check, or the endpoint. Each check is a plain
/// function that takes its continuation, so that [`McpGate`] runs them all as one layer: axum
/// clones a route's whole stack of layers for every request, and each `from_fn` layer clones
/// everything below it once more.
pub trait Onward: FnOnce(Request) -> Self::Answer + Send {
    /// The answer's future.
    type Answer: Future<Output = Response> + Send;
}

impl<F, Fut> Onward for F
where
    F: FnOnce(Request) -> Fut + Send,
    Fut: Future<Output = Response> + Send,
{
    type Answer = Fut;
}

/// Who may use the MCP endpoint.
pub enum Auth {
    /// `--http-token` (none: anyone, as `anonymous`).
    Token(Arc<Option<String>>),
    /// OAuth access tokens (`--auth-issuer`), checked by the resource server.
    OAuth(Arc<super::oauth::ResourceServer>),
}

/// Every check in front of the MCP endpoint, run by [`mcp_gate`] as one layer.
pub struct McpGate {
    /// The caller: [`super::http::require_token`] or [`super::oauth::gate`].
    pub auth: Auth,
    /// The session bookkeeping and cap: [`sessions`].
    pub sessions: Arc<SessionGate>,
    /// The body: [`check_body`], which also answers a sessionless call directly.
    pub limits: BodyLimits,
    /// SSE priming events by revision ([`super::priming::by_version`]): with sessions, whose
    /// answers stream SSE.
    pub priming: bool,
}

/// The checks of [`McpGate`] in their order: the caller, then the sessions, then the body, then
/// (with sessions) the priming events, then the endpoint. The first that refuses answers.
pub async fn mcp_gate(State(checks): State<Arc<McpGate>>, request: Request, next: Next) -> Response {
    gate(&checks, request, move |request| next.run(request)).await
}

/// [`mcp_gate`] in front of `next`, as the router's layer or without the router
/// ([`super::http::McpRoute`]).
pub async fn gate<F: Onward>(checks: &McpGate, request: Request, next: F) -> Response {
    let after_auth = move |request: Request| async move {
        sessions(&checks.sessions, request, move |request: Request| async move {
            check_body(&checks.limits, request, move |request: Request| async move {
                if checks.priming { super::priming::by_version(request, next).await } else { next(request).await }
            })
            .await
        })
        .await
    };
    match &checks.auth {
        Auth::Token(token) => super::http::require_token(token, request, after_auth).await,
        Auth::OAuth(rs) => super::oauth::gate(rs, request, after_auth).await,
    }
}

/// What [`check_body`] needs.
#[derive(Clone)]
pub struct BodyLimits {
    /// `--max-message-bytes`.
    pub max_bytes: usize,
    /// The direct answer to a sessionless `tools/call` ([`super::fast_call`]), when enabled: it
    /// runs here, on the body just read, rather than as one more layer.
    pub direct: Option<Arc<super::fast_call::FastCalls>>,
}

/// Reads a `POST` body whole (bounded by `--max-message-bytes`, and by the listener's deadline)
/// before rmcp does, so that a late body is `408` and a body rmcp cannot parse is `400` with a
/// JSON-RPC error.
pub async fn check_body<F: Onward>(limits: &BodyLimits, request: Request, next: F) -> Response {
    if request.method() != Method::POST {
        return next(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match collect(body, limits.max_bytes).await {
        Ok(bytes) => bytes,
        Err(Refused::TooLarge) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: the request body exceeds this server's limit of {} bytes (--max-message-bytes).\n",
                    limits.max_bytes
                ),
            )
                .into_response();
        }
        Err(Refused::TimedOut) => {
            let mut response =
                (StatusCode::REQUEST_TIMEOUT, "Request Timeout: the request body did not arrive in time.\n")
                    .into_response();
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
        Err(Refused::Broken(why)) => {
            return (StatusCode::BAD_REQUEST, format!("Bad Request: the request body could not be read: {why}.\n"))
                .into_response();
        }
    };
    let json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    let parts = match &limits.direct {
        Some(direct) => match super::fast_call::try_answer(direct, parts, &bytes).await {
            Ok(response) => return response,
            Err(parts) => parts,
        },
        None => parts,
    };
    let response = next(Request::from_parts(parts, Body::from(bytes.clone()))).await;
    // rmcp answers 415 for a JSON body it cannot deserialize, even when the media type is right.
    if json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        let error = serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(&bytes).err();
        let mut refusal = (StatusCode::BAD_REQUEST, refusal_of(&bytes, error.as_ref())).into_response();
        refusal.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        return refusal;
    }
    response
}

enum Refused {
    TooLarge,
    TimedOut,
    Broken(String),
}

async fn collect(body: Body, max: usize) -> Result<Bytes, Refused> {
    use http_body::Body as _;
    let mut body = std::pin::pin!(body);
    let mut collected = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(|e| {
            let inner = e.into_inner();
            if inner.is::<BodyTimedOut>() { Refused::TimedOut } else { Refused::Broken(inner.to_string()) }
        })?;
        if let Ok(data) = frame.into_data() {
            if data.len() > max.saturating_sub(collected.len()) {
                return Err(Refused::TooLarge);
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(collected))
}

/// Who a request speaks for, when that decides whose sessions it may use (OAuth: the token's
/// subject and client), an extension of the request set by the caller's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOwner(pub Arc<str>);

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
    manager: Arc<Sessions>,
    max: usize,
    tracks: Mutex<HashMap<Arc<str>, Track>>,
}

impl SessionGate {
    /// A gate over `manager`'s sessions, at most `max` of them.
    pub fn new(manager: Arc<Sessions>, max: usize) -> SessionGate {
        SessionGate { manager, max, tracks: Mutex::new(HashMap::new()) }
    }

    /// Ends every session that has had no request for `idle`, and no `POST` being answered,
    /// until `stop`. rmcp's own idle timeout counts only the messages that pass through its
    /// session worker, which a session's direct calls ([`super::sessions`]) do not; this one
    /// counts every request, and never ends a session while one of its calls is answered.
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
        let open: Vec<Arc<str>> = self.manager.local.sessions.read().await.keys().cloned().collect();
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
        let open: Vec<Arc<str>> = self.manager.local.sessions.read().await.keys().cloned().collect();
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
            if !gate.manager.local.sessions.read().await.contains_key(&id) {
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
            let open = gate.manager.local.sessions.read().await.len();
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
