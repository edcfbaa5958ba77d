//! The bridge as a client of the Gemini CLI's IDE companion (VS Code's companion extension, or
//! any plugin written from `docs/ide-integration/ide-companion-spec.md` of google-gemini/gemini-cli).
//!
//! The companion is found through its discovery file ([`file`]) and spoken to in MCP over
//! Streamable HTTP at `/mcp` (`Authorization: Bearer <authToken>`, a session id from
//! `initialize`). Its state comes as notifications on the session's event stream (`GET /mcp`):
//! `ide/contextUpdate` (the open files, the active one's cursor and selected text),
//! `ide/diffAccepted` (with the final text), `ide/diffRejected`. [`GeminiIde`] answers the
//! bridge's protocol methods from those: `ide/openEditors` and `ide/selection` from the last
//! context update, `ide/openDiff` with the companion's `openDiff` tool and the decision's
//! notification (the companion never writes the file: the bridge does, through the sandbox,
//! atomically), `ide/closeDiffs` with `closeDiff`; `fs/*` on disk, confined to `--workspace`.
//! Nothing else (diagnostics, opening or saving files, the language tools) is listed.
//!
//! The event stream ending (the IDE quit) ends the connection: waiting diffs are answered at
//! once, nothing written; the bridge looks for a companion again.

pub mod file;

