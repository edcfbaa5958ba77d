//! The HTTP listener: what a network client may hold, and for how long.
//!
//! `axum::serve` accepts every connection, waits for a request head forever and leaves Nagle's
//! algorithm on; a keep-alive client then waited ~40 ms per call (a response written in two
//! segments met the client's delayed ACK), and a few hundred connections that send half a
//! request head and nothing more held every file descriptor. This accept loop serves the same
//! axum router through hyper, and:
//!
//! - sets `TCP_NODELAY` on every accepted socket (logged at debug level, read back from the
//!   socket, so a test can check the running binary);
//! - bounds the time to send a request head (`--header-read-timeout`), which in hyper is also the
//!   longest a kept-alive connection may sit idle between two requests (a response being streamed,
//!   an SSE stream, is not idle), and the time to send the body (three of those, from the head);
//! - caps the open connections (`--max-connections`). At the cap, a new connection takes the place
//!   of the oldest one that has not yet sent a single complete request head (a slowloris
//!   connection, or one that never will), so such connections cannot lock out a real client; when
//!   every open connection has sent a request, the new one is answered `503` with `Retry-After`
//!   at once and closed, never queued;
//! - shuts down gracefully (SIGTERM/Ctrl-C, see [`serve`]): stop accepting, let in-flight `POST`
//!   responses (tool calls) finish within `--shutdown-grace`, then end the sessions and exit.

use std::{
    convert::Infallible,
    io,
    pin::Pin,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use axum::{
    body::Body,
    http::StatusCode,
    response::{IntoResponse as _, Response},
};
use hyper::{body::Incoming, service::Service as _};
use hyper_util::{
    rt::{TokioIo, TokioTimer},
    server::graceful::GracefulShutdown,
    service::TowerToHyperService,
};
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::{TcpListener, TcpStream},
    sync::{Notify, Semaphore},
};
use tokio_util::sync::CancellationToken;

use super::wire::{BodyTimedOut, HoldingBody};

/// What the listener allows.
#[derive(Debug, Clone, Copy)]
pub struct ListenerLimits {
    /// Open connections at most.
    pub max_connections: usize,
    /// The time a client has to send a request head (and the longest keep-alive idle time).
    pub header_read_timeout: Duration,
    /// How long in-flight tool calls may take to finish after SIGTERM.
    pub shutdown_grace: Duration,
}

/// File descriptors kept out of `--max-connections`' default: the listener, stdio, log and
/// the files tools open meanwhile.
const FD_RESERVE_MIN: u64 = 64;

/// The default `--max-connections`: the soft file-descriptor limit less a reserve (an eighth of
/// it, at least 64), so that the process never runs out of descriptors because of connections;
/// 1024 when the limit cannot be read, at most 65,536.
pub fn default_max_connections() -> usize {
    let soft = fd_soft_limit().unwrap_or(1024 + 128);
    let reserve = (soft / 8).max(FD_RESERVE_MIN);
    usize::try_from(soft.saturating_sub(reserve).clamp(16, 65_536)).unwrap_or(1024)
}

#[cfg(unix)]
fn fd_soft_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

#[cfg(not(unix))]
fn fd_soft_limit() -> Option<u64> {
    None
}

/// The open connections: enough to pick one to evict at the cap.
#[derive(Default)]
struct Table {
    conns: Mutex<Vec<Entry>>,
    next_id: AtomicU64,
}

struct Entry {
    id: u64,
    accepted: Instant,
    /// Set once a complete request head has been read on the connection.
    requested: Arc<AtomicBool>,
    evict: CancellationToken,
}

/// A connection's place in the [`Table`]: removed when dropped.
struct Slot {
    table: Arc<Table>,
    id: u64,
    requested: Arc<AtomicBool>,
    evict: CancellationToken,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.table.lock().retain(|e| e.id != self.id);
    }
}

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.conns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a new connection, evicting the oldest connection that has sent no request
    /// when the table is full; `None` when every open connection has sent one.
    fn admit(self: &Arc<Self>, max: usize) -> Option<Slot> {
        let mut conns = self.lock();
        if conns.len() >= max {
            let victim = conns
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.requested.load(Ordering::Relaxed))
                .min_by_key(|(_, e)| e.accepted)
                .map(|(i, _)| i)?;
            let evicted = conns.swap_remove(victim);
            evicted.evict.cancel();
            tracing::debug!("connection cap reached: closed the oldest connection that sent no request");
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let requested = Arc::new(AtomicBool::new(false));
        let evict = CancellationToken::new();
        conns.push(Entry { id, accepted: Instant::now(), requested: Arc::clone(&requested), evict: evict.clone() });
        Some(Slot { table: Arc::clone(self), id, requested, evict })
    }
}

