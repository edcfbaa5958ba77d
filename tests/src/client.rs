//! [`StdioClient`]: spawns an MCP server and speaks newline-delimited JSON-RPC to it over stdio.
//!
//! Two threads per client: one reads the server's stdout line by line and parses each line as
//! JSON (a line that is not JSON is kept as an error, since stdout must carry nothing but
//! JSON-RPC), one copies the server's stderr into a buffer ([`StdioClient::stderr_text`]).
//! Every wait has a deadline ([`DEFAULT_TIMEOUT`], [`StdioClient::set_timeout`]), so a test
//! against a hung server fails with a message instead of hanging.

use std::collections::{HashMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

/// The MCP protocol version [`StdioClient::initialize`] asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// How long any single wait for the server lasts before it is an error, unless
/// [`ClientBuilder::timeout`] or [`StdioClient::set_timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// How many bytes of stderr an error message quotes (the end of it).
const STDERR_TAIL: usize = 4000;

/// What the stdout reader thread hands over.
enum Incoming {
    /// One line that parsed as JSON.
    Message(Value),
    /// One line that did not (the raw text, lossily decoded).
    NotJson(String),
    /// stdout was closed (the server exited or closed it).
    Eof,
    /// Reading stdout failed.
    ReadError(String),
}

/// Configures and spawns a [`StdioClient`]: program, arguments, environment, working directory,
/// timeout.
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    program: OsString,
    args: Vec<OsString>,
    envs: Vec<(OsString, Option<OsString>)>,
    cwd: Option<PathBuf>,
    timeout: Duration,
}

impl ClientBuilder {
    /// A builder for `program` (a path, or a name looked up in `PATH`).
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        ClientBuilder {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            envs: Vec::new(),
            cwd: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Appends one argument.
    #[must_use]
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Appends arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable for the server.
    #[must_use]
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.envs.push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// Removes an environment variable from the server's environment.
    #[must_use]
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.envs.push((key.as_ref().to_owned(), None));
        self
    }

    /// Sets the server's working directory.
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets how long any single wait for the server may last.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Spawns the server with stdin and stdout piped and stderr captured.
    pub fn spawn(self) -> Result<StdioClient> {
        let display = self.program.to_string_lossy().into_owned();
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        // The text editor's change journal is one for every workspace of the user: a test's
        // server keeps it in a state directory of this test process, never in the user's, unless
        // the test says otherwise.
        if !self.envs.iter().any(|(key, _)| key == "XDG_STATE_HOME") {
            cmd.env("XDG_STATE_HOME", std::env::temp_dir().join(format!("mcp-tests-state-{}", std::process::id())));
        }
        for (key, value) in &self.envs {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().with_context(|| format!("cannot spawn `{display}`"))?;

        let stdin = child.stdin.take();
        let stdout = child.stdout.take().context("the child has no stdout pipe")?;
        let stderr_pipe = child.stderr.take().context("the child has no stderr pipe")?;

        let (tx, messages) = mpsc::channel();
        thread::Builder::new()
            .name("mcp-client-stdout".into())
            .spawn(move || read_stdout(stdout, &tx))
            .context("cannot start the stdout reader thread")?;

        let stderr = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let (done_tx, stderr_done) = mpsc::channel();
        let sink = Arc::clone(&stderr);
        thread::Builder::new()
            .name("mcp-client-stderr".into())
            .spawn(move || {
                copy_stderr(stderr_pipe, &sink);
                let _ = done_tx.send(());
            })
            .context("cannot start the stderr reader thread")?;

        Ok(StdioClient {
            child,
            program: display,
            stdin,
            messages,
            stderr,
            stderr_done: Some(stderr_done),
            next_id: 1,
            timeout: self.timeout,
            unread: VecDeque::new(),
            responses: HashMap::new(),
            notifications: Vec::new(),
            server_requests: Vec::new(),
            stdout_closed: false,
        })
    }
}

fn read_stdout(stdout: impl Read, tx: &mpsc::Sender<Incoming>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => {
                let _ = tx.send(Incoming::Eof);
                return;
            }
            Ok(_) => {
                let trimmed = line.trim_ascii();
                if trimmed.is_empty() {
                    continue;
                }
                let item = match serde_json::from_slice::<Value>(trimmed) {
                    Ok(v) => Incoming::Message(v),
                    Err(_) => Incoming::NotJson(String::from_utf8_lossy(trimmed).into_owned()),
                };
                if tx.send(item).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Incoming::ReadError(e.to_string()));
                return;
            }
        }
    }
}

/// The server's stderr so far, and a signal for each chunk that arrives.
type StderrSink = (Mutex<Vec<u8>>, Condvar);

fn copy_stderr(mut pipe: impl Read, sink: &StderrSink) {
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut s) = sink.0.lock() {
                    s.extend_from_slice(&buf[..n]);
                }
                sink.1.notify_all();
            }
        }
    }
}