use std::{
    collections::HashMap,
    path::Path,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use futures::{StreamExt, future::BoxFuture};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_util::{
    client::legacy::{Client, connect::HttpConnector},
    rt::TokioExecutor,
};
use mcp_shared::ErrorCode;
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

pub use file::CompanionFile;

use crate::{
    bridge::{
        ConnectError, RequestError, adapter,
        adapter::MAX_FILE_SIZE,
        conn::{Adapter, Protocol},
    },
    host::fs::WorkspaceFolder,
    protocol::{
        self, CloseDiffsResult, DEFAULT_DIFF_WAIT_MS, DiffStatus, HostInfo, MAX_DIFF_WAIT_MS, METHOD_CLOSE_DIFFS,
        METHOD_INFO, METHOD_LIST, METHOD_NOT_FOUND, METHOD_OPEN_DIFF, METHOD_OPEN_EDITORS, METHOD_READ,
        METHOD_SELECTION, METHOD_WRITE, NOTIFY_SELECTION_CHANGED, OpenDiffParams, OpenDiffResult, OpenEditor,
        OpenEditorsResult, Position, Selection, SelectionResult, WireError,
    },
};

/// The MCP revision the bridge asks the companion for.
const MCP_VERSION: &str = "2025-06-18";
/// The largest answer or event taken from the companion.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// The most data one event stream carries before the bridge reconnects (a bound, not a limit a
/// companion reaches: its events are small).
const MAX_STREAM: usize = 256 * 1024 * 1024;
/// The most open files read from a context update.
const MAX_OPEN_FILES: usize = 1_000;
/// The most diffs open at once.
const MAX_OPEN_DIFFS: usize = 32;
/// The session header.
const SESSION: &str = "mcp-session-id";

type Http = Client<HttpConnector, Full<Bytes>>;

/// What became of a proposal.
#[derive(Debug, Clone)]
enum Outcome {
    Accepted { final_text: String, created: bool },
    Rejected,
    Failed(WireError),
}

#[derive(Debug)]
struct Pending {
    new_text: String,
    /// The file's text when the diff was made (`None`: it did not exist): an accept is written
    /// only over that.
    base: Option<String>,
    outcome: watch::Sender<Option<Outcome>>,
}

/// What the event stream and the requests share.
#[derive(Debug)]
struct Shared {
    name: String,
    folder: WorkspaceFolder,
    paths: adapter::Paths,
    /// The last context update, read.
    context: Mutex<(OpenEditorsResult, SelectionResult)>,
    diffs: Mutex<HashMap<String, Pending>>,
    closed: CancellationToken,
    events: broadcast::Sender<String>,
}

/// A connected Gemini CLI companion.
#[derive(Debug)]
pub struct GeminiIde {
    http: Http,
    url: String,
    token: String,
    session: String,
    tools: Vec<String>,
    info: HostInfo,
    next_id: AtomicU64,
    shared: Arc<Shared>,
}

fn handshake(url: &str, reason: impl Into<String>) -> ConnectError {
    ConnectError::Handshake { url: url.to_owned(), reason: reason.into() }
}

/// Why one HTTP exchange failed.
#[derive(Debug)]
enum HttpError {
    /// The companion cannot be reached (it quit).
    Unreachable(String),
    /// An HTTP status other than success.
    Status(u16),
    /// No answer within the timeout.
    Timeout(Duration),
    /// The answer is not what MCP says.
    Malformed(String),
}

impl GeminiIde {
    fn request_builder(&self, method: hyper::Method) -> hyper::http::request::Builder {
        builder(&self.url, &self.token, method).header(SESSION, &self.session)
    }

    /// Sends a JSON-RPC request and reads its response (JSON, or the first matching message of
    /// an event stream).
    async fn rpc(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let request = self.request_builder(hyper::Method::POST).body(Full::new(Bytes::from(body.to_string())));
        let request =
            request.map_err(|e| RequestError::Host(WireError::rpc(protocol::INTERNAL_ERROR, e.to_string())))?;
        match exchange(&self.http, request, id, timeout, Some(&self.shared)).await {
            Ok(Some(message)) => match (message.get("result"), message.get("error")) {
                (Some(result), None) => Ok(result.clone()),
                (_, Some(error)) => {
                    let text = error.get("message").and_then(Value::as_str).unwrap_or("an error");
                    Err(self.ide_error(method, text))
                }
                (None, None) => Err(self.ide_error(method, "an answer with neither result nor error")),
            },
            Ok(None) => Err(self.ide_error(method, "no answer")),
            Err(HttpError::Unreachable(why)) => {
                tracing::debug!(why, "the companion cannot be reached");
                self.shared.closed.cancel();
                Err(RequestError::Lost)
            }
            Err(HttpError::Status(404)) => {
                // The session is gone (the companion restarted): a new connection is needed.
                self.shared.closed.cancel();
                Err(RequestError::Lost)
            }
            Err(HttpError::Status(status)) => Err(self.ide_error(method, format!("HTTP {status}"))),
            Err(HttpError::Timeout(after)) => Err(RequestError::Timeout(after)),
            Err(HttpError::Malformed(why)) => Err(self.ide_error(method, why)),
        }
    }

    fn ide_error(&self, what: &str, message: impl std::fmt::Display) -> RequestError {
        RequestError::Host(WireError::new(
            ErrorCode::InternalError,
            format!(
                "{} answered {what} with an error: {}",
                self.shared.name,
                mcp_shared::escape::one_line(&message.to_string())
            ),
        ))
    }

    fn lacks(&self, what: &str) -> RequestError {
        RequestError::Host(WireError::rpc(
            METHOD_NOT_FOUND,
            format!("{}, connected through the Gemini CLI companion protocol, has no {what}", self.shared.name),
        ))
    }

    fn has(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }

    /// Calls a companion tool; its text answer.
    async fn call_tool(&self, name: &str, arguments: Value, timeout: Duration) -> Result<Vec<String>, RequestError> {
        let answer = self.rpc("tools/call", json!({"name": name, "arguments": arguments}), timeout).await?;
        let texts: Vec<String> = answer
            .get("content")
            .and_then(Value::as_array)
            .map(|items| {
                items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).map(str::to_owned).collect()
            })
            .unwrap_or_default();
        if answer.get("isError").and_then(Value::as_bool) == Some(true) {
            return Err(self.ide_error(name, texts.join(" ")));
        }
        Ok(texts)
    }

    async fn open_diff(&self, params: OpenDiffParams, timeout: Duration) -> Result<OpenDiffResult, RequestError> {
        if !self.has("openDiff") {
            return Err(self.lacks("openDiff tool"));
        }
        let wait =
            Duration::from_millis(params.wait_ms.unwrap_or(DEFAULT_DIFF_WAIT_MS).min(MAX_DIFF_WAIT_MS)).min(timeout);
        let shown = params.path.clone();
        let file = adapter::on_disk(&self.shared.folder, move |f| f.absolute(&shown, false)).await?;
        let path = params.path;
        let existing = self
            .shared
            .diffs
            .lock()
            .ok()
            .and_then(|d| d.get(&path).filter(|p| p.new_text == params.new_text).map(|p| p.outcome.subscribe()));
        let (mut outcome, reused) = match existing {
            Some(rx) => (rx, true),
            None => {
                let replaced = self.shared.diffs.lock().map(|mut d| d.remove(&path)).ok().flatten();
                if replaced.is_some() {
                    // Its waiters see the sender dropped: withdrawn.
                    let _ = self.call_tool("closeDiff", json!({"filePath": file}), timeout).await;
                }
                if self.shared.diffs.lock().map(|d| d.len()).unwrap_or(0) >= MAX_OPEN_DIFFS {
                    return Err(RequestError::Host(WireError::new(
                        ErrorCode::Unavailable,
                        format!(
                            "{MAX_OPEN_DIFFS} diffs are already open in {} and waiting for the user; nothing was opened for `{path}`. Wait for their decisions, or withdraw them with close_diffs.",
                            self.shared.name
                        ),
                    )));
                }
                let shown = path.clone();
                let base = adapter::on_disk(&self.shared.folder, move |f| f.current_text(&shown)).await?;
                let (tx, rx) = watch::channel(None);
                if let Ok(mut diffs) = self.shared.diffs.lock() {
                    diffs.insert(path.clone(), Pending { new_text: params.new_text.clone(), base, outcome: tx });
                }
                let opened =
                    self.call_tool("openDiff", json!({"filePath": file, "newContent": params.new_text}), timeout).await;
                if let Err(error) = opened {
                    if let Ok(mut diffs) = self.shared.diffs.lock() {
                        diffs.remove(&path);
                    }
                    return Err(error);
                }
                (rx, false)
            }
        };
        let decided = match tokio::time::timeout(wait, outcome.wait_for(Option::is_some)).await {
            Err(_) => None,
            Ok(Ok(outcome)) => outcome.clone(),
            Ok(Err(_)) => Some(Outcome::Rejected),
        };
        let result = |status| OpenDiffResult {
            path: path.clone(),
            status,
            final_text: None,
            user_edited: false,
            created: false,
            reused,
        };
        match decided {
            None => Ok(result(DiffStatus::Pending)),
            Some(Outcome::Rejected) => Ok(result(DiffStatus::Rejected)),
            Some(Outcome::Accepted { final_text, created }) => Ok(OpenDiffResult {
                user_edited: final_text != params.new_text,
                final_text: Some(final_text),
                created,
                ..result(DiffStatus::Accepted)
            }),
            Some(Outcome::Failed(error)) => Err(RequestError::Host(error)),
        }
    }

    async fn close_diffs(&self, timeout: Duration) -> Result<CloseDiffsResult, RequestError> {
        if !self.has("closeDiff") {
            return Err(self.lacks("closeDiff tool"));
        }
        let open: Vec<(String, Pending)> =
            self.shared.diffs.lock().map(|mut d| d.drain().collect()).unwrap_or_default();
        let mut closed = Vec::new();
        for (path, pending) in open {
            let shown = path.clone();
            if let Ok(file) = adapter::on_disk(&self.shared.folder, move |f| f.absolute(&shown, false)).await {
                self.call_tool("closeDiff", json!({"filePath": file}), timeout).await?;
            }
            let _ = pending.outcome.send(Some(Outcome::Rejected));
            closed.push(path);
        }
        closed.sort();
        Ok(CloseDiffsResult { closed })
    }
}

