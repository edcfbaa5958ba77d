//! One live WebSocket connection from the bridge to a host, multiplexed.
//!
//! Requests get ids from the bridge's own counter and wait on a one-shot channel; a reader task
//! routes each response to its waiter by id, so any number of requests are in flight and answers
//! may come in any order. A writer task sends queued frames (batched into one flush) and the
//! keep-alive pings. When the connection ends, every waiter is told at once ([`Link::closed`]).
//! A request abandoned by its caller (timeout, MCP cancellation, the tool's task aborted) sends
//! `$/cancelRequest` (`notifications/cancelled` on an MCP link) from a drop guard. At most
//! [`MAX_IN_FLIGHT`] requests are on the wire at once (a host refuses more on one connection
//! with -32010); the excess waits its turn here, in order, within its own timeout, so an MCP
//! client may have any number of calls in flight.
//!
//! The same link carries MCP JSON-RPC to an IDE that serves the Claude Code IDE protocol
//! ([`Link::spawn_mcp`]): the IDE's notifications go, with their params, to the adapter that
//! made the link, and a request from the IDE is answered (`ping` with `{}`, anything else
//! "method not found"), so the IDE never waits on the bridge.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::{
    net::TcpStream,
    sync::{Semaphore, broadcast, mpsc, oneshot},
};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, tungstenite::Message};
use tokio_util::sync::CancellationToken;

use crate::protocol::{self, HostInfo, MAX_IN_FLIGHT, METHOD_CANCEL, WireError};
use crate::ws::{KeepAlive, PING_INTERVAL, Tick, write_batch};

/// Why a request on a link failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// The host answered with an error.
    Host(WireError),
    /// The connection ended before the answer came.
    Lost,
    /// No answer within the timeout (the host was asked to cancel).
    Timeout(Duration),
    /// The request is larger than the host accepts.
    TooLarge {
        /// The request's size in bytes.
        bytes: usize,
        /// The host's `maxMessageSize`.
        max: u64,
    },
}

type Waiter = oneshot::Sender<Result<Value, WireError>>;

/// A connection to a host.
#[derive(Debug)]
pub struct Link {
    url: String,
    out: mpsc::UnboundedSender<Message>,
    pending: Mutex<HashMap<u64, Waiter>>,
    /// One permit per request on the wire; closed when the connection ends.
    slots: Semaphore,
    closed: CancellationToken,
    info: OnceLock<HostInfo>,
    discovered_folders: Vec<String>,
    /// The host's notifications (their method names), to the bridge's listeners.
    events: broadcast::Sender<String>,
    /// An MCP link: the peer's notifications, with their params, to the adapter.
    mcp: Option<NoteSender>,
    /// The code of the peer's close frame, if it sent one.
    close_code: OnceLock<u16>,
}

/// A WebSocket to a peer, as the link takes it.
pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

impl Link {
    /// Starts the reader and writer tasks of an open WebSocket.
    pub fn spawn(
        ws: Socket,
        url: String,
        discovered_folders: Vec<String>,
        events: broadcast::Sender<String>,
    ) -> Arc<Link> {
        Link::spawn_with(ws, url, discovered_folders, events, None)
    }

    /// A link that speaks MCP JSON-RPC to `url`: the peer's notifications go to `notes`.
    pub fn spawn_mcp(ws: Socket, url: String, notes: NoteSender) -> Arc<Link> {
        Link::spawn_with(ws, url, Vec::new(), broadcast::channel(1).0, Some(notes))
    }

