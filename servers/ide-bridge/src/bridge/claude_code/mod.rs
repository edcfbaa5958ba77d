//! The bridge as a client of the Claude Code IDE protocol: the protocol the official Claude Code
//! extension for VS Code, the Claude Code plugin for JetBrains IDEs, claudecode.nvim and
//! claude-code-ide.el serve to the Claude Code CLI.
//!
//! The IDE is found through its lock file ([`lock`]), reached over a WebSocket on 127.0.0.1 with
//! the `x-claude-code-ide-authorization` header (subprotocol `mcp` offered), and spoken to in MCP
//! JSON-RPC (`initialize` with 2024-11-05, then `tools/call`). [`ClaudeIde`] answers the bridge's
//! own protocol methods with the IDE's tools, so every bridge tool works unchanged:
//!
//! - `fs/*` on disk, through the sandbox, confined to the bridge's `--workspace` (which lies in
//!   one of the IDE's workspace folders: the intersection of the two);
//! - `ide/diagnostics` ← `getDiagnostics` (the file opened first where the IDE reports open
//!   files only), `ide/openEditors` ← `getOpenEditors`, `ide/selection` ← the last
//!   `selection_changed` (or `getCurrentSelection`), `ide/openFile` ← `openFile`,
//!   `ide/saveFile` ← `saveDocument`;
//! - `ide/openDiff` ← `openDiff`, which blocks until the user acts ([`diff`]): the IDE never
//!   writes the file, the bridge does (atomically, through the sandbox), then closes the tab;
//!   `ide/closeDiffs` ← `closeAllDiffTabs`;
//! - the language-server methods (`lang/*`) and `executeCode`: never (such tools are not listed
//!   for this connection).
//!
//! Everything the IDE says is untrusted: answers are read into the protocol types by [`convert`]
//! (bounded, paths outside the workspace dropped), a malformed answer is an error naming the
//! tool, and the IDE's own error codes are never taken for the bridge's.

mod caller;
pub(crate) mod convert;
mod diff;
pub mod lock;

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex, atomic::AtomicU64},
    time::Duration,
};

use futures::future::BoxFuture;
use mcp_shared::ErrorCode;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::{
    Error as WsError,
    client::IntoClientRequest,
    error::{ProtocolError, SubProtocolError},
    http::{HeaderValue, StatusCode},
    protocol::WebSocketConfig,
};

use crate::{
    bridge::{
        ConnectError, Link, RequestError,
        adapter::{self, files, on_disk, parse, to_value, workspace},
        conn::{Adapter, Protocol},
    },
    host::fs::WorkspaceFolder,
    protocol::{
        self, DiagnosticsParams, DiagnosticsResult, HostInfo, METHOD_CLOSE_DIFFS, METHOD_DIAGNOSTICS, METHOD_INFO,
        METHOD_LIST, METHOD_NOT_FOUND, METHOD_OPEN_DIFF, METHOD_OPEN_EDITORS, METHOD_OPEN_FILE, METHOD_READ,
        METHOD_SAVE_FILE, METHOD_SELECTION, METHOD_WRITE, NOTIFY_DIAGNOSTICS_CHANGED, NOTIFY_SELECTION_CHANGED,
        OpenFileParams, OpenFileResult, ReadParams, ReadResult, SaveFileParams, SaveFileResult, Selection,
        SelectionResult, WireError, WriteParams, WriteResult,
    },
};
use caller::Caller;
pub use lock::IdeLock;

/// The header the IDE checks the lock file's token in.
pub const AUTH_HEADER: &str = "x-claude-code-ide-authorization";
/// The MCP revision the bridge asks for (the one the IDEs answer with).
pub const MCP_VERSION: &str = "2024-11-05";
/// The largest message taken from the IDE.
const MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;
/// How long a file the bridge had to open is watched for its first diagnostics by default.
const DIAGNOSTICS_SETTLE: Duration = Duration::from_millis(1_000);
/// The most tools read from the IDE's `tools/list`.
const MAX_IDE_TOOLS: usize = 200;