fn builder(url: &str, token: &str, method: hyper::Method) -> hyper::http::request::Builder {
    let mut builder = hyper::Request::builder()
        .method(method)
        .uri(url)
        .header(hyper::header::ACCEPT, "application/json, text/event-stream")
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header("mcp-protocol-version", MCP_VERSION);
    if !token.is_empty() {
        builder = builder.header(hyper::header::AUTHORIZATION, format!("Bearer {token}"));
    }
    builder
}

/// One POST: the response's JSON-RPC message of `id` (`None` for a notification's 202), with any
/// notification that comes before it on an event stream handed to `shared`.
async fn exchange(
    http: &Http,
    request: hyper::Request<Full<Bytes>>,
    id: u64,
    timeout: Duration,
    shared: Option<&Arc<Shared>>,
) -> Result<Option<Value>, HttpError> {
    let work = async {
        let response = http.request(request).await.map_err(|e| HttpError::Unreachable(e.to_string()))?;
        let status = response.status();
        if status == hyper::StatusCode::ACCEPTED {
            return Ok((None, response.headers().clone()));
        }
        if !status.is_success() {
            return Err(HttpError::Status(status.as_u16()));
        }
        let headers = response.headers().clone();
        let sse = headers
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let body = Limited::new(response.into_body(), MAX_MESSAGE);
        if !sse {
            let bytes = body.collect().await.map_err(|e| HttpError::Malformed(e.to_string()))?.to_bytes();
            let message: Value =
                serde_json::from_slice(&bytes).map_err(|e| HttpError::Malformed(format!("not JSON ({e})")))?;
            return Ok((Some(message), headers));
        }
        let mut events = std::pin::pin!(sse_stream::SseStream::new(body.map_err(std::io::Error::other)));
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| HttpError::Malformed(e.to_string()))?;
            let Some(message) = event.data.as_deref().and_then(|d| serde_json::from_str::<Value>(d).ok()) else {
                continue;
            };
            if message.get("id").and_then(Value::as_u64) == Some(id) && message.get("method").is_none() {
                return Ok((Some(message), headers));
            }
            if let Some(shared) = shared {
                on_message(shared, &message).await;
            }
        }
        Err(HttpError::Malformed("the event stream ended without the answer".into()))
    };
    match tokio::time::timeout(timeout, work).await {
        Err(_) => Err(HttpError::Timeout(timeout)),
        Ok(outcome) => outcome.map(|(message, _)| message),
    }
}

