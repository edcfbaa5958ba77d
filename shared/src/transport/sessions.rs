//! The sessions of the HTTP endpoint: rmcp's local session manager, with a session's
//! `tools/call` answered where the request arrives.
//!
//! rmcp routes every request of a session through four tasks: the HTTP handler hands the
//! message to the session's worker task, which hands it to the session's serve loop, which
//! spawns the tool's handler as a task of its own; the answer goes back the same way, and out
//! through the request's SSE stream. For a call whose answer is ready at once that is most of
//! its cost (wake-ups, task switches, moves of large futures; `bench/flame-session.svg`), and
//! each hop is a write of its own on the wire (the stream's first event, then the answer).
//!
//! [`Sessions`] is a [`SessionManager`] in front of rmcp's [`LocalSessionManager`] that keeps
//! everything rmcp does (the session map, `initialize`, `GET` streams, `DELETE`, the handler's
//! serve loop for every other message) and takes one thing over: a `tools/call` of a session
//! is run in the HTTP connection's own task, as the body of its SSE stream, when
//!
//! - the server was not started with `--no-direct-calls`;
//! - the session's `initialize` registered its peer (see [`PeerSlot`]);
//! - the request asks for no progress (progress notifications would go through rmcp's worker);
//! - the tool exists, and needs nothing from the client first: a server that reads the
//!   client's roots answers directly only once it knows them (or the client declares none),
//!   because asking (`roots/list`) is a request the client must receive on this stream.
//!
//! What a session gives a call is kept:
//!
//! - **The stream**: the same SSE response, its priming event first (an event id and `retry`,
//!   SEP-1699), then the answer; a call that takes time shows its open stream at once, as
//!   before, and the answer follows with no write in between when it is ready at once.
//! - **Resumption**: every stream's events have ids (`0/d<n>`, `1/d<n>`) that a `GET` with
//!   `Last-Event-ID` resumes; the answer of each of the session's latest [`KEPT_STREAMS`]
//!   streams is kept for that, [`KEPT_FOR`] after it was ready (as rmcp keeps a finished
//!   stream's events). A client that goes away does not cancel the call (as with rmcp:
//!   a disconnection is not a cancellation); the call goes on in a task of its own and the
//!   client that resumes gets its answer.
//! - **Cancellation**: `notifications/cancelled` naming the call's id cancels it, as does the
//!   session's end (`DELETE`, the idle timeout, the session cap, the server's shutdown). A
//!   cancelled call answers nothing (MCP's "SHOULD NOT respond" to a cancelled request, as
//!   [`crate::server`] promises).
//! - The handler, its context (`_meta`, the HTTP request's head, the session's peer and client
//!   information), the call's timeout, its log line and metrics are the same.
//!
//! Everything else goes to rmcp unchanged.