/// A connected IDE of the Claude Code IDE protocol.
#[derive(Debug)]
pub struct ClaudeIde {
    caller: Caller,
    tools: Vec<String>,
    info: HostInfo,
    folder: WorkspaceFolder,
    paths: adapter::Paths,
    /// The last `selection_changed`, read (`None` until one came).
    selection: Arc<Mutex<Option<SelectionResult>>>,
    diffs: diff::Diffs,
}

/// Which bridge tool needs which IDE tool (any of them).
const NEEDS: &[(&str, &[&str])] = &[
    ("get_diagnostics", &["getDiagnostics"]),
    ("get_open_editors", &["getOpenEditors"]),
    ("get_selection", &["getCurrentSelection", "getLatestSelection"]),
    ("open_file", &["openFile"]),
    ("save_file", &["saveDocument"]),
    ("open_diff", &["openDiff"]),
    ("close_diffs", &["closeAllDiffTabs"]),
];

/// The bridge tools served whatever the IDE has: the files (on disk) and the status.
const ALWAYS: &[&str] = &["list_files", "read_file", "write_file", "ide_status"];

fn handshake(url: &str, reason: impl Into<String>) -> ConnectError {
    ConnectError::Handshake { url: url.to_owned(), reason: reason.into() }
}

/// Opens the WebSocket: the token in [`AUTH_HEADER`], the `mcp` subprotocol offered (and the
/// connection tried again without it if the IDE does not echo it).
async fn open(url: &str, token: &str, timeout: Duration) -> Result<crate::bridge::link::Socket, ConnectError> {
    let config = WebSocketConfig::default()
        .read_buffer_size(64 * 1024)
        .write_buffer_size(64 * 1024)
        .max_message_size(Some(MAX_MESSAGE_SIZE))
        .max_frame_size(Some(MAX_MESSAGE_SIZE));
    for subprotocol in [true, false] {
        let mut request = url.into_client_request().map_err(|_| ConnectError::BadUrl { url: url.to_owned() })?;
        if !token.is_empty() {
            // A token that cannot be sent as a header (a newline, a control character) is the
            // lock file's fault, not a refusal by the IDE: said as it is.
            let value =
                HeaderValue::from_str(token).map_err(|_| ConnectError::UnsendableToken { url: url.to_owned() })?;
            request.headers_mut().insert(AUTH_HEADER, value);
        }
        if subprotocol {
            request.headers_mut().insert("sec-websocket-protocol", HeaderValue::from_static("mcp"));
        }
        let connected =
            tokio::time::timeout(timeout, tokio_tungstenite::connect_async_with_config(request, Some(config), true))
                .await;
        match connected {
            Err(_) => return Err(ConnectError::Unreachable { url: url.to_owned(), reason: "timed out".into() }),
            Ok(Ok((ws, _))) => return Ok(ws),
            Ok(Err(WsError::Protocol(ProtocolError::SecWebSocketSubProtocolError(
                SubProtocolError::NoSubProtocol,
            )))) if subprotocol => {}
            Ok(Err(WsError::Http(response))) => {
                let body = response.body().as_deref().map(String::from_utf8_lossy).unwrap_or_default().to_lowercase();
                let status = response.status();
                // claudecode.nvim refuses a wrong token with 400 "…authentication…".
                let auth = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
                    || (status == StatusCode::BAD_REQUEST && body.contains("auth"));
                return Err(if auth {
                    ConnectError::Unauthorized { url: url.to_owned(), had_token: !token.is_empty() }
                } else {
                    ConnectError::Refused { url: url.to_owned(), status: status.as_u16() }
                });
            }
            Ok(Err(WsError::Io(error))) => {
                let reason = match error.kind() {
                    std::io::ErrorKind::ConnectionRefused => "connection refused".to_owned(),
                    kind => kind.to_string(),
                };
                return Err(ConnectError::Unreachable { url: url.to_owned(), reason });
            }
            Ok(Err(error)) => return Err(handshake(url, error.to_string())),
        }
    }
    Err(handshake(url, "the IDE refused the WebSocket upgrade"))
}

