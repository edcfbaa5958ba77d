//! The stdio transport: newline-delimited JSON-RPC, stdout carrying nothing else.
//!
//! What it guarantees beyond rmcp's own `AsyncRwTransport` (which drops an oversized line and
//! anything serde refuses silently, so a client waits forever):
//!
//! - **Every request line gets exactly one answer.** A line serde refuses is answered under its
//!   `id` when the top level shows one ([`id_scan`](super::id_scan)), else under `id: null`:
//!   -32700 for text that is not JSON (a lone UTF-16 surrogate such as `"\ud83d"` is refused, not
//!   replaced: the editors must never write a character the client did not send; nesting deeper
//!   than 128; a number out of a float's range), -32600 for JSON that is not a valid request. A
//!   message over `--max-message-bytes` is dropped without being buffered whole, and answered
//!   under its id when the id is in its first 64 KiB. Notifications and client responses that
//!   are not understood are never answered (an echoing peer cannot start an error storm).
//! - **Ids are echoed byte-exact** ([`ids`](super::ids)): rmcp sees ids of our own, and every
//!   answer goes out under the bytes the client sent (`18446744073709551616`, `1.0`, `"x"`). A
//!   second request under an id still in flight is refused, never merged.
//! - **Batches** (a JSON array on one line) are answered with one array when the session
//!   negotiated 2025-03-26, the revision that has them; later revisions removed batches, and
//!   before `initialize` nothing is negotiated, so a batch then gets one -32600 under `id: null`.
//! - **Before `initialize`** a request other than `initialize`, `ping`, `server/discover` or one
//!   carrying the 2026-07-28 per-request `_meta` (the stateless revision, which has no handshake)
//!   gets a -32600 that says to initialize first, or to send the 2026-07-28 `_meta`.

use std::{
    collections::VecDeque,
    sync::{Arc, PoisonError},
};

use rmcp::{
    RoleServer,
    model::{
        ClientNotification, ClientRequest, GetMeta, JsonRpcMessage, NumberOrString, ProtocolVersion, ServerResult,
    },
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
};
use serde_json::value::RawValue;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::Mutex,
};

use crate::server::SUPPORTED_PROTOCOL_VERSIONS;

// The top-level scanner, public for its fuzz target.
pub use super::id_scan::{Envelope, IdKind, id_kind, scan};
use super::{
    ids::{IdMap, Route},
    jsonrpc::{INVALID_REQUEST, PARSE_ERROR, error_object, is_syntax, parse_error_message},
};

/// How many leading bytes of an oversized message are kept to look for its `id`.
const ID_SCAN_PREFIX: usize = 64 * 1024;

/// The read buffer in front of stdin: std's default. tokio zeroes it when it is made, before the
/// first answer; at 64 KiB that wrote up to 16 fresh pages (7 page faults in the profile of a
/// start) to save a few `read`s per large message, which the line buffer collects either way.
const READ_BUFFER_BYTES: usize = 8 * 1024;

/// The one protocol revision that has JSON-RPC batches.
const BATCH_REVISION: &str = "2025-03-26";

/// A server-side stdio transport over any reader and writer (stdin/stdout in production,
/// in-memory pipes in tests).
pub struct StdioTransport<R, W> {
    reader: BufReader<R>,
    line: Vec<u8>,
    /// While dropping an oversized line: its first bytes (to find the id) and its length so far.
    /// Kept here, not in `read_line`, because rmcp polls `receive` inside a `select!` and a
    /// cancelled read must resume the discard where it stopped.
    oversized: Option<(Vec<u8>, usize)>,
    max_message_bytes: usize,
    writer: Arc<Mutex<Option<W>>>,
    /// What the reading and the writing side share: the ids in flight, the negotiated revision.
    session: Arc<std::sync::Mutex<Session>>,
    /// Whether rmcp has left its handshake: an `initialize` went through, or a request that
    /// rmcp takes as the start of a stateless (2026-07-28) session. Before that, rmcp ends the
    /// session on any message that is not a request, so such messages are dropped here.
    initialize_seen: bool,
    /// Messages of a batch not yet handed to rmcp.
    queue: VecDeque<RxJsonRpcMessage<RoleServer>>,
}

#[derive(Debug, Default)]
struct Session {
    ids: IdMap,
    /// The revision `initialize` settled on, once answered, or the one the first stateless
    /// request named.
    protocol_version: Option<String>,
}

