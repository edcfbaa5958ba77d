//! One WebSocket connection at the host: JSON-RPC requests in, responses out, in any order.
//!
//! A reader loop parses each text frame and spawns the request; a writer task sends responses
//! and pings (batching whatever is queued into one flush). Each request in flight has a
//! cancellation token, so `$/cancelRequest` (or the connection closing) abandons a request whose
//! file operation has not started yet. A peer that sends nothing at all (not even a pong) for
//! two ping intervals is dropped.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use futures::{SinkExt, StreamExt};
use mcp_shared::ErrorCode;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::{net::TcpStream, sync::mpsc};
use tokio_tungstenite::{
    WebSocketStream,
    tungstenite::{
        Error as WsError, Message,
        error::CapacityError,
        protocol::{CloseFrame, frame::coding::CloseCode},
    },
};
use tokio_util::sync::CancellationToken;

use super::Shared;
use crate::protocol::{
    self, CancelParams, INVALID_PARAMS, INVALID_REQUEST, ListParams, MAX_IN_FLIGHT, METHOD_CANCEL, METHOD_DIAGNOSTICS,
    METHOD_INFO, METHOD_LIST, METHOD_NOT_FOUND, METHOD_OPEN_EDITORS, METHOD_OPEN_FILE, METHOD_READ, METHOD_SELECTION,
    METHOD_WRITE, OpenEditorsResult, PARSE_ERROR, ReadParams, SelectionResult, WireError, WriteParams,
};
use crate::ws::{KeepAlive, Tick, write_batch};

/// The requests in flight on one connection, by the JSON text of their id.
type InFlight = Arc<Mutex<HashMap<String, CancellationToken>>>;

/// Serves one upgraded connection until it closes, the peer goes silent, or `shutdown`.
pub(crate) async fn run(ws: WebSocketStream<TcpStream>, shared: Arc<Shared>, shutdown: CancellationToken) {
    let (mut sink, mut stream) = ws.split();
    let (out_tx, mut out_rx) = mpsc::channel::<Message>(1024);
    let writer = tokio::spawn(async move {
        while let Some(message) = out_rx.recv().await {
            let closing = matches!(message, Message::Close(_));
            if write_batch(&mut sink, message, || out_rx.try_recv().ok()).await.is_err() {
                return;
            }
            if closing {
                break;
            }
        }
        let _ = sink.close().await;
    });

    let in_flight: InFlight = Arc::default();
    let mut keep_alive = KeepAlive::new(shared.ping_interval);
    let close =
        |code: CloseCode, reason: &'static str| Message::Close(Some(CloseFrame { code, reason: reason.into() }));

    loop {
        tokio::select! {
            incoming = stream.next() => match incoming {
                None => break,
                Some(Ok(message)) => {
                    keep_alive.seen();
                    match message {
                        Message::Text(text) => on_text(text.as_str(), &shared, &out_tx, &in_flight).await,
                        Message::Binary(_) => {
                            let error = WireError::rpc(INVALID_REQUEST, "binary frames are not supported; send each JSON-RPC message as one text frame");
                            let _ = out_tx.send(text_message(&protocol::response(Value::Null, Err(error)))).await;
                        }
                        Message::Close(_) => break,
                        Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
                    }
                }
                Some(Err(WsError::Capacity(CapacityError::MessageTooLong { size, max_size }))) => {
                    tracing::warn!(size, max_size, "closing a connection that sent a message over the size limit");
                    let _ = out_tx.send(close(CloseCode::Size, "message too big (over the host's maxMessageSize)")).await;
                    break;
                }
                Some(Err(error)) => {
                    tracing::debug!(%error, "connection error");
                    break;
                }
            },
            tick = keep_alive.tick() => match tick {
                Tick::Dead => {
                    tracing::info!("closing a connection silent for two ping intervals");
                    let _ = out_tx.send(close(CloseCode::Away, "keep-alive timeout")).await;
                    break;
                }
                Tick::Ping => {
                    let _ = out_tx.send(Message::Ping(Vec::new().into())).await;
                }
            },
            () = shutdown.cancelled() => {
                let _ = out_tx.send(close(CloseCode::Away, "the host is shutting down")).await;
                break;
            }
        }
    }
    if let Ok(map) = in_flight.lock() {
        for token in map.values() {
            token.cancel();
        }
    }
    drop(out_tx);
    let _ = writer.await;
}

fn text_message(value: &Value) -> Message {
    Message::Text(value.to_string().into())
}