/// In-flight `POST` responses (tool calls and other requests whose answer is being produced):
/// graceful shutdown waits for them.
#[derive(Default)]
struct InFlight {
    count: AtomicUsize,
    idle: Notify,
}

/// One in-flight response; dropped when hyper has written its body (or the client went away).
struct InFlightGuard(Arc<InFlight>);

impl InFlightGuard {
    fn enter(inflight: &Arc<InFlight>) -> InFlightGuard {
        inflight.count.fetch_add(1, Ordering::SeqCst);
        InFlightGuard(Arc::clone(inflight))
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl InFlight {
    async fn wait_idle(&self) {
        loop {
            let notified = self.idle.notified();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// A request body must arrive whole within this many `--header-read-timeout`s of its head: a
/// client that sends a head and then drips (or stops sending) its body cannot hold a connection.
pub const BODY_TIMEOUT_FACTOR: u32 = 3;

/// A request body that fails once its deadline has passed before its end. The timer is armed
/// only when the body is not already there (a small request's body usually comes with its head),
/// so the common case costs no timer.
struct DeadlineBody {
    inner: Incoming,
    deadline: tokio::time::Instant,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl DeadlineBody {
    fn new(inner: Incoming, timeout: Duration) -> DeadlineBody {
        DeadlineBody { inner, deadline: tokio::time::Instant::now() + timeout, timer: None }
    }
}

impl http_body::Body for DeadlineBody {
    type Data = axum::body::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let deadline = self.deadline;
        let timer = self.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.as_mut().poll(cx).is_ready() {
            tracing::debug!("a request body did not arrive in time; closing the connection");
            return Poll::Ready(Some(Err(Box::new(BodyTimedOut))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// `400` for a request with more than one `Host` header, `None` for one that has at most one.
/// Asked before the router sees the request, for every path.
fn two_hosts<B>(request: &axum::http::Request<B>) -> Option<Response> {
    let mut hosts = request.headers().get_all(axum::http::header::HOST).iter();
    hosts.next()?;
    hosts.next()?;
    Some((StatusCode::BAD_REQUEST, "Bad Request: more than one Host header.\n").into_response())
}

/// The answer to a connection past the cap.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain\r\n\
Content-Length: 54\r\nConnection: close\r\n\r\nToo many open connections: retry in a second or two.\r\n";

/// Refusals being written at once, at most (beyond, a connection is simply closed).
const MAX_REFUSALS: usize = 64;

/// How long a refused client gets to take its 503.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(1);

/// After the grace period, how long connections get to close before the process exits anyway.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `shutdown` is cancelled, then shuts down gracefully:
/// no new connection is accepted, idle kept-alive connections close, in-flight `POST` responses
/// get up to `limits.shutdown_grace` to finish, then `sessions` is cancelled (rmcp ends every
/// session and its streams) and the remaining connections get a second to close.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ListenerLimits,
    shutdown: CancellationToken,
    sessions: CancellationToken,
) {
    let table = Arc::new(Table::default());
    let inflight = Arc::new(InFlight::default());
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS));
    let graceful = GracefulShutdown::new();
    let stop_all = CancellationToken::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout).keep_alive(true);
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // EMFILE/ENFILE (descriptors exhausted by something else) or a connection
                // reset before it was accepted: log, and give the system a moment.
                tracing::warn!(%error, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        tracing::debug!(nodelay = stream.nodelay().unwrap_or(false), "accepted a connection");
        let Some(slot) = table.admit(limits.max_connections) else {
            refuse(stream, &refusals);
            continue;
        };
        let requested = Arc::clone(&slot.requested);
        let inflight = Arc::clone(&inflight);
        let router = TowerToHyperService::new(router.clone());
        let body_timeout = limits.header_read_timeout * BODY_TIMEOUT_FACTOR;
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            requested.store(true, Ordering::Relaxed);
            request.extensions_mut().insert(crate::server::PeerAddr(peer));
            // Refused here, for every path, rather than by one more layer of the router, which
            // axum would clone for every request.
            let pending = match two_hosts(&request) {
                Some(refused) => Err(refused),
                None => {
                    let guard = (request.method() == hyper::Method::POST).then(|| InFlightGuard::enter(&inflight));
                    let request = request.map(|body| Body::new(DeadlineBody::new(body, body_timeout)));
                    Ok((guard, router.call(request)))
                }
            };
            async move {
                let (guard, response) = match pending {
                    Ok(pending) => pending,
                    Err(refused) => return Ok(refused),
                };
                let response = response.await?;
                Ok::<_, Infallible>(match guard {
                    Some(guard) => response.map(|inner| Body::new(HoldingBody::new(inner, guard))),
                    None => response,
                })
            }
        });
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        let stop_all = stop_all.clone();
        tokio::spawn(async move {
            tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "connection ended with an error");
                    }
                }
                () = slot.evict.cancelled() => {}
                () = stop_all.cancelled() => {}
            }
            drop(slot);
        });
    }
    drop(listener);
    tracing::info!(
        in_flight = inflight.count.load(Ordering::SeqCst),
        grace_secs = limits.shutdown_grace.as_secs_f64(),
        "shutting down: no new connections; waiting for in-flight calls"
    );
    let closed = graceful.shutdown();
    tokio::pin!(closed);
    let finished = tokio::select! {
        () = &mut closed => true,
        () = inflight.wait_idle() => false,
        () = tokio::time::sleep(limits.shutdown_grace) => {
            tracing::warn!(
                in_flight = inflight.count.load(Ordering::SeqCst),
                "the shutdown grace period ended with calls in flight"
            );
            false
        }
    };
    sessions.cancel();
    if !finished && tokio::time::timeout(CLOSE_TIMEOUT, &mut closed).await.is_err() {
        stop_all.cancel();
    }
    tracing::info!("stopped");
}