use std::{
    collections::{HashMap, VecDeque},
    pin::Pin,
    sync::{
        Arc, Mutex, OnceLock, PoisonError,
        atomic::{AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use futures::{Stream, StreamExt as _};
use rmcp::{
    RoleServer, Service as _,
    model::{
        ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions as _, GetMeta as _, RequestId,
        RequestParamsMeta as _, ServerJsonRpcMessage,
    },
    service::{Peer, RequestContext},
    transport::streamable_http_server::session::{
        ServerSseMessage, SessionId, SessionManager,
        local::{LocalSessionManager, LocalSessionManagerError},
    },
};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::server::McpServer;

/// The streams of a session whose events a `GET` with `Last-Event-ID` can still resume, at most.
pub const KEPT_STREAMS: usize = 64;

/// How long a finished stream's answer is kept for a client that resumes (rmcp's
/// `completed_cache_ttl`).
pub const KEPT_FOR: Duration = Duration::from_secs(60);

/// The prefix of a direct stream's number in its event ids (`<index>/d<stream>`), which rmcp's
/// own ids (`<index>/<number>`) never have.
const DIRECT: &str = "d";

/// Put in the extensions of a session's `initialize` request: the server's `initialize`
/// handler fills it with the session's peer ([`McpServer`] does), which the direct calls of
/// the session are given.
#[derive(Clone, Default)]
pub struct PeerSlot(pub Arc<OnceLock<Peer<RoleServer>>>);

/// See the module docs.
pub struct Sessions {
    /// rmcp's session manager, which has every session.
    pub local: LocalSessionManager,
    server: McpServer,
    /// Off with `--no-direct-calls`.
    direct: bool,
    /// The `retry` of every stream's priming event (rmcp's `sse_retry`); no priming event
    /// without it.
    retry: Option<Duration>,
    /// Cancelled at shutdown: every session's calls end.
    shutdown: CancellationToken,
    open: Mutex<HashMap<SessionId, Arc<Session>>>,
}

/// A call [`Sessions::takes`] took: its session and the session's peer.
pub struct Taken {
    session: Arc<Session>,
    peer: Peer<RoleServer>,
}

/// What the direct calls of one session share.
struct Session {
    peer: PeerSlot,
    /// Cancelled when the session ends.
    ct: CancellationToken,
    next_stream: AtomicU64,
    /// The calls running, by request id, for `notifications/cancelled`.
    calls: Mutex<HashMap<RequestId, CancellationToken>>,
    /// The latest streams, for resumption: their number and their answer.
    streams: Mutex<VecDeque<(u64, Arc<Slot>)>>,
}

/// Where a direct call's answer is kept for a resumption, which waits on `ready`.
struct Slot {
    answer: Mutex<Answer>,
    ready: Notify,
}

impl Slot {
    fn answer(&self) -> Answer {
        lock(&self.answer).clone()
    }

    fn is_running(&self) -> bool {
        matches!(*lock(&self.answer), Answer::Running)
    }

    /// The answer once the call has settled.
    async fn settled(&self) -> Answer {
        loop {
            let ready = self.ready.notified();
            tokio::pin!(ready);
            // Registered before the check: a settlement in between still wakes this.
            ready.as_mut().enable();
            if !self.is_running() {
                return self.answer();
            }
            ready.await;
        }
    }
}

/// A direct call's answer, as far as it is known.
#[derive(Clone)]
enum Answer {
    Running,
    /// The answer event (with its id), and when it was ready.
    Sent(ServerSseMessage, Instant),
    /// Cancelled: no answer.
    None(Instant),
}

impl Answer {
    /// Whether a resumption can no longer ask for it: finished longer than [`KEPT_FOR`] ago.
    fn expired(&self, now: Instant) -> bool {
        match self {
            Answer::Running => false,
            Answer::Sent(_, at) | Answer::None(at) => now.duration_since(*at) >= KEPT_FOR,
        }
    }
}

/// The id of event `index` (`"0"`, `"1"`) of direct stream `number`: `<index>/d<number>`.
fn event_id(index: &str, number: u64) -> String {
    let mut digits = itoa::Buffer::new();
    let number = digits.format(number);
    let mut id = String::with_capacity(index.len() + number.len() + 2);
    id.push_str(index);
    id.push('/');
    id.push_str(DIRECT);
    id.push_str(number);
    id
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Sessions {
    /// rmcp's `local` manager, with direct calls to `server` unless `direct` is false.
    pub fn new(local: LocalSessionManager, server: McpServer, direct: bool, shutdown: CancellationToken) -> Self {
        let retry = local.session_config.sse_retry;
        Sessions { local, server, direct, retry, shutdown, open: Mutex::new(HashMap::new()) }
    }

    fn session(&self, id: &SessionId) -> Option<Arc<Session>> {
        lock(&self.open).get(id).cloned()
    }

    /// Whether session `session_id`'s `request` is a call to answer directly (see the module
    /// docs); what [`Self::call_directly`] needs if so.
    pub(crate) fn takes(&self, session_id: &str, request: &ClientRequest) -> Option<Taken> {
        if !self.direct {
            return None;
        }
        let session = lock(&self.open).get(session_id).cloned()?;
        let peer = self.eligible(&session, request)?;
        Some(Taken { session, peer })
    }

    /// The direct stream of `tools/call` request `id`, which [`Self::takes`] took; `parts` is
    /// its HTTP request's head ([`super::session_call`] read the body rmcp would have read).
    /// `priming`: whether the request's revision has priming events.
    pub(crate) fn call_directly(
        &self,
        taken: Taken,
        id: RequestId,
        request: ClientRequest,
        parts: axum::http::request::Parts,
        priming: bool,
    ) -> DirectStream {
        let mut extensions = rmcp::model::Extensions::new();
        extensions.insert(parts);
        self.start(&taken.session, id, request, extensions, taken.peer, priming)
    }

    /// The session's peer, when `request` is a call to answer directly.
    fn eligible(&self, session: &Session, request: &ClientRequest) -> Option<Peer<RoleServer>> {
        let ClientRequest::CallToolRequest(call) = request else {
            return None;
        };
        let peer = session.peer.0.get()?;
        (request.get_meta().get_progress_token().is_none()
            && call.params.progress_token().is_none()
            && self.server.answers_directly(&call.params.name, peer))
        .then(|| peer.clone())
    }

    /// Starts the call (see the module docs).
    fn start(
        &self,
        session: &Arc<Session>,
        id: RequestId,
        mut request: ClientRequest,
        extensions: rmcp::model::Extensions,
        peer: Peer<RoleServer>,
        priming: bool,
    ) -> DirectStream {
        let number = session.next_stream.fetch_add(1, Ordering::Relaxed);
        let request_ct = session.ct.child_token();
        lock(&session.calls).insert(id.clone(), request_ct.clone());
        let answer = Arc::new(Slot { answer: Mutex::new(Answer::Running), ready: Notify::new() });
        {
            let mut streams = lock(&session.streams);
            // The oldest first: what finished long enough ago is forgotten.
            let now = Instant::now();
            while streams.front().is_some_and(|(_, a)| lock(&a.answer).expired(now)) {
                streams.pop_front();
            }
            if streams.len() >= KEPT_STREAMS {
                // The oldest finished stream gives way; running ones stay resumable.
                let finished = streams.iter().position(|(_, a)| !a.is_running());
                streams.remove(finished.unwrap_or(0));
            }
            streams.push_back((number, Arc::clone(&answer)));
        }
        let mut context = RequestContext::new(id.clone(), peer);
        context.ct = request_ct.child_token();
        context.meta = std::mem::take(request.get_meta_mut());
        context.extensions = extensions;
        let server = self.server.clone();
        let session = Arc::clone(session);
        let answer_id = event_id("1", number);
        let call = async move {
            // Whatever ends this future (an answer, a cancellation, the runtime going away)
            // settles the stream's answer and forgets the call.
            let mut settle = Settle { session, id: id.clone(), answer, sent: None };
            let result = tokio::select! {
                biased;
                () = request_ct.cancelled() => None,
                result = server.handle_request(request, context) => Some(result),
            };
            let event = result.map(|result| {
                let message = match result {
                    Ok(result) => ServerJsonRpcMessage::response(result, id),
                    Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
                };
                let mut event = ServerSseMessage::from_message(message);
                event.event_id = Some(answer_id);
                event
            });
            settle.sent.clone_from(&event);
            event
        };
        let priming =
            self.retry.filter(|_| priming).map(|retry| ServerSseMessage::priming(event_id("0", number), retry));
        tracing::debug!(stream = number, "tools/call of a session answered directly");
        DirectStream { priming, call: Some(Mutex::new(Box::pin(call))) }
    }

    /// The events of direct stream `number` after event `index`, the answer awaited if the call
    /// still runs; `None` when the session keeps no such stream.
    fn resume_direct(&self, id: &SessionId, last_event_id: &str) -> Option<Option<ResumedStream>> {
        let (index, number) = last_event_id.split_once('/')?;
        let number = number.strip_prefix(DIRECT)?;
        let (Ok(index), Ok(number)) = (index.parse::<u64>(), number.parse::<u64>()) else {
            return Some(None);
        };
        let session = self.session(id)?;
        let answer = lock(&session.streams).iter().find(|(n, _)| *n == number).map(|(_, a)| Arc::clone(a));
        let Some(answer) = answer else {
            return Some(None);
        };
        Some(Some(Box::pin(
            futures::stream::once(async move {
                if index > 0 {
                    return None;
                }
                match answer.settled().await {
                    Answer::Sent(event, _) => Some(event),
                    _ => None,
                }
            })
            .filter_map(std::future::ready),
        )))
    }
}

type ResumedStream = Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>;

/// Settles a direct call when its future ends, however it ends.
struct Settle {
    session: Arc<Session>,
    id: RequestId,
    answer: Arc<Slot>,
    sent: Option<ServerSseMessage>,
}

impl Drop for Settle {
    fn drop(&mut self) {
        lock(&self.session.calls).remove(&self.id);
        let now = Instant::now();
        let answer = self.sent.take().map_or(Answer::None(now), |event| Answer::Sent(event, now));
        *lock(&self.answer.answer) = answer;
        self.answer.ready.notify_waiters();
    }
}

type Call = Pin<Box<dyn Future<Output = Option<ServerSseMessage>> + Send>>;

/// A direct call's SSE stream: the priming event, then the call's answer.
pub struct DirectStream {
    priming: Option<ServerSseMessage>,
    /// Behind a mutex only so that the stream is `Sync` as rmcp asks; only `get_mut` is used.
    call: Option<Mutex<Call>>,
}

impl Stream for DirectStream {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerSseMessage>> {
        if let Some(priming) = self.priming.take() {
            return Poll::Ready(Some(priming));
        }
        let Some(call) = self.call.as_mut() else {
            return Poll::Ready(None);
        };
        let answer = match call.get_mut() {
            Ok(call) => call.as_mut().poll(cx),
            Err(poisoned) => poisoned.into_inner().as_mut().poll(cx),
        };
        match answer {
            Poll::Pending => Poll::Pending,
            Poll::Ready(event) => {
                self.call = None;
                Poll::Ready(event)
            }
        }
    }
}

impl Drop for DirectStream {
    /// The client went away before the answer: the call goes on, for a client that resumes.
    fn drop(&mut self) {
        let Some(call) = self.call.take() else { return };
        let call = call.into_inner().unwrap_or_else(PoisonError::into_inner);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(call);
        }
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.local.create_session().await?;
        let session = Session {
            peer: PeerSlot::default(),
            ct: self.shutdown.child_token(),
            next_stream: AtomicU64::new(0),
            calls: Mutex::new(HashMap::new()),
            streams: Mutex::new(VecDeque::new()),
        };
        lock(&self.open).insert(id.clone(), Arc::new(session));
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        if let (Some(session), ClientJsonRpcMessage::Request(request)) = (self.session(id), &mut message) {
            request.request.extensions_mut().insert(session.peer.clone());
        }
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        if let Some(session) = lock(&self.open).remove(id) {
            session.ct.cancel();
        }
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let taken = match &message {
            ClientJsonRpcMessage::Request(request) => self.takes(id, &request.request),
            _ => None,
        };
        let message = match (taken, message) {
            (Some(taken), ClientJsonRpcMessage::Request(mut request)) => {
                let extensions = std::mem::take(request.request.extensions_mut());
                let stream = self.start(&taken.session, request.id, request.request, extensions, taken.peer, true);
                return Ok(futures::future::Either::Left(stream));
            }
            (_, message) => message,
        };
        Ok(futures::future::Either::Right(self.local.create_stream(id, message).await?))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        if let ClientJsonRpcMessage::Notification(notification) = &message
            && let ClientNotification::CancelledNotification(cancelled) = &notification.notification
            && let Some(request_id) = cancelled.params.request_id.as_ref()
            && let Some(session) = self.session(id)
            && let Some(ct) = lock(&session.calls).remove(request_id)
        {
            tracing::info!(id = %request_id, reason = cancelled.params.reason, "cancelled");
            ct.cancel();
        }
        self.local.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        match self.resume_direct(id, &last_event_id) {
            Some(Some(stream)) => Ok(futures::future::Either::Left(stream)),
            // A direct stream's id the session no longer keeps: an empty stream, as rmcp ends
            // a resumption it cannot serve.
            Some(None) => Ok(futures::future::Either::Left(Box::pin(futures::stream::empty()) as ResumedStream)),
            None => Ok(futures::future::Either::Right(self.local.resume(id, last_event_id).await?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{borrow::Cow, sync::atomic::AtomicUsize};

    use rmcp::model::ToolAnnotations;
    use serde::Deserialize;
    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::TcpStream,
        sync::Semaphore,
    };

    use super::*;
    use crate::{
        output::ToolOutput,
        registry::{Tool, ToolContext, ToolRegistry},
        server::{ServerIdentity, ServerSettings},
        transport::{
            http::{HttpOptions, router, test_options},
            listener,
        },
    };

    #[derive(Deserialize, schemars::JsonSchema, garde::Validate)]
    struct NoParams {}

    /// Answers when the test releases it; counts the calls dropped before they answered.
    struct Wait {
        gate: Arc<Semaphore>,
        dropped: Arc<AtomicUsize>,
    }

    struct CountDrop(Arc<AtomicUsize>, bool);
    impl Drop for CountDrop {
        fn drop(&mut self) {
            if !self.1 {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    impl Tool for Wait {
        type Params = NoParams;
        fn name(&self) -> Cow<'static, str> {
            "wait".into()
        }
        fn description(&self) -> Cow<'static, str> {
            "answers when released".into()
        }
        fn annotations(&self) -> ToolAnnotations {
            ToolAnnotations::new()
        }
        async fn run(&self, _params: NoParams, _ctx: ToolContext) -> ToolOutput {
            let mut guard = CountDrop(Arc::clone(&self.dropped), false);
            let Ok(permit) = self.gate.acquire().await else { return ToolOutput::text("closed") };
            permit.forget();
            guard.1 = true;
            ToolOutput::text("released")
        }
    }

    struct Harness {
        addr: std::net::SocketAddr,
        gate: Arc<Semaphore>,
        dropped: Arc<AtomicUsize>,
        session: String,
        _stop: tokio_util::sync::DropGuard,
    }

    async fn harness() -> Harness {
        let gate = Arc::new(Semaphore::new(0));
        let dropped = Arc::new(AtomicUsize::new(0));
        let mut registry = ToolRegistry::new();
        registry.register(Wait { gate: Arc::clone(&gate), dropped: Arc::clone(&dropped) }).unwrap();
        let identity = ServerIdentity { name: "t".into(), version: "0".into(), title: None, instructions: "i".into() };
        let server = McpServer::new(identity, registry)
            .with_settings(ServerSettings { tool_timeout: Duration::from_secs(60), call_log: None });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let options = HttpOptions { max_message_bytes: 1 << 20, max_sessions: 16, ..test_options() };
        let stop = CancellationToken::new();
        let sessions = CancellationToken::new();
        let app = router(server, addr, &options, None, sessions.clone());
        tokio::spawn(listener::serve(listener, app, options.limits, stop.clone(), sessions));
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let answer = exchange(addr, &post(addr, None, init)).await;
        let session = answer
            .lines()
            .find_map(|line| line.strip_prefix("mcp-session-id: "))
            .unwrap_or_else(|| panic!("{answer}"))
            .trim()
            .to_owned();
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let answer = exchange(addr, &post(addr, Some(&session), initialized)).await;
        assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
        Harness { addr, gate, dropped, session, _stop: stop.drop_guard() }
    }

    fn post(addr: std::net::SocketAddr, session: Option<&str>, body: &str) -> String {
        let session = session.map(|s| format!("Mcp-Session-Id: {s}\r\n")).unwrap_or_default();
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, \
             text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n{session}Content-Length: {}\r\nConnection: \
             close\r\n\r\n{body}",
            body.len()
        )
    }

    fn get(addr: std::net::SocketAddr, session: &str, last_event_id: &str) -> String {
        format!(
            "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: \
             2025-11-25\r\nMcp-Session-Id: {session}\r\nLast-Event-ID: {last_event_id}\r\nConnection: close\r\n\r\n"
        )
    }

    fn call(id: u32) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"wait","arguments":{{}}}}}}"#)
    }

    /// Sends `request`; everything until the server closes the connection.
    async fn exchange(addr: std::net::SocketAddr, request: &str) -> String {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut all = Vec::new();
        tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut all)).await.unwrap().unwrap();
        String::from_utf8_lossy(&all).into_owned()
    }

    /// Sends `request` and reads until the text so far contains `until`; the open stream too.
    async fn open(addr: std::net::SocketAddr, request: &str, until: &str) -> (TcpStream, String) {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut text = String::new();
        while !text.contains(until) {
            let mut buf = [0u8; 4096];
            let n = tokio::time::timeout(Duration::from_secs(20), stream.read(&mut buf)).await.unwrap().unwrap();
            assert!(n > 0, "closed before {until:?}: {text}");
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        (stream, text)
    }

    async fn read_rest(mut stream: TcpStream) -> String {
        let mut all = Vec::new();
        tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut all)).await.unwrap().unwrap();
        String::from_utf8_lossy(&all).into_owned()
    }

    #[tokio::test]
    async fn a_call_that_takes_time_shows_its_stream_at_once_and_its_answer_when_ready() {
        let h = harness().await;
        let (stream, head) = open(h.addr, &post(h.addr, Some(&h.session), &call(1)), "id: 0/d0").await;
        assert!(head.starts_with("HTTP/1.1 200") && head.contains("text/event-stream"), "{head}");
        assert!(head.contains("retry: 3000") && !head.contains("released"), "{head}");
        h.gate.add_permits(1);
        let rest = read_rest(stream).await;
        assert!(
            rest.contains(r#""id":1,"result""#) && rest.contains("released") && rest.contains("id: 1/d0"),
            "{rest}"
        );
    }

    #[tokio::test]
    async fn a_lost_connection_does_not_cancel_the_call_and_its_answer_is_resumed() {
        let h = harness().await;
        let (stream, _) = open(h.addr, &post(h.addr, Some(&h.session), &call(7)), "id: 0/d0").await;
        drop(stream);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(h.dropped.load(Ordering::SeqCst), 0, "the call goes on without its client");
        // Resumed while it still runs: the answer comes when it is ready.
        let (resumed, _) = open(h.addr, &get(h.addr, &h.session, "0/d0"), "\r\n\r\n").await;
        h.gate.add_permits(1);
        let rest = read_rest(resumed).await;
        assert!(rest.contains(r#""id":7,"result""#) && rest.contains("id: 1/d0"), "{rest}");
        // And again once finished; after the answer's own id there is nothing more.
        let again = exchange(h.addr, &get(h.addr, &h.session, "0/d0")).await;
        assert!(again.contains(r#""id":7,"result""#), "{again}");
        let after = exchange(h.addr, &get(h.addr, &h.session, "1/d0")).await;
        assert!(after.starts_with("HTTP/1.1 200") && !after.contains("data:"), "{after}");
        // A stream this session never had: an empty stream, as rmcp answers.
        let unknown = exchange(h.addr, &get(h.addr, &h.session, "0/d99")).await;
        assert!(unknown.starts_with("HTTP/1.1 200") && !unknown.contains("data:"), "{unknown}");
    }

    #[tokio::test]
    async fn notifications_cancelled_ends_the_call_without_an_answer() {
        let h = harness().await;
        let (stream, _) = open(h.addr, &post(h.addr, Some(&h.session), &call(5)), "id: 0/d0").await;
        let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"stop"}}"#;
        let answer = exchange(h.addr, &post(h.addr, Some(&h.session), cancel)).await;
        assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
        let rest = read_rest(stream).await;
        assert!(!rest.contains("data: {"), "a cancelled call answers nothing: {rest}");
        assert_eq!(h.dropped.load(Ordering::SeqCst), 1, "the tool was stopped");
        // Cancelling an id that is not running touches nothing; the session goes on.
        let (stream, _) = open(h.addr, &post(h.addr, Some(&h.session), &call(6)), "id: 0/d1").await;
        let other = cancel.replace("\"requestId\":5", "\"requestId\":99");
        exchange(h.addr, &post(h.addr, Some(&h.session), &other)).await;
        h.gate.add_permits(1);
        assert!(read_rest(stream).await.contains(r#""id":6,"result""#));
    }

    #[tokio::test]
    async fn the_end_of_the_session_ends_its_calls() {
        let h = harness().await;
        let (stream, _) = open(h.addr, &post(h.addr, Some(&h.session), &call(3)), "id: 0/d0").await;
        let delete = format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n\r\n",
            h.addr, h.session
        );
        let answer = exchange(h.addr, &delete).await;
        assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");
        let rest = read_rest(stream).await;
        assert!(!rest.contains("data: {"), "{rest}");
        assert_eq!(h.dropped.load(Ordering::SeqCst), 1);
        let gone = exchange(h.addr, &post(h.addr, Some(&h.session), &call(4))).await;
        assert!(gone.starts_with("HTTP/1.1 404"), "{gone}");
    }

    #[test]
    fn a_finished_answer_is_kept_for_a_minute_a_running_one_as_long_as_it_runs() {
        let now = Instant::now();
        let long_ago = now.checked_sub(KEPT_FOR + Duration::from_secs(1)).unwrap();
        assert!(!Answer::Running.expired(now));
        assert!(!Answer::None(now).expired(now));
        assert!(Answer::None(long_ago).expired(now));
        let event = ServerSseMessage::priming("0/d0", Duration::from_secs(3));
        assert!(!Answer::Sent(event.clone(), now).expired(now));
        assert!(Answer::Sent(event, long_ago).expired(now));
    }

    #[tokio::test]
    async fn a_call_asking_for_progress_is_left_to_rmcp() {
        let h = harness().await;
        let body = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"wait","arguments":{}}}"#;
        let (stream, head) = open(h.addr, &post(h.addr, Some(&h.session), body), "id: 0/0").await;
        assert!(!head.contains("/d"), "{head}");
        h.gate.add_permits(1);
        let rest = read_rest(stream).await;
        assert!(rest.contains(r#""id":2,"result""#) && rest.contains("id: 1/0"), "{rest}");
    }
}