    fn spawn_with(
        ws: Socket,
        url: String,
        discovered_folders: Vec<String>,
        events: broadcast::Sender<String>,
        mcp: Option<NoteSender>,
    ) -> Arc<Link> {
        let (mut sink, mut stream) = ws.split();
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        let link = Arc::new(Link {
            url,
            out,
            pending: Mutex::new(HashMap::new()),
            slots: Semaphore::new(MAX_IN_FLIGHT),
            closed: CancellationToken::new(),
            info: OnceLock::new(),
            discovered_folders,
            events,
            mcp,
            close_code: OnceLock::new(),
        });

        let closed = link.closed.clone();
        tokio::spawn(async move {
            loop {
                let message = tokio::select! {
                    m = out_rx.recv() => m,
                    () = closed.cancelled() => None,
                };
                let Some(message) = message else { break };
                if write_batch(&mut sink, message, || out_rx.try_recv().ok()).await.is_err() {
                    break;
                }
            }
            closed.cancel();
            let _ = sink.close().await;
        });

        let reader = Arc::downgrade(&link);
        let closed = link.closed.clone();
        let out = link.out.clone();
        tokio::spawn(async move {
            let mut keep_alive = KeepAlive::new(PING_INTERVAL);
            loop {
                tokio::select! {
                    incoming = stream.next() => match incoming {
                        Some(Ok(message)) => {
                            keep_alive.seen();
                            match message {
                                Message::Text(text) => {
                                    let Some(link) = reader.upgrade() else { break };
                                    link.on_response(text.as_str());
                                }
                                Message::Close(frame) => {
                                    tracing::debug!(?frame, "the host closed the connection");
                                    if let (Some(frame), Some(link)) = (&frame, reader.upgrade()) {
                                        let _ = link.close_code.set(u16::from(frame.code));
                                    }
                                    break;
                                }
                                _ => {}
                            }
                        }
                        Some(Err(error)) => {
                            tracing::debug!(%error, "connection to the host failed");
                            break;
                        }
                        None => break,
                    },
                    tick = keep_alive.tick() => match tick {
                        Tick::Dead => {
                            tracing::warn!("the host sent nothing for two ping intervals; dropping the connection");
                            break;
                        }
                        Tick::Ping => {
                            let _ = out.send(Message::Ping(Vec::new().into()));
                        }
                    },
                    () = closed.cancelled() => break,
                }
            }
            closed.cancel();
            if let Some(link) = reader.upgrade() {
                // Requests waiting for a slot were never sent: they end with `Lost` too.
                link.slots.close();
                if let Ok(mut pending) = link.pending.lock() {
                    // Dropping the senders wakes every waiter with `Lost`.
                    pending.clear();
                }
            }
        });
        link
    }

    /// The host's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.closed.is_cancelled()
    }

    /// Resolves when the connection has ended.
    pub async fn closed(&self) {
        self.closed.cancelled().await;
    }

    /// Closes the connection.
    pub fn close(&self) {
        let _ = self.out.send(Message::Close(None));
        self.closed.cancel();
        self.slots.close();
    }

    /// The code of the peer's close frame (1008: a policy violation, as VS Code's Claude Code
    /// extension closes a connection with a wrong token), if it sent one.
    pub fn close_code(&self) -> Option<u16> {
        self.close_code.get().copied()
    }

    /// Sends a notification (an MCP link's `notifications/initialized`).
    pub fn notify(&self, method: &str, params: Value) {
        let text = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        let _ = self.out.send(Message::Text(text.into()));
    }

    /// What `host/info` said, if the host implements it.
    pub fn info(&self) -> Option<&HostInfo> {
        self.info.get()
    }

    /// Records the host's `host/info`.
    pub fn set_info(&self, info: HostInfo) {
        let _ = self.info.set(info);
    }

    /// The workspace folders: from `host/info`, else from the discovery file.
    pub fn workspace_folders(&self) -> &[String] {
        match self.info.get() {
            Some(info) if !info.workspace_folders.is_empty() => &info.workspace_folders,
            _ => &self.discovered_folders,
        }
    }

    fn on_response(&self, text: &str) {
        let Ok(Value::Object(mut message)) = serde_json::from_str::<Value>(text) else {
            tracing::warn!("the host sent a message that is not a JSON object; ignored");
            return;
        };
        if let Some(notes) = &self.mcp
            && let Some(method) = message.get("method").and_then(Value::as_str)
        {
            match message.get("id") {
                None => {
                    notes.send(method, message.get("params").cloned().unwrap_or(Value::Null));
                }
                Some(id) => {
                    let outcome = if method == "ping" {
                        Ok(json!({}))
                    } else {
                        Err(WireError::rpc(protocol::METHOD_NOT_FOUND, format!("the bridge serves no `{method}`")))
                    };
                    let _ = self.out.send(Message::Text(protocol::response(id.clone(), outcome).to_string().into()));
                }
            }
            return;
        }
        let Some(id) = message.get("id").and_then(Value::as_u64) else {
            if message.get("id").is_none()
                && let Some(method) = message.get("method").and_then(Value::as_str)
            {
                // A notification (protocol version 2: `ide/selectionChanged`, …); nobody
                // listening is fine.
                let _ = self.events.send(method.to_owned());
                return;
            }
            if let Some(error) = message.get("error") {
                tracing::warn!(%error, "the host reported an error without a request id");
            }
            return;
        };
        let Some(waiter) = self.pending.lock().ok().and_then(|mut p| p.remove(&id)) else {
            // An answer to a request abandoned meanwhile.
            return;
        };
        let outcome = match (message.remove("result"), message.remove("error")) {
            (Some(result), None) => Ok(result),
            (_, Some(error)) => Err(serde_json::from_value::<WireError>(error.clone()).unwrap_or_else(|_| {
                WireError::rpc(protocol::INTERNAL_ERROR, format!("unreadable error from the host: {error}"))
            })),
            (None, None) => {
                Err(WireError::rpc(protocol::INTERNAL_ERROR, "the host's answer has neither result nor error"))
            }
        };
        let _ = waiter.send(outcome);
    }

    /// Sends request `id` and waits at most `timeout` for its answer (and, before that, for one
    /// of the [`MAX_IN_FLIGHT`] slots).
    pub async fn request(
        &self,
        id: u64,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        let text = protocol::request(id, method, params).to_string();
        if let Some(max) = self.info().map(|i| i.max_message_size)
            && max > 0
            && text.len() as u64 > max
        {
            return Err(RequestError::TooLarge { bytes: text.len(), max });
        }
        let deadline = tokio::time::Instant::now() + timeout;
        let _slot = match tokio::time::timeout_at(deadline, self.slots.acquire()).await {
            Ok(Ok(slot)) => slot,
            Ok(Err(_)) => return Err(RequestError::Lost),
            Err(_) => return Err(RequestError::Timeout(timeout)),
        };
        let (tx, rx) = oneshot::channel();
        match self.pending.lock() {
            Ok(mut pending) => {
                pending.insert(id, tx);
            }
            Err(_) => return Err(RequestError::Lost),
        }
        let mut guard = Abandon { link: self, id, armed: true };
        if self.is_closed() || self.out.send(Message::Text(text.into())).is_err() {
            guard.armed = false;
            self.forget(id);
            return Err(RequestError::Lost);
        }
        let outcome = tokio::time::timeout_at(deadline, rx).await;
        match outcome {
            Ok(Ok(answer)) => {
                guard.armed = false;
                answer.map_err(RequestError::Host)
            }
            Ok(Err(_)) => {
                guard.armed = false;
                Err(RequestError::Lost)
            }
            // The guard cancels the request at the host.
            Err(_) => Err(RequestError::Timeout(timeout)),
        }
    }

    fn forget(&self, id: u64) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&id);
        }
    }

    /// How many requests wait for an answer.
    pub fn pending(&self) -> usize {
        self.pending.lock().map(|p| p.len()).unwrap_or(0)
    }
}