enum LineRead {
    Line,
    /// The line exceeded the limit; `prefix` is its first bytes.
    Oversized {
        prefix: Vec<u8>,
        bytes: usize,
    },
    Eof,
}

/// What one message of the input comes to.
enum Taken {
    /// Hand it to rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answer it ourselves with this JSON object.
    Answer(Vec<u8>),
    /// Nothing to do (an ununderstood notification or response).
    Nothing,
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// A transport reading `reader` and writing `writer`, refusing messages over `max_message_bytes`.
    pub fn new(reader: R, writer: W, max_message_bytes: usize) -> Self {
        // Error answers are logged here, under the client's own ids (see `translate`).
        crate::logging::client_ids_logged_by_transport();
        StdioTransport {
            reader: BufReader::with_capacity(READ_BUFFER_BYTES, reader),
            line: Vec::new(),
            oversized: None,
            max_message_bytes: max_message_bytes.max(1),
            writer: Arc::new(Mutex::new(Some(writer))),
            session: Arc::default(),
            initialize_seen: false,
            queue: VecDeque::new(),
        }
    }

    /// Reads one line into `self.line` without letting it grow past the limit.
    ///
    /// Cancellation-safe: `fill_buf` consumes nothing when dropped, and the copy and `consume`
    /// are synchronous, so a cancelled read leaves the partial line (or the state of the
    /// discard of an oversized one) for the next call. (rmcp polls `receive` inside a `select!`.)
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if !self.line.is_empty() {
                    // A last message without its newline is still a message.
                    return Ok(LineRead::Line);
                }
                return Ok(match self.oversized.take() {
                    Some((prefix, bytes)) => LineRead::Oversized { prefix, bytes },
                    None => LineRead::Eof,
                });
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            match &mut self.oversized {
                Some((prefix, bytes)) => {
                    if prefix.len() < ID_SCAN_PREFIX {
                        let room = ID_SCAN_PREFIX - prefix.len();
                        prefix.extend_from_slice(&available[..take.min(room)]);
                    }
                    *bytes += take;
                }
                None if self.line.len().saturating_add(take) > self.max_message_bytes => {
                    let bytes = self.line.len() + take;
                    let mut prefix = std::mem::take(&mut self.line);
                    prefix.truncate(ID_SCAN_PREFIX);
                    if prefix.len() < ID_SCAN_PREFIX {
                        let room = ID_SCAN_PREFIX - prefix.len();
                        prefix.extend_from_slice(&available[..take.min(room)]);
                    }
                    self.oversized = Some((prefix, bytes));
                }
                None => self.line.extend_from_slice(&available[..take]),
            }
            self.reader.consume(take);
            if newline.is_some() {
                return Ok(match self.oversized.take() {
                    Some((prefix, bytes)) => LineRead::Oversized { prefix, bytes },
                    None => LineRead::Line,
                });
            }
        }
    }

    fn session(&self) -> std::sync::MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer to an oversized message: under its id if its first bytes show a request's.
    fn oversized_answer(&self, prefix: &[u8], bytes: usize) -> Option<Vec<u8>> {
        tracing::warn!(
            bytes,
            limit = self.max_message_bytes,
            "dropped an incoming message larger than --max-message-bytes"
        );
        let envelope = scan(prefix);
        let id = envelope.id.map(|r| &prefix[r]).filter(|raw| id_kind(raw) == IdKind::Usable)?;
        if envelope.has_outcome && !envelope.has_method {
            return None;
        }
        let limit = self.max_message_bytes;
        Some(error_object(
            Some(id),
            INVALID_REQUEST,
            &format!(
                "Message too large: it exceeds this server's limit of {limit} bytes (--max-message-bytes), so it was not processed. Send smaller arguments, e.g. create a large file in several steps."
            ),
        ))
    }

    /// Decides what one message (a line, or an element of a batch) comes to.
    fn take(&mut self, text: &[u8], batch: Option<u64>) -> Taken {
        let envelope = scan(text);
        let raw_id = envelope.id.clone().map(|r| &text[r]);
        if envelope.has_method {
            match raw_id {
                Some(raw) if id_kind(raw) == IdKind::Usable => self.take_request(text, raw, batch),
                Some(raw) => {
                    let shown = String::from_utf8_lossy(&raw[..raw.len().min(40)]).into_owned();
                    Taken::Answer(error_object(
                        None,
                        INVALID_REQUEST,
                        &format!(
                            "Invalid request: its id `{shown}` is not a string or an integer (null, booleans, objects and malformed strings cannot be matched to an answer). Send each request with a unique string or integer id; a message without an id is a notification and gets no answer."
                        ),
                    ))
                }
                None => self.take_notification(text),
            }
        } else if envelope.has_outcome {
            match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                Ok(message) if self.initialize_seen => Taken::Message(Box::new(message)),
                Ok(_) => {
                    tracing::debug!("ignored a response sent before initialize");
                    Taken::Nothing
                }
                Err(error) => {
                    tracing::warn!(%error, "ignored a response that is not valid");
                    Taken::Nothing
                }
            }
        } else {
            let id = raw_id.filter(|raw| id_kind(raw) == IdKind::Usable);
            Taken::Answer(match serde_json::from_slice::<serde_json::Value>(text) {
                Err(error) if is_syntax(&error) => error_object(id, PARSE_ERROR, &parse_error_message(&error, true)),
                _ if !envelope.is_object => error_object(
                    None,
                    INVALID_REQUEST,
                    "Invalid request: a JSON-RPC message is a JSON object (or, in protocol 2025-03-26, an array of them) on one line.",
                ),
                _ => error_object(
                    id,
                    INVALID_REQUEST,
                    "Invalid request: no `method`. A request is {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}.",
                ),
            })
        }
    }

    fn take_request(&mut self, text: &[u8], raw: &[u8], batch: Option<u64>) -> Taken {
        // `id_kind` proved `raw` valid JSON, so valid UTF-8.
        let raw_str = String::from_utf8_lossy(raw);
        let Some(ours) = self.session().ids.admit(&raw_str, batch) else {
            return Taken::Answer(error_object(
                Some(raw),
                INVALID_REQUEST,
                &format!(
                    "Invalid request: id {raw_str} is already used by a request still in progress, so this one was not processed. Give every request its own id."
                ),
            ));
        };
        let refuse = |this: &mut Self, answer: Vec<u8>| {
            this.session().ids.withdraw(ours);
            Taken::Answer(answer)
        };
        let Some(range) = scan(text).id else {
            return refuse(self, error_object(Some(raw), INVALID_REQUEST, "Invalid request."));
        };
        let mut ours_text = text[..range.start].to_vec();
        ours_text.extend_from_slice(ours.to_string().as_bytes());
        ours_text.extend_from_slice(&text[range.end..]);
        let message = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(&ours_text) {
            Ok(message) => message,
            Err(error) if is_syntax(&error) => {
                return refuse(self, error_object(Some(raw), PARSE_ERROR, &parse_error_message(&error, true)));
            }
            Err(error) => {
                let method = serde_json::from_slice::<MethodOnly>(text).ok().map(|m| m.method);
                let message = match method {
                    Some(method) => format!(
                        "Invalid request `{method}`: {error}. Check the method's params against the MCP schema."
                    ),
                    None => format!("Invalid request: {error}."),
                };
                return refuse(self, error_object(Some(raw), INVALID_REQUEST, &message));
            }
        };
        let JsonRpcMessage::Request(request) = &message else {
            return refuse(self, error_object(Some(raw), INVALID_REQUEST, "Invalid request."));
        };
        if !self.initialize_seen {
            match &request.request {
                ClientRequest::InitializeRequest(_) if batch.is_some() => {
                    return refuse(
                        self,
                        error_object(
                            Some(raw),
                            INVALID_REQUEST,
                            "Invalid request: `initialize` must be sent alone, not in a batch.",
                        ),
                    );
                }
                ClientRequest::InitializeRequest(_) => self.initialize_seen = true,
                // rmcp answers these and stays in its handshake.
                ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {}
                other if let Some(version) = other.get_meta().protocol_version() => {
                    // rmcp starts a stateless session on the first request whose `_meta` is
                    // complete and names a version it serves; anything else it answers with an
                    // error and stays in its handshake.
                    let complete = other.get_meta().missing_required_keys(&ProtocolVersion::V_2026_07_28).is_empty();
                    if complete && SUPPORTED_PROTOCOL_VERSIONS.contains(&version) {
                        self.initialize_seen = true;
                        self.session().protocol_version = Some(version.to_string());
                    }
                }
                other => {
                    let method = other.method().to_owned();
                    return refuse(
                        self,
                        error_object(
                            Some(raw),
                            INVALID_REQUEST,
                            &format!(
                                "Not initialized: `{method}` was sent before `initialize`. Send `initialize` first (then the `notifications/initialized` notification), then `{method}`; only `ping` and `server/discover` may come before it. A 2026-07-28 client skips the handshake instead: every request carries `_meta` with `io.modelcontextprotocol/protocolVersion` (\"2026-07-28\"), `io.modelcontextprotocol/clientCapabilities` and `io.modelcontextprotocol/clientInfo`."
                            ),
                        ),
                    );
                }
            }
        }
        Taken::Message(Box::new(message))
    }

    fn take_notification(&mut self, text: &[u8]) -> Taken {
        let mut message = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
            Ok(message) => message,
            Err(error) if is_syntax(&error) => {
                return Taken::Answer(error_object(None, PARSE_ERROR, &parse_error_message(&error, true)));
            }
            Err(error) => {
                // A notification we do not know (an LSP message, a newer MCP notification): skip.
                tracing::debug!(%error, "ignored a notification");
                return Taken::Nothing;
            }
        };
        if !self.initialize_seen {
            tracing::debug!("ignored a notification sent before initialize");
            return Taken::Nothing;
        }
        if let JsonRpcMessage::Notification(notification) = &mut message
            && let ClientNotification::CancelledNotification(cancelled) = &mut notification.notification
            && let Some(theirs) = cancelled.params.request_id.take()
        {
            let raw = serde_json::to_string(&theirs).unwrap_or_default();
            let mut session = self.session();
            match session.ids.ours(&raw) {
                Some(ours) => {
                    // rmcp drops the answer of a cancelled request: nothing will come back.
                    session.ids.forget(ours);
                    cancelled.params.request_id = Some(NumberOrString::Number(ours));
                }
                None => {
                    tracing::debug!(id = %raw, "ignored the cancellation of a request not in flight");
                    return Taken::Nothing;
                }
            }
        }
        Taken::Message(Box::new(message))
    }

    /// Takes every message of a batch; rmcp gets the requests one by one, and the answers are
    /// written together once the last one is in.
    async fn take_batch(&mut self, text: &[u8]) {
        let elements = match serde_json::from_slice::<Vec<&RawValue>>(text) {
            Ok(elements) => elements,
            Err(error) => {
                let code = if is_syntax(&error) { PARSE_ERROR } else { INVALID_REQUEST };
                let message = if is_syntax(&error) {
                    parse_error_message(&error, true)
                } else {
                    format!("Invalid batch: {error}.")
                };
                return self.write(error_object(None, code, &message)).await;
            }
        };
        let negotiated = self.session().protocol_version.clone();
        if negotiated.as_deref() != Some(BATCH_REVISION) || elements.is_empty() {
            let why = match (&negotiated, elements.is_empty()) {
                (_, true) => "Invalid request: an empty batch.".to_owned(),
                (None, _) => "Invalid request: a batch (JSON array) before `initialize`. Send `initialize` alone first; batches exist only in protocol 2025-03-26.".to_owned(),
                (Some(version), _) => format!(
                    "Invalid request: batches (JSON arrays) are not part of protocol {version}, which this session uses (they exist only in 2025-03-26). Send each request on its own line; nothing in the batch was processed."
                ),
            };
            return self.write(error_object(None, INVALID_REQUEST, &why)).await;
        }
        let batch = self.session().ids.open_batch();
        for element in elements {
            match self.take(element.get().as_bytes(), Some(batch)) {
                Taken::Message(message) => self.queue.push_back(*message),
                Taken::Answer(answer) => self.session().ids.add_to_batch(batch, answer),
                Taken::Nothing => {}
            }
        }
        let done = self.session().ids.close_batch(batch);
        if let Some(answers) = done.filter(|a| !a.is_empty()) {
            self.write(array(answers)).await;
        }
    }

    /// Writes an answer the transport made itself.
    fn write(&self, bytes: Vec<u8>) -> impl Future<Output = ()> + Send + 'static {
        let writer = self.writer.clone();
        async move {
            if let Err(error) = write_line(&writer, bytes).await {
                tracing::error!(%error, "could not write an answer");
            }
        }
    }
}