/// Connects to the IDE of `lock` for the workspace `dir` (canonical; it lies in one of the IDE's
/// folders), with `token` (else the lock file's), telling `events` of its notifications.
pub async fn connect(
    lock: &IdeLock,
    dir: &Path,
    token: Option<&str>,
    events: broadcast::Sender<String>,
    timeout: Duration,
) -> Result<Arc<ClaudeIde>, ConnectError> {
    let url = lock.url();
    let ws = open(&url, token.unwrap_or(&lock.auth_token), timeout).await?;
    let (notes_tx, notes_rx) = crate::bridge::link::notes_channel();
    let link = Link::spawn_mcp(ws, url.clone(), notes_tx);
    let had_token = !token.unwrap_or(&lock.auth_token).is_empty();
    let fail = |link: &Link, what: &str, error: RequestError| {
        link.close();
        // VS Code's extension takes the upgrade, then closes a connection with a wrong token
        // with 1008 ("Unauthorized").
        if error == RequestError::Lost && link.close_code() == Some(1008) {
            return ConnectError::Unauthorized { url: url.clone(), had_token };
        }
        handshake(&url, format!("{what} failed: {error:?}"))
    };
    let init = json!({
        "protocolVersion": MCP_VERSION,
        "capabilities": {},
        "clientInfo": {"name": crate::NAME, "version": env!("CARGO_PKG_VERSION")},
    });
    let answer = link.request(1, "initialize", init, timeout).await.map_err(|e| fail(&link, "initialize", e))?;
    let server = answer.get("serverInfo").and_then(|s| s.get("name")).and_then(Value::as_str).unwrap_or("");
    let version = answer.get("serverInfo").and_then(|s| s.get("version")).and_then(Value::as_str).unwrap_or("");
    link.notify("notifications/initialized", json!({}));
    let listed = link.request(2, "tools/list", json!({}), timeout).await.map_err(|e| fail(&link, "tools/list", e))?;
    let tools: Vec<String> = listed
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .take(MAX_IDE_TOOLS)
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .filter(|n| n.len() <= 100)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let folder = workspace(dir).map_err(|e| {
        link.close();
        handshake(&url, e.to_string())
    })?;
    let root = folder.root();
    let name = mcp_shared::escape::one_line(&lock.ide_name).into_owned();
    let info = HostInfo {
        protocol_version: protocol::PROTOCOL_VERSION,
        name: format!("{name} ({})", mcp_shared::escape::one_line(server)),
        version: mcp_shared::escape::one_line(version).into_owned(),
        workspace_folders: vec![root.display().to_string()],
        folder_names: Vec::new(),
        read_only: false,
        max_file_size: crate::bridge::adapter::MAX_FILE_SIZE,
        max_message_size: MAX_MESSAGE_SIZE as u64,
    };
    let paths = adapter::Paths::new(&root, &lock_folder_form(lock, &root));
    let selection = Arc::new(Mutex::new(None));
    tokio::spawn(notes(notes_rx, paths.clone(), Arc::clone(&selection), events));
    tracing::info!(ide = %name, url = %url, tools = ?tools, "connected to the IDE through the Claude Code IDE protocol");
    let dirty_tool = ["checkDocumentDirty", "getOpenEditors"].into_iter().find(|t| tools.iter().any(|n| n == t));
    Ok(Arc::new(ClaudeIde {
        caller: Caller {
            link,
            name: name.into(),
            next_id: Arc::new(AtomicU64::new(3)),
            dirty_tool,
            paths: paths.clone(),
        },
        tools,
        info,
        folder,
        paths,
        selection,
        diffs: diff::Diffs::default(),
    }))
}

/// The workspace root as the IDE may spell it: the root re-based on the IDE's own folder when
/// that folder is a non-canonical spelling (a symlink) of one containing the root.
fn lock_folder_form(lock: &IdeLock, root: &Path) -> PathBuf {
    for folder in lock.workspace_folders.iter().map(Path::new) {
        if let Ok(real) = mcp_shared::platform::canonicalize(folder)
            && let Ok(rest) = root.strip_prefix(&real)
        {
            return folder.join(rest);
        }
    }
    root.to_path_buf()
}