/// Connects to the companion of `found` for the workspace `dir`.
pub async fn connect(
    found: &CompanionFile,
    dir: &Path,
    token: Option<&str>,
    events: broadcast::Sender<String>,
    timeout: Duration,
) -> Result<Arc<GeminiIde>, ConnectError> {
    let url = found.url();
    let token = token.unwrap_or(&found.auth_token).to_owned();
    let http: Http = Client::builder(TokioExecutor::new()).build_http();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": MCP_VERSION,
        "capabilities": {},
        "clientInfo": {"name": crate::NAME, "version": env!("CARGO_PKG_VERSION")},
    }});
    let request = builder(&url, &token, hyper::Method::POST)
        .body(Full::new(Bytes::from(init.to_string())))
        .map_err(|_| ConnectError::BadUrl { url: url.clone() })?;
    // The session id is a header of the initialize response: read it from a raw exchange.
    let response = tokio::time::timeout(timeout, http.request(request))
        .await
        .map_err(|_| ConnectError::Unreachable { url: url.clone(), reason: "timed out".into() })?
        .map_err(|e| ConnectError::Unreachable { url: url.clone(), reason: short(&e.to_string()) })?;
    match response.status() {
        s if s == hyper::StatusCode::UNAUTHORIZED || s == hyper::StatusCode::FORBIDDEN => {
            return Err(ConnectError::Unauthorized { url, had_token: !token.is_empty() });
        }
        s if !s.is_success() => return Err(ConnectError::Refused { url, status: s.as_u16() }),
        _ => {}
    }
    let session = response
        .headers()
        .get(SESSION)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 200 && v.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| handshake(&url, "the companion's initialize answer has no session id"))?
        .to_owned();
    drop(response);
    let folder = adapter::workspace(dir).map_err(|e| handshake(&url, e.to_string()))?;
    let root = folder.root();
    let name = mcp_shared::escape::one_line(&found.ide_name).into_owned();
    let shared = Arc::new(Shared {
        name: name.clone(),
        folder,
        paths: adapter::Paths::new(&root, dir),
        context: Mutex::new((OpenEditorsResult::default(), SelectionResult::default())),
        diffs: Mutex::new(HashMap::new()),
        closed: CancellationToken::new(),
        events,
    });
    let info = HostInfo {
        protocol_version: protocol::PROTOCOL_VERSION,
        name: format!("{name} (Gemini CLI companion)"),
        version: String::new(),
        workspace_folders: vec![root.display().to_string()],
        folder_names: Vec::new(),
        read_only: false,
        max_file_size: MAX_FILE_SIZE,
        max_message_size: MAX_MESSAGE as u64,
    };
    let mut ide = GeminiIde {
        http,
        url: url.clone(),
        token,
        session,
        tools: Vec::new(),
        info,
        next_id: AtomicU64::new(2),
        shared,
    };
    let initialized = ide
        .request_builder(hyper::Method::POST)
        .body(Full::new(Bytes::from(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())))
        .map_err(|_| ConnectError::BadUrl { url: url.clone() })?;
    exchange(&ide.http, initialized, 0, timeout, None)
        .await
        .map_err(|e| handshake(&url, format!("notifications/initialized failed: {e:?}")))?;
    let listed = ide
        .rpc("tools/list", json!({}), timeout)
        .await
        .map_err(|e| handshake(&url, format!("tools/list failed: {e:?}")))?;
    ide.tools = listed
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().take(200).filter_map(|t| t.get("name").and_then(Value::as_str)).map(str::to_owned).collect())
        .unwrap_or_default();
    // The session's event stream: notifications until it ends.
    let stream = ide
        .request_builder(hyper::Method::GET)
        .header(hyper::header::ACCEPT, "text/event-stream")
        .body(Full::new(Bytes::new()))
        .map_err(|_| ConnectError::BadUrl { url: url.clone() })?;
    let response = tokio::time::timeout(timeout, ide.http.request(stream))
        .await
        .map_err(|_| handshake(&url, "the event stream did not open in time"))?
        .map_err(|e| handshake(&url, format!("the event stream did not open: {}", short(&e.to_string()))))?;
    if !response.status().is_success() {
        return Err(handshake(&url, format!("the event stream was refused (HTTP {})", response.status().as_u16())));
    }
    tokio::spawn(listen(Arc::clone(&ide.shared), Limited::new(response.into_body(), MAX_STREAM)));
    tracing::info!(ide = %name, url = %url, tools = ?ide.tools, "connected to the IDE through the Gemini CLI companion protocol");
    Ok(Arc::new(ide))
}