/// Cancels a request at the host if its caller stops waiting before the answer.
struct Abandon<'a> {
    link: &'a Link,
    id: u64,
    armed: bool,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.link.forget(self.id);
        if !self.link.is_closed() {
            tracing::debug!(id = self.id, "abandoning a request; asking the host to cancel it");
            let notification = if self.link.mcp.is_some() {
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": self.id, "reason": "the bridge stopped waiting"}})
            } else {
                let params = protocol::CancelParams { id: Value::from(self.id) };
                json!({"jsonrpc": "2.0", "method": METHOD_CANCEL, "params": params})
            };
            let _ = self.link.out.send(Message::Text(notification.to_string().into()));
        }
    }
}
/// The most notification methods of a peer kept waiting at once (each coalesced to its latest).
const MAX_NOTE_METHODS: usize = 16;

/// The sending half of [`notes_channel`].
#[derive(Debug, Clone)]
pub struct NoteSender {
    latest: Arc<std::sync::Mutex<Vec<(String, Value)>>>,
    wake: mpsc::Sender<()>,
}

/// The receiving half of [`notes_channel`].
#[derive(Debug)]
pub struct NoteReceiver {
    latest: Arc<std::sync::Mutex<Vec<(String, Value)>>>,
    wake: mpsc::Receiver<()>,
}

/// A peer's notifications, bounded however fast they come: each method keeps only its latest
/// params until read (an IDE sends a selection on every cursor move, and only the latest
/// counts), and at most [`MAX_NOTE_METHODS`] methods wait at once (others are dropped).
pub fn notes_channel() -> (NoteSender, NoteReceiver) {
    let latest = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel(1);
    (NoteSender { latest: Arc::clone(&latest), wake: tx }, NoteReceiver { latest, wake: rx })
}

impl NoteSender {
    /// Keeps `params` as the latest of `method`, and wakes the reader.
    pub fn send(&self, method: &str, params: Value) {
        {
            let mut latest = self.latest.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(slot) = latest.iter_mut().find(|(m, _)| m == method) {
                slot.1 = params;
            } else if latest.len() < MAX_NOTE_METHODS {
                latest.push((method.to_owned(), params));
            } else {
                tracing::debug!(method, "too many kinds of notification waiting; this one is dropped");
            }
        }
        // A full wake channel means a wake is already pending.
        let _ = self.wake.try_send(());
    }
}

impl NoteReceiver {
    /// The notifications waiting (each method's latest), once there are some; `None` once the
    /// sender is gone and nothing waits.
    pub async fn recv(&mut self) -> Option<Vec<(String, Value)>> {
        loop {
            let waiting = std::mem::take(&mut *self.latest.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
            if !waiting.is_empty() {
                return Some(waiting);
            }
            self.wake.recv().await?;
        }
    }
}