/// Handles one text frame: a request (spawned), a notification, or garbage (answered with id null).
async fn on_text(text: &str, shared: &Arc<Shared>, out: &mpsc::Sender<Message>, in_flight: &InFlight) {
    let reply_null =
        |code: i64, message: &str| text_message(&protocol::response(Value::Null, Err(WireError::rpc(code, message))));
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => {
            let _ = out.send(reply_null(PARSE_ERROR, "parse error: the message is not valid JSON")).await;
            return;
        }
    };
    let Value::Object(mut object) = value else {
        let message = if value.is_array() {
            "batches are not supported; send one JSON-RPC request per message"
        } else {
            "invalid request: a JSON-RPC message is an object"
        };
        let _ = out.send(reply_null(INVALID_REQUEST, message)).await;
        return;
    };
    let id = object.remove("id").filter(|id| id.is_number() || id.is_string());
    let method = object.get("method").and_then(Value::as_str).map(str::to_owned);
    let params = object.remove("params");
    let version_ok = object.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let is_response = object.contains_key("result") || object.contains_key("error");

    match (id, method) {
        (None, Some(method)) if version_ok => {
            if method == METHOD_CANCEL
                && let Some(cancel) = params.and_then(|p| serde_json::from_value::<CancelParams>(p).ok())
                && let Ok(map) = in_flight.lock()
                && let Some(token) = map.get(&cancel.id.to_string())
            {
                tracing::debug!(id = %cancel.id, "request cancelled by the client");
                token.cancel();
            }
            // Other notifications are ignored, as JSON-RPC says.
        }
        (Some(id), Some(method)) if version_ok => {
            let key = id.to_string();
            let token = CancellationToken::new();
            let refused = match in_flight.lock() {
                Ok(mut map) => {
                    if map.len() >= MAX_IN_FLIGHT {
                        Some(WireError::new(
                            ErrorCode::Unavailable,
                            format!(
                                "too many requests in flight on this connection (limit {MAX_IN_FLIGHT}); wait for answers"
                            ),
                        ))
                    } else if map.contains_key(&key) {
                        Some(WireError::rpc(
                            INVALID_REQUEST,
                            format!("request id {key} is already in flight on this connection"),
                        ))
                    } else {
                        map.insert(key.clone(), token.clone());
                        None
                    }
                }
                Err(_) => Some(WireError::rpc(protocol::INTERNAL_ERROR, "internal error")),
            };
            if let Some(error) = refused {
                let _ = out.send(text_message(&protocol::response(id, Err(error)))).await;
                return;
            }
            let shared = Arc::clone(shared);
            let out = out.clone();
            let in_flight = Arc::clone(in_flight);
            tokio::spawn(async move {
                let outcome = dispatch(&shared, &method, params, &token).await;
                if let Ok(mut map) = in_flight.lock() {
                    map.remove(&key);
                }
                let mut text = match outcome {
                    Ok(value) => protocol::response(id.clone(), Ok(value)).to_string(),
                    Err(error) => protocol::response(id.clone(), Err(error)).to_string(),
                };
                // A bridge drops a larger message, and the connection with it: the caller is told
                // why instead of "the connection was lost".
                if text.len() > protocol::BRIDGE_MAX_MESSAGE_SIZE {
                    let error = WireError::new(
                        ErrorCode::FileTooLarge,
                        format!(
                            "the answer is {} bytes, over the {} bytes a bridge accepts in one message",
                            text.len(),
                            protocol::BRIDGE_MAX_MESSAGE_SIZE
                        ),
                    );
                    text = protocol::response(id, Err(error)).to_string();
                }
                let _ = out.send(Message::Text(text.into())).await;
            });
        }
        (Some(id), _) if !is_response => {
            let message =
                if version_ok { "invalid request: no `method`" } else { "invalid request: `jsonrpc` must be \"2.0\"" };
            let error = WireError::rpc(INVALID_REQUEST, message);
            let _ = out.send(text_message(&protocol::response(id, Err(error)))).await;
        }
        (None, Some(_)) => {
            let _ = out.send(reply_null(INVALID_REQUEST, "invalid request: `jsonrpc` must be \"2.0\"")).await;
        }
        // Responses (the host sends no requests) and id-less garbage without a method.
        (_, _) if is_response => {}
        (None, None) => {
            let _ = out.send(reply_null(INVALID_REQUEST, "invalid request: no `method`")).await;
        }
        (Some(_), _) => {}
    }
}

/// Parses `params` (absent means `{}`) or says which field is wrong.
fn parse<P: DeserializeOwned>(method: &str, params: Option<Value>) -> Result<P, WireError> {
    let params = match params {
        None | Some(Value::Null) => json!({}),
        Some(p @ Value::Object(_)) => p,
        Some(_) => {
            return Err(WireError::rpc(
                INVALID_PARAMS,
                format!("invalid params for {method}: params must be an object"),
            ));
        }
    };
    serde_json::from_value(params)
        .map_err(|e| WireError::new(ErrorCode::InvalidArgs, format!("invalid params for {method}: {e}")))
}