fn short(text: &str) -> String {
    mcp_shared::escape::one_line(text).chars().take(200).collect()
}

/// Reads the session's event stream until it ends; then the connection is over.
async fn listen(shared: Arc<Shared>, body: Limited<hyper::body::Incoming>) {
    let mut events = std::pin::pin!(sse_stream::SseStream::new(body.map_err(std::io::Error::other)));
    loop {
        let event = tokio::select! {
            event = events.next() => event,
            () = shared.closed.cancelled() => break,
        };
        match event {
            Some(Ok(event)) => {
                if let Some(message) = event.data.as_deref().and_then(|d| serde_json::from_str::<Value>(d).ok()) {
                    on_message(&shared, &message).await;
                }
            }
            Some(Err(error)) => {
                tracing::debug!(%error, "the companion's event stream failed");
                break;
            }
            None => break,
        }
    }
    shared.closed.cancel();
    // Every diff still waiting is answered: nothing was written.
    let open: Vec<(String, Pending)> = shared.diffs.lock().map(|mut d| d.drain().collect()).unwrap_or_default();
    for (path, pending) in open {
        let _ = pending.outcome.send(Some(Outcome::Failed(WireError::new(
            ErrorCode::Unavailable,
            format!(
                "{} closed the connection (it quit) before the user decided on the change to `{path}`: nothing was written. Open the diff again once the IDE is back",
                shared.name
            ),
        ))));
    }
}