/// Reads the IDE's notifications until the connection ends.
async fn notes(
    mut rx: crate::bridge::link::NoteReceiver,
    paths: adapter::Paths,
    selection: Arc<Mutex<Option<SelectionResult>>>,
    events: broadcast::Sender<String>,
) {
    while let Some(batch) = rx.recv().await {
        for (method, params) in batch {
            match method.as_str() {
                "selection_changed" => match convert::selection(&params, &paths) {
                    Ok(read) => {
                        if let Ok(mut last) = selection.lock() {
                            *last = Some(read);
                        }
                        let _ = events.send(NOTIFY_SELECTION_CHANGED.to_owned());
                    }
                    Err(error) => tracing::debug!(%error, "an unreadable selection_changed from the IDE; ignored"),
                },
                "diagnostics_changed" => {
                    let _ = events.send(NOTIFY_DIAGNOSTICS_CHANGED.to_owned());
                }
                other => tracing::debug!(method = other, "a notification from the IDE; ignored"),
            }
        }
    }
}

impl ClaudeIde {
    /// The IDE's name.
    pub fn name(&self) -> &str {
        &self.caller.name
    }

    async fn call_tool(&self, name: &str, arguments: Value, timeout: Duration) -> Result<Vec<String>, RequestError> {
        self.caller.call_tool(name, arguments, timeout).await
    }

    async fn call_tool_raw(
        &self,
        name: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Result<Vec<String>, WireError>, RequestError> {
        self.caller.call_tool_raw(name, arguments, timeout).await
    }

    async fn call_json(&self, tool: &str, arguments: Value, timeout: Duration) -> Result<Value, RequestError> {
        self.caller.call_json(tool, arguments, timeout).await
    }

    fn ide_error(&self, tool: &str, message: impl std::fmt::Display) -> RequestError {
        self.caller.ide_error(tool, message)
    }

    fn unreadable(&self, message: impl std::fmt::Display) -> RequestError {
        self.caller.unreadable(message)
    }

    fn has(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }

    /// Not served through this IDE: "method not found", saying which IDE lacks what.
    fn lacks(&self, what: &str) -> RequestError {
        RequestError::Host(WireError::rpc(
            METHOD_NOT_FOUND,
            format!("{}, connected through the Claude Code IDE protocol, has no {what}", self.caller.name),
        ))
    }

    async fn on_disk<T: Send + 'static>(
        &self,
        op: impl FnOnce(&WorkspaceFolder) -> Result<T, WireError> + Send + 'static,
    ) -> Result<T, RequestError> {
        on_disk(&self.folder, op).await
    }

    /// The absolute path of workspace path `path` (an existing file with `must_exist`).
    async fn absolute(&self, path: &str, must_exist: bool) -> Result<PathBuf, RequestError> {
        let shown = path.to_owned();
        self.on_disk(move |folder| folder.absolute(&shown, must_exist)).await
    }

    async fn diagnostics(
        &self,
        params: DiagnosticsParams,
        timeout: Duration,
    ) -> Result<DiagnosticsResult, RequestError> {
        if !self.has("getDiagnostics") {
            return Err(self.lacks("getDiagnostics tool"));
        }
        let Some(path) = params.path.clone() else {
            let answer = self.call_json("getDiagnostics", json!({}), timeout).await?;
            return convert::diagnostics(&answer, &self.paths, params.include_info).map_err(|e| self.unreadable(e));
        };
        let file = self.absolute(&path, true).await?;
        let uri = json!({"uri": adapter::file_uri(&file)});
        match self.call_tool_raw("getDiagnostics", uri.clone(), timeout).await? {
            Ok(texts) => {
                let answer = convert::json_text("getDiagnostics", &texts).map_err(|e| self.unreadable(e))?;
                let read =
                    convert::diagnostics(&answer, &self.paths, params.include_info).map_err(|e| self.unreadable(e))?;
                // VS Code answers an unopened file with nothing: its language server has not
                // seen it. Such a file is opened first, as for an IDE that refuses.
                if read.diagnostics.is_empty() && self.has("openFile") && !self.is_open(&path, timeout).await? {
                    return self.open_and_watch(&file, uri, &params, timeout).await;
                }
                Ok(read)
            }
            // claudecode.nvim reports open files only ("File not open").
            Err(_) if self.has("openFile") => self.open_and_watch(&file, uri, &params, timeout).await,
            Err(wire) => Err(self.ide_error("getDiagnostics", wire.message)),
        }
    }