/// Runs one request.
async fn dispatch(
    shared: &Arc<Shared>,
    method: &str,
    params: Option<Value>,
    token: &CancellationToken,
) -> Result<Value, WireError> {
    match method {
        METHOD_INFO => serde_json::to_value(&shared.info).map_err(internal),
        METHOD_LIST | "fs/listFiles" => {
            let params: ListParams = parse(METHOD_LIST, params)?;
            to_value(blocking(shared, token, move |ws| ws.list(&params)).await)
        }
        METHOD_READ | "fs/readFile" => {
            let params: ReadParams = parse(METHOD_READ, params)?;
            // On the blocking pool, as every file-system call: the runtime's threads keep
            // serving every bridge whatever a file system does.
            blocking(shared, token, move |ws| ws.read(&params)).await.map(|r| serde_json::json!({"content": r.content}))
        }
        METHOD_WRITE | "fs/writeFile" => {
            let params: WriteParams = parse(METHOD_WRITE, params)?;
            to_value(blocking(shared, token, move |ws| ws.write(&params)).await)
        }
        // Headless: no editor, so no tabs and no selection (plain empty answers), and no language
        // servers or window (said plainly, as "method not found" with the reason).
        METHOD_OPEN_EDITORS => to_value(Ok(OpenEditorsResult::default())),
        METHOD_SELECTION => to_value(Ok(SelectionResult::default())),
        METHOD_DIAGNOSTICS => Err(WireError::rpc(
            METHOD_NOT_FOUND,
            "ide-bridge-host is headless: no language server runs in it, so it has no diagnostics",
        )),
        METHOD_OPEN_FILE => {
            Err(WireError::rpc(METHOD_NOT_FOUND, "ide-bridge-host is headless: it has no window to show a file in"))
        }
        protocol::METHOD_DEFINITION
        | protocol::METHOD_REFERENCES
        | protocol::METHOD_HOVER
        | protocol::METHOD_SYMBOLS
        | protocol::METHOD_RENAME
        | protocol::METHOD_IMPLEMENTATIONS
        | protocol::METHOD_CALL_HIERARCHY
        | protocol::METHOD_TYPE_HIERARCHY
        | protocol::METHOD_CODE_ACTIONS
        | protocol::METHOD_APPLY_CODE_ACTION
        | protocol::METHOD_FORMAT
        | protocol::METHOD_SIGNATURE_HELP => Err(WireError::rpc(
            METHOD_NOT_FOUND,
            "ide-bridge-host is headless: no language server runs in it, so it cannot look up, rename, fix or format code",
        )),
        protocol::METHOD_OPEN_DIFF | protocol::METHOD_CLOSE_DIFFS => Err(WireError::rpc(
            METHOD_NOT_FOUND,
            "ide-bridge-host is headless: it has no window to show a diff in, and no user to accept it",
        )),
        protocol::METHOD_SAVE_FILE => Err(WireError::rpc(
            METHOD_NOT_FOUND,
            "ide-bridge-host is headless: it has no editor buffers, so every file is already saved",
        )),
        other => Err(WireError::rpc(
            METHOD_NOT_FOUND,
            format!(
                "method `{other}` not found; this host knows {METHOD_INFO}, {METHOD_LIST}, {METHOD_READ}, {METHOD_WRITE}, {METHOD_DIAGNOSTICS}, {METHOD_OPEN_EDITORS}, {METHOD_SELECTION}, {METHOD_OPEN_FILE}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}",
                protocol::METHOD_DEFINITION,
                protocol::METHOD_REFERENCES,
                protocol::METHOD_HOVER,
                protocol::METHOD_SYMBOLS,
                protocol::METHOD_RENAME,
                protocol::METHOD_IMPLEMENTATIONS,
                protocol::METHOD_CALL_HIERARCHY,
                protocol::METHOD_TYPE_HIERARCHY,
                protocol::METHOD_SIGNATURE_HELP,
                protocol::METHOD_CODE_ACTIONS,
                protocol::METHOD_APPLY_CODE_ACTION,
                protocol::METHOD_FORMAT,
                protocol::METHOD_OPEN_DIFF,
                protocol::METHOD_CLOSE_DIFFS,
                protocol::METHOD_SAVE_FILE
            ),
        )),
    }
}

fn to_value<T: serde::Serialize>(outcome: Result<T, WireError>) -> Result<Value, WireError> {
    outcome.and_then(|v| serde_json::to_value(v).map_err(internal))
}

fn internal(error: impl std::fmt::Display) -> WireError {
    tracing::error!(%error, "internal error");
    WireError::new(ErrorCode::InternalError, "internal error in the host; details are in its log")
}

fn cancelled() -> WireError {
    WireError::new(ErrorCode::Cancelled, "the request was cancelled before it ran; nothing was changed")
}

/// Runs a file operation that may take long (a walk, a write with fsync) on the blocking pool,
/// unless the request was cancelled first.
async fn blocking<T: Send + 'static>(
    shared: &Arc<Shared>,
    token: &CancellationToken,
    op: impl FnOnce(&super::fs::WorkspaceFolder) -> Result<T, WireError> + Send + 'static,
) -> Result<T, WireError> {
    if token.is_cancelled() {
        return Err(cancelled());
    }
    let shared = Arc::clone(shared);
    let token = token.clone();
    let joined = tokio::task::spawn_blocking(move || {
        if token.is_cancelled() {
            return Err(cancelled());
        }
        op(&shared.workspace)
    })
    .await;
    joined.unwrap_or_else(|e| Err(internal(e)))
}