/// One message from the companion (a notification; requests to the bridge are not expected).
async fn on_message(shared: &Arc<Shared>, message: &Value) {
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    match message.get("method").and_then(Value::as_str) {
        Some("ide/contextUpdate") => {
            let read = context(&params, &shared.paths);
            if let Ok(mut context) = shared.context.lock() {
                *context = read;
            }
            let _ = shared.events.send(NOTIFY_SELECTION_CHANGED.to_owned());
        }
        Some("ide/diffAccepted") => {
            let Some(path) = params.get("filePath").and_then(Value::as_str).and_then(|p| shared.paths.workspace(p))
            else {
                return;
            };
            let Some(pending) = shared.diffs.lock().ok().and_then(|mut d| d.remove(&path)) else { return };
            let content = params.get("content").and_then(Value::as_str).unwrap_or(&pending.new_text).to_owned();
            // The companion reports no unsaved edits; the file's text is checked.
            let written =
                adapter::write_accepted(&shared.folder, &shared.name, &path, pending.base.clone(), Ok(false), &content)
                    .await;
            let outcome = match written {
                Ok(written) => Outcome::Accepted { final_text: content, created: written.created },
                Err(error) => Outcome::Failed(error),
            };
            let _ = pending.outcome.send(Some(outcome));
        }
        Some("ide/diffRejected" | "ide/diffClosed") => {
            let Some(path) = params.get("filePath").and_then(Value::as_str).and_then(|p| shared.paths.workspace(p))
            else {
                return;
            };
            if let Some(pending) = shared.diffs.lock().ok().and_then(|mut d| d.remove(&path)) {
                let _ = pending.outcome.send(Some(Outcome::Rejected));
            }
        }
        _ => {}
    }
}