    /// Whether the IDE has a tab of `path` (when it cannot say, the file counts as open).
    async fn is_open(&self, path: &str, timeout: Duration) -> Result<bool, RequestError> {
        if !self.has("getOpenEditors") {
            return Ok(true);
        }
        let answer = self.call_json("getOpenEditors", json!({}), timeout).await?;
        let editors = convert::open_editors(&answer, &self.paths).map_err(|e| self.unreadable(e))?;
        Ok(editors.editors.iter().any(|e| e.path == path))
    }

    /// Opens `file` in the background, then watches for its first diagnostics (up to `wait_ms`,
    /// default [`DIAGNOSTICS_SETTLE`]); nothing by then is `settled: false`.
    async fn open_and_watch(
        &self,
        file: &Path,
        uri: Value,
        params: &DiagnosticsParams,
        timeout: Duration,
    ) -> Result<DiagnosticsResult, RequestError> {
        let open = json!({"filePath": file, "preview": true, "makeFrontmost": false, "startText": "", "endText": ""});
        self.call_tool("openFile", open, timeout).await?;
        let settle = params.wait_ms.map_or(DIAGNOSTICS_SETTLE, Duration::from_millis).min(timeout);
        let deadline = tokio::time::Instant::now() + settle;
        loop {
            let answer = self.call_json("getDiagnostics", uri.clone(), timeout).await?;
            let mut read =
                convert::diagnostics(&answer, &self.paths, params.include_info).map_err(|e| self.unreadable(e))?;
            read.opened = true;
            let now = tokio::time::Instant::now();
            if !read.diagnostics.is_empty() || now >= deadline {
                read.settled = !read.diagnostics.is_empty();
                return Ok(read);
            }
            tokio::time::sleep(Duration::from_millis(100).min(deadline - now)).await;
        }
    }

    async fn selection(&self, timeout: Duration) -> Result<SelectionResult, RequestError> {
        if let Some(last) = self.selection.lock().ok().and_then(|s| s.clone()) {
            return Ok(last);
        }
        let tool = ["getCurrentSelection", "getLatestSelection"]
            .into_iter()
            .find(|t| self.has(t))
            .ok_or_else(|| self.lacks("selection tool (getCurrentSelection)"))?;
        let answer = self.call_json(tool, json!({}), timeout).await?;
        convert::selection(&answer, &self.paths).map_err(|e| self.unreadable(e))
    }

    async fn open_file(&self, params: OpenFileParams, timeout: Duration) -> Result<OpenFileResult, RequestError> {
        if !self.has("openFile") {
            return Err(self.lacks("openFile tool"));
        }
        let file = self.absolute(&params.path, true).await?;
        // `startText` and `endText` are always sent (VS Code's extension requires them; empty
        // means no selection there and in claudecode.nvim).
        let mut arguments = json!({
            "filePath": file,
            "preview": params.preview,
            "makeFrontmost": true,
            "startText": "",
            "endText": "",
        });
        let mut selection = None;
        if let Some(line) = params.line {
            // The protocol selects by text, not by line: the line's text is given when it names
            // one place in the file (else the file opens without a selection).
            let shown = params.path.clone();
            let text = self.on_disk(move |folder| folder.read(&ReadParams { path: shown })).await?.content;
            if let Some((start, end)) = line_span(&text, line, params.end_line.unwrap_or(line)) {
                arguments["startText"] = json!(start.text);
                arguments["endText"] = json!(end.text);
                arguments["selectToEndOfLine"] = json!(true);
                selection = Some(Selection {
                    path: params.path.clone(),
                    start: protocol::Position { line: start.number, column: 1 },
                    end: protocol::Position { line: end.number, column: utf16_len(end.text) + 1 },
                    text: lines_text(&text, start.number, end.number),
                    text_truncated: false,
                });
            }
        }
        self.call_tool("openFile", arguments, timeout).await?;
        Ok(OpenFileResult { path: params.path, selection })
    }