/// Answers a connection past the cap with a 503 and closes it, in a bounded background task.
fn refuse(stream: TcpStream, refusals: &Arc<Semaphore>) {
    if let Some(metrics) = crate::metrics::global() {
        metrics.connection_refused();
    }
    let Ok(permit) = Arc::clone(refusals).try_acquire_owned() else {
        return; // dropped: closed at once
    };
    tokio::spawn(async move {
        let _permit = permit;
        let _ = tokio::time::timeout(REFUSAL_TIMEOUT, write_refusal(stream)).await;
    });
}

async fn write_refusal(mut stream: TcpStream) -> io::Result<()> {
    stream.write_all(REFUSAL).await?;
    stream.shutdown().await?;
    // Drain what the client sent, so that closing does not reset the connection before the
    // client has read the answer.
    let mut sink = [0u8; 4096];
    while stream.read(&mut sink).await? > 0 {}
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_is_well_formed() {
        let text = std::str::from_utf8(REFUSAL).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 503 "));
        assert!(head.contains("\r\nRetry-After: 1"));
        let length: usize =
            head.split("Content-Length: ").nth(1).unwrap().split("\r\n").next().unwrap().parse().unwrap();
        assert_eq!(body.len(), length);
    }

    #[test]
    fn at_the_cap_the_oldest_connection_without_a_request_gives_way() {
        let table = Arc::new(Table::default());
        let first = table.admit(2).unwrap();
        let second = table.admit(2).unwrap();
        // both idle: the third evicts the oldest (the first)
        let third = table.admit(2).unwrap();
        assert!(first.evict.is_cancelled() && !second.evict.is_cancelled());
        drop(first);
        assert_eq!(table.lock().len(), 2);
        // the remaining two have sent requests: a fourth is refused
        second.requested.store(true, Ordering::Relaxed);
        third.requested.store(true, Ordering::Relaxed);
        assert!(table.admit(2).is_none());
        drop(third);
        assert!(table.admit(2).is_some(), "a closed connection frees its place");
    }

    #[test]
    fn the_default_cap_leaves_descriptors_free() {
        let cap = default_max_connections();
        if let Some(soft) = fd_soft_limit() {
            assert!((cap as u64) < soft.max(17), "cap {cap} for a limit of {soft}");
        }
        assert!(cap >= 16);
    }
}