/// An `ide/contextUpdate`: `{workspaceState: {openFiles: [{path, timestamp, isActive, cursor:
/// {line, character}, selectedText}]}}`, lines and characters 1-based.
fn context(params: &Value, paths: &adapter::Paths) -> (OpenEditorsResult, SelectionResult) {
    let files = params
        .get("workspaceState")
        .and_then(|w| w.get("openFiles"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut editors = OpenEditorsResult::default();
    let mut selection = SelectionResult::default();
    // The most recently focused file is the active one, as the Gemini CLI reads it.
    let active = files
        .iter()
        .take(MAX_OPEN_FILES)
        .enumerate()
        .max_by_key(|(_, f)| f.get("timestamp").and_then(Value::as_u64).unwrap_or(0))
        .map(|(i, _)| i);
    for (i, file) in files.iter().take(MAX_OPEN_FILES).enumerate() {
        let Some(path) = file.get("path").and_then(Value::as_str).and_then(|p| paths.workspace(p)) else {
            editors.outside += 1;
            continue;
        };
        let is_active = Some(i) == active;
        if is_active && let Some(cursor) = file.get("cursor") {
            let at = |key: &str| {
                cursor.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).unwrap_or(1).max(1)
            };
            let position = Position { line: at("line"), column: at("character") };
            let mut text = file.get("selectedText").and_then(Value::as_str).unwrap_or_default().to_owned();
            let text_truncated = text.encode_utf16().count() > protocol::MAX_SELECTION_TEXT;
            if text_truncated {
                let mut units = 0;
                let cut = text
                    .char_indices()
                    .find(|(_, c)| {
                        units += c.len_utf16();
                        units > protocol::MAX_SELECTION_TEXT
                    })
                    .map_or(text.len(), |(at, _)| at);
                text.truncate(cut);
            }
            selection.selection =
                Some(Selection { path: path.clone(), start: position, end: position, text, text_truncated });
        }
        if !editors.editors.iter().any(|e| e.path == path) {
            editors.editors.push(OpenEditor { path, active: is_active, dirty: false, language: None });
        }
    }
    (editors, selection)
}

impl Adapter for GeminiIde {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RequestError>> {
        Box::pin(async move {
            if self.shared.closed.is_cancelled() {
                return Err(RequestError::Lost);
            }
            match method {
                METHOD_INFO => adapter::to_value(&self.info),
                METHOD_LIST | METHOD_READ | METHOD_WRITE => {
                    adapter::files(&self.shared.folder, method, params).await.unwrap_or_else(|| Err(self.lacks(method)))
                }
                METHOD_OPEN_EDITORS => {
                    let editors = self.shared.context.lock().map(|c| c.0.clone()).unwrap_or_default();
                    adapter::to_value(&editors)
                }
                METHOD_SELECTION => {
                    let selection = self.shared.context.lock().map(|c| c.1.clone()).unwrap_or_default();
                    adapter::to_value(&selection)
                }
                METHOD_OPEN_DIFF => adapter::to_value(&self.open_diff(adapter::parse(method, params)?, timeout).await?),
                METHOD_CLOSE_DIFFS => adapter::to_value(&self.close_diffs(timeout).await?),
                _ => Err(self.lacks("diagnostics, file opening or saving, or language-server tools")),
            }
        })
    }

    fn info(&self) -> &HostInfo {
        &self.info
    }

    fn offers(&self, tool: &str) -> bool {
        match tool {
            "list_files" | "read_file" | "write_file" | "ide_status" | "get_open_editors" | "get_selection" => true,
            "open_diff" => self.has("openDiff"),
            "close_diffs" => self.has("closeDiff"),
            _ => false,
        }
    }

    fn ide_name(&self) -> &str {
        &self.shared.name
    }

    fn protocol(&self) -> Protocol {
        Protocol::Gemini
    }

    fn url(&self) -> &str {
        &self.url
    }

    fn is_closed(&self) -> bool {
        self.shared.closed.is_cancelled()
    }

    fn closed(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.shared.closed.cancelled())
    }

    fn close(&self) {
        self.shared.closed.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_update_gives_the_open_files_and_the_active_one_s_selection() {
        let paths = adapter::Paths::new(Path::new("/w/p"), Path::new("/w/p"));
        let update = json!({"workspaceState": {"openFiles": [
            {"path": "/w/p/a.ts", "timestamp": 5},
            {"path": "/etc/passwd", "timestamp": 9},
            {"path": "/w/p/src/b.ts", "timestamp": 7, "isActive": true, "cursor": {"line": 3, "character": 4}, "selectedText": "hi"}
        ]}});
        let (editors, selection) = context(&update, &paths);
        assert_eq!(editors.outside, 1);
        let got: Vec<(&str, bool)> = editors.editors.iter().map(|e| (e.path.as_str(), e.active)).collect();
        // The newest is outside the workspace: no workspace file is active.
        assert_eq!(got, [("a.ts", false), ("src/b.ts", false)]);
        assert!(selection.selection.is_none());
        let update = json!({"workspaceState": {"openFiles": [
            {"path": "/w/p/src/b.ts", "timestamp": 7, "cursor": {"line": 3, "character": 4}, "selectedText": "hi"}
        ]}});
        let (_, selection) = context(&update, &paths);
        let s = selection.selection.unwrap();
        assert_eq!((s.path.as_str(), s.start, s.text.as_str()), ("src/b.ts", Position { line: 3, column: 4 }, "hi"));
        assert_eq!(context(&json!(null), &paths).0.editors, []);
    }
}