    /// `fs/read`: the file on disk; `editor_dirty` when the IDE's buffer of it has unsaved
    /// edits (which this protocol cannot read).
    async fn read(&self, params: ReadParams) -> Result<ReadResult, RequestError> {
        let file = self.absolute(&params.path, true).await?;
        let path = params.path.clone();
        let mut read = self.on_disk(move |folder| folder.read(&params)).await?;
        read.editor_dirty = self.caller.dirty(&path, &file).await.unwrap_or(false);
        Ok(read)
    }

    /// `fs/write`: refused while the IDE's buffer of the file has unsaved edits (the user's
    /// next save and this write would overwrite each other).
    async fn write(&self, params: WriteParams) -> Result<WriteResult, RequestError> {
        let file = self.absolute(&params.path, false).await?;
        let dirty = self.caller.dirty(&params.path, &file).await.map_err(|error| {
            RequestError::Host(WireError::new(
                ErrorCode::Conflict,
                format!(
                    "{} could not say whether its buffer of `{}` has unsaved edits ({error:?}); nothing was written",
                    self.caller.name, params.path
                ),
            ))
        })?;
        if dirty {
            return Err(RequestError::Host(WireError::new(
                ErrorCode::Conflict,
                format!(
                    "`{}` has unsaved edits in {}'s buffer: nothing was written, so that neither this write nor the user's next save overwrites the other. Ask the user to save (save_file) or discard them, then read the file again",
                    params.path, self.caller.name
                ),
            )));
        }
        self.on_disk(move |folder| folder.write(&params)).await
    }

    async fn save(&self, params: SaveFileParams, timeout: Duration) -> Result<SaveFileResult, RequestError> {
        if !self.has("saveDocument") {
            return Err(self.lacks("saveDocument tool"));
        }
        let file = self.absolute(&params.path, true).await?;
        // A buffer with nothing unsaved is not written: there is nothing to save, and writing a
        // buffer older than the disk (after the bridge wrote the file) would leave the editor
        // asking the user whether to overwrite the newer file.
        if self.caller.dirty_tool == Some("checkDocumentDirty") {
            let answer = self.call_json("checkDocumentDirty", json!({"filePath": file}), timeout).await?;
            let open = answer.get("success").and_then(Value::as_bool) != Some(false);
            if !open || !answer.get("isDirty").and_then(Value::as_bool).unwrap_or(false) {
                return Ok(SaveFileResult { path: params.path, saved: false, open });
            }
        } else if self.caller.dirty_tool.is_some() && !self.caller.dirty(&params.path, &file).await? {
            let open = self.is_open(&params.path, timeout).await?;
            return Ok(SaveFileResult { path: params.path, saved: false, open });
        }
        let answer = self.call_json("saveDocument", json!({"filePath": file}), timeout).await?;
        let ok = answer.get("success").and_then(Value::as_bool).unwrap_or(false);
        let saved = ok && answer.get("saved").and_then(Value::as_bool).unwrap_or(true);
        Ok(SaveFileResult { path: params.path, saved, open: ok })
    }
}

/// One line of a file: its number (from 1) and text.
struct Line<'a> {
    number: u32,
    text: &'a str,
}