/// A running MCP server and the client end of its stdio.
///
/// The server is killed when the client is dropped.
pub struct StdioClient {
    child: Child,
    program: String,
    stdin: Option<ChildStdin>,
    messages: Receiver<Incoming>,
    stderr: Arc<StderrSink>,
    stderr_done: Option<Receiver<()>>,
    next_id: u64,
    timeout: Duration,
    /// Messages [`StdioClient::read_message`] returns before reading more from the server.
    unread: VecDeque<Value>,
    /// Responses that arrived while waiting for another id, by the JSON text of their id.
    responses: HashMap<String, Value>,
    notifications: Vec<Value>,
    server_requests: Vec<Value>,
    stdout_closed: bool,
}

impl std::fmt::Debug for StdioClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioClient")
            .field("program", &self.program)
            .field("pid", &self.child.id())
            .field("next_id", &self.next_id)
            .finish_non_exhaustive()
    }
}

impl StdioClient {
    /// Spawns `program` with `args` (stdin/stdout piped, stderr captured, default timeout).
    pub fn spawn(program: impl AsRef<OsStr>, args: &[&str]) -> Result<StdioClient> {
        ClientBuilder::new(program).args(args).spawn()
    }

    /// A [`ClientBuilder`] for `program`, to set environment, working directory or timeout.
    pub fn builder(program: impl AsRef<OsStr>) -> ClientBuilder {
        ClientBuilder::new(program)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How long any single wait for the server lasts.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Changes how long any single wait for the server lasts.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The `initialize` params [`StdioClient::initialize`] sends.
    pub fn default_initialize_params() -> Value {
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": { "name": "mcp-tests", "version": env!("CARGO_PKG_VERSION") },
        })
    }

    /// Sends `initialize` (protocol [`PROTOCOL_VERSION`]) and then `notifications/initialized`;
    /// returns the `result` of the response (an error response is an `Err`).
    pub fn initialize(&mut self) -> Result<Value> {
        self.initialize_with(Self::default_initialize_params())
    }

    /// Like [`StdioClient::initialize`] with the given `initialize` params.
    pub fn initialize_with(&mut self, params: Value) -> Result<Value> {
        let response = self.request("initialize", params)?;
        let result = take_result(response, "initialize")?;
        self.notify("notifications/initialized", Value::Null)?;
        Ok(result)
    }

    /// Sends a request and waits for its response; returns the whole response message (with
    /// `result` or `error`).
    ///
    /// Notifications that arrive meanwhile are collected ([`StdioClient::notifications`]);
    /// requests from the server are collected ([`StdioClient::server_requests`]) and answered
    /// (`ping` with `{}`, anything else with -32601).
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.send_request(method, params)?;
        self.wait_response(id).with_context(|| format!("no response to `{method}` (id {id}) from {}", self.program))
    }

    /// Sends a request without waiting; returns its id, for [`StdioClient::wait_response`]
    /// (several requests can be in flight).
    pub fn send_request(&mut self, method: &str, params: Value) -> Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send_message(&msg)?;
        Ok(id)
    }

    /// Waits for the response to request `id` (sent with [`StdioClient::send_request`]);
    /// returns the whole response message.
    pub fn wait_response(&mut self, id: u64) -> Result<Value> {
        let key = id.to_string();
        if let Some(r) = self.responses.remove(&key) {
            return Ok(r);
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let msg = self.next_message(deadline)?;
            if is_response(&msg) {
                let got = msg.get("id").map(Value::to_string).unwrap_or_default();
                if got == key {
                    return Ok(msg);
                }
                self.responses.insert(got, msg);
            } else {
                self.dispatch(msg)?;
            }
        }
    }

    /// Sends a notification (`params` omitted when `Value::Null`).
    pub fn notify(&mut self, method: &str, params: Value) -> Result<()> {
        let mut msg = json!({ "jsonrpc": "2.0", "method": method });
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send_message(&msg)
    }

    /// Writes one JSON message and a newline.
    pub fn send_message(&mut self, msg: &Value) -> Result<()> {
        let mut line = serde_json::to_vec(msg)?;
        line.push(b'\n');
        self.send_bytes(&line)
    }

    /// Writes `line` as it is, plus a newline if it does not end with one: for malformed JSON,
    /// oversized lines and other things a well-behaved client never sends.
    pub fn send_raw(&mut self, line: &str) -> Result<()> {
        if line.ends_with('\n') {
            self.send_bytes(line.as_bytes())
        } else {
            let mut bytes = Vec::with_capacity(line.len() + 1);
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            self.send_bytes(&bytes)
        }
    }

    /// Writes `bytes` exactly as given (no newline added).
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let stdin = self.stdin.as_mut().context("stdin is already closed")?;
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .with_context(|| format!("cannot write to {} (has it exited?)", self.program))
    }

    /// Reads the next message of any kind (response, notification, server request), as the
    /// server wrote it; nothing is collected or answered. Errors on timeout, on end of stdout and
    /// on a line that is not JSON.
    pub fn read_message(&mut self) -> Result<Value> {
        let deadline = Instant::now() + self.timeout;
        self.next_message(deadline)
    }

    /// Like [`StdioClient::read_message`] but waits at most `wait`, and `Ok(None)` if nothing
    /// came by then (to check that a server stays silent, e.g. after a notification).
    pub fn try_read_message(&mut self, wait: Duration) -> Result<Option<Value>> {
        let deadline = Instant::now() + wait;
        match self.next_message_or_timeout(deadline)? {
            Some(m) => Ok(Some(m)),
            None => Ok(None),
        }
    }

    /// Calls a tool; returns the `result` object (which may have `isError: true`). A JSON-RPC
    /// error response is an `Err`.
    pub fn call_tool(&mut self, name: &str, args: Value) -> Result<Value> {
        let response = self.request("tools/call", json!({ "name": name, "arguments": args }))?;
        take_result(response, &format!("tools/call {name}"))
    }

    /// The names of the tools `tools/list` answers, in its order.
    pub fn tool_names(&mut self) -> Result<Vec<String>> {
        Ok(self.list_tools()?.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect())
    }

    /// Lists every tool (following `nextCursor`); returns the tool objects.
    pub fn list_tools(&mut self) -> Result<Vec<Value>> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let result = take_result(self.request("tools/list", params)?, "tools/list")?;
            match result.get("tools") {
                Some(Value::Array(t)) => tools.extend(t.iter().cloned()),
                _ => bail!("tools/list result has no `tools` array: {result}"),
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => return Ok(tools),
            }
        }
    }

    /// The notifications collected so far by [`StdioClient::request`] (progress, logging, ...).
    pub fn notifications(&self) -> &[Value] {
        &self.notifications
    }

    /// Takes the collected notifications, leaving none.
    pub fn take_notifications(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.notifications)
    }

    /// The requests the server sent to the client so far (`ping`, `roots/list`, ...).
    pub fn server_requests(&self) -> &[Value] {
        &self.server_requests
    }

    /// Everything the server wrote to stderr so far (lossily decoded).
    pub fn stderr_text(&self) -> String {
        match self.stderr.0.lock() {
            Ok(s) => String::from_utf8_lossy(&s).into_owned(),
            Err(_) => String::new(),
        }
    }

    /// Waits (up to the client's timeout) until the server's stderr contains `needle`, and
    /// returns all of it: a log line may arrive after the response that followed it.
    pub fn wait_for_stderr(&self, needle: &str) -> Result<String> {
        let deadline = Instant::now() + self.timeout;
        let (lock, arrived) = &*self.stderr;
        let mut text = lock.lock().map_err(|_| anyhow!("the stderr buffer is poisoned"))?;
        loop {
            let so_far = String::from_utf8_lossy(&text);
            if so_far.contains(needle) {
                return Ok(so_far.into_owned());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                bail!(
                    "`{needle}` did not appear on the stderr of {} within {:?}:\n{so_far}",
                    self.program,
                    self.timeout
                );
            }
            text = arrived.wait_timeout(text, left).map_err(|_| anyhow!("the stderr buffer is poisoned"))?.0;
        }
    }

    /// Closes the server's stdin (end of input: a stdio server should then exit).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Whether the server has exited, without waiting.
    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        Ok(self.child.try_wait()?)
    }

    /// Closes stdin and waits (at most the timeout) for the server to exit; then waits for its
    /// stderr to be fully captured. A server that does not exit in time is killed and this is
    /// an `Err`.
    pub fn wait(&mut self) -> Result<ExitStatus> {
        self.close_stdin();
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait()? {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                bail!(
                    "{} did not exit within {:?} after its stdin was closed; killed it{}",
                    self.program,
                    self.timeout,
                    self.stderr_tail()
                );
            }
            // No portable way to wait for a child with a deadline in std: poll.
            thread::sleep(Duration::from_millis(1));
        };
        self.join_stderr(deadline.max(Instant::now() + Duration::from_millis(500)));
        Ok(status)
    }

    /// Kills the server (if it still runs) and reaps it.
    pub fn kill(&mut self) -> Result<()> {
        if self.child.try_wait()?.is_none() {
            self.child.kill()?;
        }
        self.child.wait()?;
        Ok(())
    }

    fn join_stderr(&mut self, deadline: Instant) {
        if let Some(done) = self.stderr_done.take() {
            // A grandchild may still hold the pipe open: do not wait past the deadline.
            let _ = done.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        }
    }

    /// The end of stderr, formatted for an error message (empty when there was none).
    fn stderr_tail(&self) -> String {
        let text = self.stderr_text();
        let text = text.trim_end();
        if text.is_empty() {
            return String::new();
        }
        let start = text.len().saturating_sub(STDERR_TAIL);
        let start = (start..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        format!("\n--- stderr of {} (end) ---\n{}", self.program, &text[start..])
    }

    fn next_message(&mut self, deadline: Instant) -> Result<Value> {
        match self.next_message_or_timeout(deadline)? {
            Some(m) => Ok(m),
            None => {
                Err(anyhow!("timed out after {:?} waiting for {}{}", self.timeout, self.program, self.stderr_tail()))
            }
        }
    }

    fn next_message_or_timeout(&mut self, deadline: Instant) -> Result<Option<Value>> {
        if let Some(m) = self.unread.pop_front() {
            return Ok(Some(m));
        }
        if self.stdout_closed {
            let tail = self.exit_and_stderr();
            bail!("{} has closed its stdout{tail}", self.program);
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(wait) {
            Ok(Incoming::Message(m)) => Ok(Some(m)),
            Ok(Incoming::NotJson(line)) => {
                bail!(
                    "{} wrote a line to stdout that is not JSON (stdout must carry only \
                     JSON-RPC): {}{}",
                    self.program,
                    truncate(&line, 500),
                    self.stderr_tail()
                )
            }
            Ok(Incoming::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                let tail = self.exit_and_stderr();
                bail!("{} has closed its stdout{tail}", self.program)
            }
            Ok(Incoming::ReadError(e)) => {
                self.stdout_closed = true;
                bail!("cannot read the stdout of {}: {e}{}", self.program, self.stderr_tail())
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
        }
    }

    fn exit_and_stderr(&mut self) -> String {
        // stdout closed: the process is most likely exiting; give it a moment to be reaped.
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut status = None;
        while Instant::now() < deadline {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            thread::sleep(Duration::from_millis(1));
        }
        if status.is_some() {
            self.join_stderr(Instant::now() + Duration::from_millis(200));
        }
        let st = status.map(|s| format!(" ({s})")).unwrap_or_default();
        format!("{st}{}", self.stderr_tail())
    }

    /// Handles a message that is not the awaited response.
    fn dispatch(&mut self, msg: Value) -> Result<()> {
        let has_id = msg.get("id").is_some_and(|id| !id.is_null());
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        match (method, has_id) {
            (Some(method), true) => {
                let id = msg.get("id").cloned().unwrap_or(Value::Null);
                self.server_requests.push(msg);
                let reply = if method == "ping" {
                    json!({ "jsonrpc": "2.0", "id": id, "result": {} })
                } else {
                    json!({
                        "jsonrpc": "2.0",
                        "id": id,
                        "error": { "code": -32601, "message": format!("method not found: {method}") },
                    })
                };
                self.send_message(&reply)
            }
            (Some(_), false) => {
                self.notifications.push(msg);
                Ok(())
            }
            // A response without an id (e.g. a parse error reply to a raw line): keep it.
            (None, _) => {
                self.responses.insert(Value::Null.to_string(), msg);
                Ok(())
            }
        }
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// A response: has `result` or `error`, and no `method`.
fn is_response(msg: &Value) -> bool {
    msg.get("method").is_none() && (msg.get("result").is_some() || msg.get("error").is_some())
}

/// The `result` of a response, or an error quoting its `error`.
fn take_result(mut response: Value, what: &str) -> Result<Value> {
    if let Some(err) = response.get("error") {
        bail!("`{what}` failed with a JSON-RPC error: {err}");
    }
    match response.get_mut("result") {
        Some(r) => Ok(r.take()),
        None => bail!("`{what}`: the response has neither `result` nor `error`: {response}"),
    }
}

/// `s` cut to at most `max` bytes (on a char boundary), with a note of what was cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &s[..end], s.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_keeps_char_boundaries() {
        assert_eq!(truncate("abc", 5), "abc");
        assert_eq!(truncate("héllo", 2), "h… (5 more bytes)");
    }

    #[test]
    fn responses_are_recognised() {
        assert!(is_response(&json!({"jsonrpc":"2.0","id":1,"result":{}})));
        assert!(is_response(&json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700}})));
        assert!(!is_response(&json!({"jsonrpc":"2.0","method":"notifications/progress"})));
        assert!(!is_response(&json!({"jsonrpc":"2.0","id":3,"method":"ping"})));
    }

    #[test]
    fn take_result_reports_errors() {
        let ok = take_result(json!({"id":1,"result":{"a":1}}), "x").unwrap();
        assert_eq!(ok, json!({"a":1}));
        let err = take_result(json!({"id":1,"error":{"code":-32601,"message":"nope"}}), "x");
        assert!(err.unwrap_err().to_string().contains("-32601"));
    }
}