/// A line without its line end, byte order mark and surrounding blanks: the message in it.
fn message_text(line: &[u8]) -> &[u8] {
    let mut text: &[u8] = line.strip_suffix(b"\n").unwrap_or(line);
    text = text.strip_suffix(b"\r").unwrap_or(text);
    text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    text.trim_ascii()
}

/// Only the method of a request, for error messages.
#[derive(serde::Deserialize)]
struct MethodOnly {
    method: String,
}

fn array(answers: Vec<Vec<u8>>) -> Vec<u8> {
    let mut out = vec![b'['];
    for (i, answer) in answers.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend(answer);
    }
    out.push(b']');
    out
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<Option<W>>, mut bytes: Vec<u8>) -> std::io::Result<()> {
    bytes.push(b'\n');
    let mut guard = writer.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "transport closed"));
    };
    w.write_all(&bytes).await?;
    w.flush().await
}

/// An answer rmcp made, written under the client's id (`render` writes everything but the id).
fn translate(
    session: &std::sync::Mutex<Session>,
    item: &TxJsonRpcMessage<RoleServer>,
) -> Result<Option<Vec<u8>>, serde_json::Error> {
    let (ours, field, body) = match item {
        JsonRpcMessage::Response(response) => {
            if let ServerResult::InitializeResult(init) = &response.result {
                let mut session = session.lock().unwrap_or_else(PoisonError::into_inner);
                session.protocol_version = Some(init.protocol_version.to_string());
            }
            match &response.id {
                NumberOrString::Number(n) => (*n, "result", serde_json::to_vec(&response.result)?),
                NumberOrString::String(_) => return serde_json::to_vec(item).map(Some),
            }
        }
        JsonRpcMessage::Error(error) => match &error.id {
            Some(NumberOrString::Number(n)) => (*n, "error", serde_json::to_vec(&error.error)?),
            _ => return serde_json::to_vec(item).map(Some),
        },
        JsonRpcMessage::Notification(_) => return notification_with_their_ids(session, item).map(Some),
        _ => return serde_json::to_vec(item).map(Some),
    };
    let render = |raw: &str| {
        let mut out = br#"{"jsonrpc":"2.0","id":"#.to_vec();
        out.extend_from_slice(raw.as_bytes());
        out.extend_from_slice(b",\"");
        out.extend_from_slice(field.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(&body);
        out.push(b'}');
        out
    };
    if field == "error" {
        // rmcp's own warning names its id for this request; the log names the client's.
        let theirs = session.lock().unwrap_or_else(PoisonError::into_inner).ids.theirs(ours).map(str::to_owned);
        tracing::warn!(
            id = %theirs.unwrap_or_else(|| ours.to_string()),
            error = %crate::call_log::bounded(&String::from_utf8_lossy(&body)),
            "answered with an error"
        );
    }
    let (route, single) = session.lock().unwrap_or_else(PoisonError::into_inner).ids.answer(ours, render);
    Ok(match route {
        Route::Single(_) => single,
        Route::Held => None,
        Route::BatchDone(answers) => Some(array(answers)),
        Route::Unknown => Some(serde_json::to_vec(item)?),
    })
}

/// The `_meta` key of the `subscriptions/listen` request a notification belongs to.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// A notification rmcp made, with the request ids in it (a subscription's id, a cancelled
/// request's id) translated back to the client's, byte for byte: each is first replaced by a
/// placeholder string, and the placeholder's JSON text by the client's id.
fn notification_with_their_ids(
    session: &std::sync::Mutex<Session>,
    item: &TxJsonRpcMessage<RoleServer>,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut value = serde_json::to_value(item)?;
    let session = session.lock().unwrap_or_else(PoisonError::into_inner);
    let mut swaps: Vec<(String, String)> = Vec::new();
    let mut translate = |slot: Option<&mut serde_json::Value>| {
        if let Some(slot) = slot
            && let Some(ours) = slot.as_i64()
            && let Some(theirs) = session.ids.theirs(ours)
        {
            let placeholder = format!("\u{1}mcp-suite-request-{ours}\u{1}");
            swaps.push((serde_json::to_string(&placeholder).unwrap_or_default(), theirs.to_owned()));
            *slot = serde_json::Value::String(placeholder);
        }
    };
    if let Some(params) = value.get_mut("params") {
        translate(params.get_mut("_meta").and_then(|meta| meta.get_mut(SUBSCRIPTION_ID_KEY)));
        if item_is_cancellation(item) {
            translate(params.get_mut("requestId"));
        }
    }
    let mut text = serde_json::to_string(&value)?;
    for (placeholder, theirs) in swaps {
        text = text.replacen(&placeholder, &theirs, 1);
    }
    Ok(text.into_bytes())
}

fn item_is_cancellation(item: &TxJsonRpcMessage<RoleServer>) -> bool {
    matches!(item, JsonRpcMessage::Notification(n) if matches!(n.notification, rmcp::model::ServerNotification::CancelledNotification(_)))
}

impl<R, W> Transport<RoleServer> for StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        let bytes = translate(&self.session, &item);
        async move {
            match bytes.map_err(std::io::Error::other)? {
                Some(bytes) => write_line(&writer, bytes).await,
                None => Ok(()),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(message) = self.queue.pop_front() {
                return Some(message);
            }
            match self.read_line().await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::Eof) => return None,
                Ok(LineRead::Oversized { prefix, bytes }) => {
                    if let Some(answer) = self.oversized_answer(&prefix, bytes) {
                        self.write(answer).await;
                    }
                    continue;
                }
                Err(error) => {
                    tracing::error!(%error, "error reading stdin");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let text = message_text(&line);
            if text.is_empty() {
                self.line = line;
                self.line.clear();
                continue;
            }
            let taken = if text.first() == Some(&b'[') {
                self.take_batch(text).await;
                Taken::Nothing
            } else {
                self.take(text, None)
            };
            self.line = line;
            self.line.clear();
            match taken {
                Taken::Message(message) => return Some(*message),
                Taken::Answer(answer) => {
                    tracing::warn!(answer = %String::from_utf8_lossy(&answer), "refused a message");
                    self.write(answer).await;
                }
                Taken::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut guard = self.writer.lock().await;
        if let Some(mut w) = guard.take() {
            let _ = w.flush().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{EmptyResult, ErrorData, ServerJsonRpcMessage};
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt as _, DuplexStream};

    use super::*;

    /// A transport fed by a pipe, and the client's ends of it.
    struct Harness {
        transport: StdioTransport<DuplexStream, DuplexStream>,
        to_server: DuplexStream,
        from_server: tokio::io::Lines<BufReader<DuplexStream>>,
    }

    fn harness(max: usize) -> Harness {
        let (to_server, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, client_in) = tokio::io::duplex(1 << 20);
        Harness {
            transport: StdioTransport::new(server_in, server_out, max),
            to_server,
            from_server: BufReader::new(client_in).lines(),
        }
    }

    impl Harness {
        async fn send(&mut self, line: &str) {
            self.to_server.write_all(line.as_bytes()).await.unwrap();
            self.to_server.write_all(b"\n").await.unwrap();
        }
        /// The next message rmcp would get (with the transport's own id), within a second.
        async fn received(&mut self) -> Option<Value> {
            let got = tokio::time::timeout(std::time::Duration::from_secs(1), self.transport.receive()).await;
            got.ok().flatten().map(|m| serde_json::to_value(&m).unwrap())
        }
        /// Drives the reading side until the input is consumed; what rmcp would get.
        async fn drain(&mut self) -> Vec<Value> {
            let mut got = Vec::new();
            while let Some(m) = self.received().await {
                got.push(m);
            }
            got
        }
        async fn line(&mut self) -> String {
            tokio::time::timeout(std::time::Duration::from_secs(1), self.from_server.next_line())
                .await
                .expect("an answer")
                .unwrap()
                .unwrap()
        }
        async fn answer(&mut self, ours: i64) {
            let message =
                ServerJsonRpcMessage::response(ServerResult::EmptyResult(EmptyResult {}), NumberOrString::Number(ours));
            self.transport.send(message).await.unwrap();
        }
        async fn initialize(&mut self, version: &str) {
            self.send(&format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
            ))
            .await;
            let init = self.received().await.unwrap();
            let result =
                json!({"protocolVersion": version, "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}});
            let result: ServerResult = serde_json::from_value(result).unwrap();
            let ours = init["id"].as_i64().unwrap();
            self.transport.send(ServerJsonRpcMessage::response(result, NumberOrString::Number(ours))).await.unwrap();
            assert!(self.line().await.starts_with(r#"{"jsonrpc":"2.0","id":0,"result""#));
        }
    }

    fn error_of(line: &str) -> (Value, i64, String) {
        let v: Value = serde_json::from_str(line).unwrap();
        (v["id"].clone(), v["error"]["code"].as_i64().unwrap(), v["error"]["message"].as_str().unwrap().to_owned())
    }

    #[tokio::test]
    async fn text_that_is_not_json_is_answered_with_a_parse_error_and_reading_goes_on() {
        let mut h = harness(1 << 16);
        h.initialize("2025-11-25").await;
        h.send("{not json").await;
        h.send("").await;
        h.send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await;
        let got = h.received().await.unwrap();
        assert_eq!(got["method"], "ping");
        let (id, code, _) = error_of(&h.line().await);
        assert_eq!((id, code), (Value::Null, PARSE_ERROR));
    }

    #[tokio::test]
    async fn what_serde_refuses_is_answered_under_the_id_it_came_with() {
        let mut h = harness(1 << 16);
        h.initialize("2025-11-25").await;
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"file_text":"\ud83d"}}}"#
                    .to_owned(),
                "unpaired UTF-16 surrogate",
            ),
            (
                format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}{}}}"#, "[".repeat(200), "]".repeat(200)),
                "128 levels",
            ),
            (r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"n":1e400}}"#.to_owned(), "64-bit float"),
        ];
        for (line, _) in &cases {
            h.send(line).await;
        }
        assert!(h.received().await.is_none(), "nothing reaches rmcp");
        for (n, (_, why)) in cases.iter().enumerate() {
            let (id, code, message) = error_of(&h.line().await);
            assert_eq!(id, json!(7 + n), "{message}");
            assert_eq!(code, PARSE_ERROR);
            assert!(message.contains(why), "{message}");
        }
    }

    #[tokio::test]
    async fn ids_come_back_byte_exact_and_an_id_in_flight_is_not_reused() {
        let mut h = harness(1 << 16);
        h.initialize("2025-11-25").await;
        for raw in ["18446744073709551616", "1.0", "-0", r#""é""#, "1e2"] {
            h.send(&format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#)).await;
            let got = h.received().await.unwrap();
            h.send(&format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#)).await;
            assert!(h.received().await.is_none());
            let (_, code, message) = error_of(&h.line().await);
            assert_eq!(code, INVALID_REQUEST);
            assert!(message.contains("already used"), "{message}");
            h.answer(got["id"].as_i64().unwrap()).await;
            assert_eq!(h.line().await, format!(r#"{{"jsonrpc":"2.0","id":{raw},"result":{{}}}}"#));
        }
    }

    #[tokio::test]
    async fn a_cancellation_names_the_request_by_the_clients_id() {
        let mut h = harness(1 << 16);
        h.initialize("2025-11-25").await;
        h.send(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).await;
        let ours = h.received().await.unwrap()["id"].clone();
        h.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#).await;
        let cancel = h.received().await.unwrap();
        assert_eq!(cancel["params"]["requestId"], ours);
        h.send(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).await;
        assert!(h.received().await.is_some(), "a cancelled request's id is free again");
    }

    #[tokio::test]
    async fn a_subscriptions_notifications_carry_the_clients_id_byte_exact() {
        let mut h = harness(1 << 16);
        h.send(r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}"#).await;
        let ours = h.received().await.unwrap()["id"].as_i64().unwrap();
        let notification: ServerJsonRpcMessage = serde_json::from_value(json!({
            "jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {SUBSCRIPTION_ID_KEY: ours}}
        }))
        .unwrap();
        h.transport.send(notification).await.unwrap();
        assert_eq!(
            h.line().await,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":18446744073709551616}}}"#
        );
    }

    #[tokio::test]
    async fn batches_are_answered_as_one_array_in_2025_03_26_only() {
        let mut h = harness(1 << 16);
        h.initialize("2025-03-26").await;
        h.send(r#"[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","id":null,"method":"ping"}]"#).await;
        let got = h.drain().await;
        assert_eq!(got.len(), 3, "two requests and the notification: {got:?}");
        assert_eq!(got[1]["method"], "notifications/x");
        let (a, b) = (&got[0], &got[2]);
        h.answer(b["id"].as_i64().unwrap()).await;
        h.answer(a["id"].as_i64().unwrap()).await;
        let batch: Vec<Value> = serde_json::from_str(&h.line().await).unwrap();
        assert_eq!(batch.len(), 3, "{batch:?}");
        assert_eq!(batch[0]["id"], Value::Null);
        assert_eq!(batch[0]["error"]["code"], INVALID_REQUEST);
        assert_eq!(batch[1]["id"], "b");
        assert_eq!(batch[2]["id"], 6);
        h.send("[]").await;
        assert!(h.received().await.is_none());
        assert_eq!(error_of(&h.line().await).1, INVALID_REQUEST);

        let mut later = harness(1 << 16);
        later.initialize("2025-11-25").await;
        later.send(r#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#).await;
        assert!(later.received().await.is_none());
        let (id, code, message) = error_of(&later.line().await);
        assert_eq!((id, code), (Value::Null, INVALID_REQUEST));
        assert!(message.contains("2025-11-25") && message.contains("own line"), "{message}");
    }

    #[tokio::test]
    async fn before_initialize_only_initialize_and_ping_pass() {
        let mut h = harness(1 << 16);
        h.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await;
        h.send(r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#).await;
        h.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        h.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).await;
        assert_eq!(h.received().await.unwrap()["method"], "ping");
        let (id, code, message) = error_of(&h.line().await);
        assert_eq!((id, code), (json!(1), INVALID_REQUEST));
        assert!(message.starts_with("Not initialized") && message.contains("`initialize` first"), "{message}");
        let (id, _, message) = error_of(&h.line().await);
        assert_eq!(id, Value::Null);
        assert!(message.contains("before `initialize`"), "{message}");
    }

    #[tokio::test]
    async fn an_oversized_request_is_answered_under_its_id_and_reading_goes_on() {
        let mut h = harness(1000);
        h.initialize("2025-11-25").await;
        let big =
            format!(r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"a":"{}"}}}}"#, "a".repeat(5000));
        h.send(&big).await;
        let no_id = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":"{}"}},"id":5}}"#,
            "a".repeat(ID_SCAN_PREFIX + 10)
        );
        h.send(&no_id).await;
        h.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).await;
        assert_eq!(h.received().await.unwrap()["method"], "ping");
        let (id, code, message) = error_of(&h.line().await);
        assert_eq!((id, code), (json!(42), INVALID_REQUEST));
        assert!(message.contains("1000 bytes"), "{message}");
    }

    #[tokio::test]
    async fn invalid_requests_and_unusable_ids_are_answered() {
        let mut h = harness(1 << 16);
        h.initialize("2025-11-25").await;
        h.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":5}"#).await;
        h.send(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#).await;
        h.send(r#"{"jsonrpc":"2.0","id":4}"#).await;
        h.send(r#""just a string""#).await;
        h.send(r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#).await;
        h.send(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#).await;
        let rest = h.drain().await;
        assert!(rest.iter().all(|m| m["method"] != "tools/call"), "{rest:?}");
        let (id, code, message) = error_of(&h.line().await);
        assert_eq!((id, code), (json!(3), INVALID_REQUEST));
        assert!(message.contains("tools/call"), "{message}");
        let (id, _, message) = error_of(&h.line().await);
        assert_eq!(id, Value::Null);
        assert!(message.contains("not a string or an integer"), "{message}");
        let (id, _, message) = error_of(&h.line().await);
        assert_eq!(id, json!(4));
        assert!(message.contains("no `method`"), "{message}");
        assert_eq!(error_of(&h.line().await).0, Value::Null);
        drop(h.transport);
        assert_eq!(h.from_server.next_line().await.unwrap(), None, "notifications and responses get no answer");
    }

    #[test]
    fn an_error_object_is_valid_json_with_the_id_as_sent() {
        let bytes = error_object(Some(b"18446744073709551616"), -1, "a \"quoted\"\nmessage");
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with(r#"{"jsonrpc":"2.0","id":18446744073709551616,"#));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["error"]["message"], "a \"quoted\"\nmessage");
        let _ = ErrorData::internal_error("unused", None);
    }
}