/// The lines `first` and `last` (clamped to the file), when each one's text is non-blank and
/// occurs once in the file (so that a search for it finds that line).
fn line_span(text: &str, first: u32, last: u32) -> Option<(Line<'_>, Line<'_>)> {
    let lines: Vec<&str> = text.lines().collect();
    let count = u32::try_from(lines.len()).ok().filter(|n| *n > 0)?;
    let pick = |n: u32| {
        let number = n.clamp(1, count);
        let line = lines.get(usize::try_from(number - 1).ok()?)?.trim_end_matches('\r');
        (!line.trim().is_empty() && text.matches(line).count() == 1).then_some(Line { number, text: line })
    };
    Some((pick(first)?, pick(last.max(first))?))
}

fn lines_text(text: &str, first: u32, last: u32) -> String {
    let from = usize::try_from(first.saturating_sub(1)).unwrap_or(usize::MAX);
    let count = usize::try_from(last.saturating_sub(first) + 1).unwrap_or(0);
    text.lines().skip(from).take(count).collect::<Vec<_>>().join("\n")
}

fn utf16_len(text: &str) -> u32 {
    u32::try_from(text.encode_utf16().count()).unwrap_or(u32::MAX)
}

impl Adapter for ClaudeIde {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RequestError>> {
        Box::pin(async move {
            match method {
                METHOD_INFO => to_value(&self.info),
                METHOD_READ => to_value(&self.read(parse(method, params)?).await?),
                METHOD_WRITE => to_value(&self.write(parse(method, params)?).await?),
                METHOD_LIST => files(&self.folder, method, params).await.unwrap_or_else(|| Err(self.lacks(method))),
                METHOD_DIAGNOSTICS => to_value(&self.diagnostics(parse(method, params)?, timeout).await?),
                METHOD_OPEN_EDITORS => {
                    if !self.has("getOpenEditors") {
                        return Err(self.lacks("getOpenEditors tool"));
                    }
                    let answer = self.call_json("getOpenEditors", json!({}), timeout).await?;
                    to_value(&convert::open_editors(&answer, &self.paths).map_err(|e| self.unreadable(e))?)
                }
                METHOD_SELECTION => to_value(&self.selection(timeout).await?),
                METHOD_OPEN_FILE => to_value(&self.open_file(parse(method, params)?, timeout).await?),
                METHOD_SAVE_FILE => to_value(&self.save(parse(method, params)?, timeout).await?),
                METHOD_OPEN_DIFF => to_value(&diff::open(self, parse(method, params)?, timeout).await?),
                METHOD_CLOSE_DIFFS => to_value(&diff::close_all(self, timeout).await?),
                _ => Err(self.lacks("language-server tools (definitions, references, symbols, renames, code actions)")),
            }
        })
    }

    fn info(&self) -> &HostInfo {
        &self.info
    }

    fn offers(&self, tool: &str) -> bool {
        ALWAYS.contains(&tool)
            || NEEDS
                .iter()
                .any(|(bridge_tool, ide_tools)| *bridge_tool == tool && ide_tools.iter().any(|t| self.has(t)))
    }

    fn ide_name(&self) -> &str {
        &self.caller.name
    }

    fn protocol(&self) -> Protocol {
        Protocol::ClaudeCode
    }

    fn url(&self) -> &str {
        self.caller.link.url()
    }

    fn is_closed(&self) -> bool {
        self.caller.link.is_closed()
    }

    fn closed(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.caller.link.closed())
    }

    fn close(&self) {
        self.caller.link.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_selected_by_its_text_only_where_that_text_is_unique() {
        let text = "fn a() {\n}\nfn b() {\n}\n";
        let (start, end) = line_span(text, 1, 1).unwrap();
        assert_eq!((start.number, start.text, end.text), (1, "fn a() {", "fn a() {"));
        assert!(line_span(text, 2, 2).is_none(), "`}}` occurs twice");
        assert!(line_span(text, 3, 99).is_none(), "the last line (clamped) is `}}` again");
        let (start, end) = line_span("x\ny\n", 1, 99).unwrap();
        assert_eq!((start.number, end.number, end.text), (1, 2, "y"));
        assert!(line_span("", 1, 1).is_none());
        assert_eq!(lines_text(text, 1, 2), "fn a() {\n}");
    }
}
