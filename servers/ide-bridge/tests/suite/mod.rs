//! The suites, and what they share: a per-test environment (temp dir, private
//! `XDG_RUNTIME_DIR`), a running `ide-bridge-host`, the bridge as an MCP stdio client, a raw
//! WebSocket client, and a scriptable fake host.

// Test helpers: a failed setup step is a failed test, so they unwrap.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    sync::{
        Arc, Mutex,
        mpsc::{self, Receiver},
    },
    time::{Duration, Instant},
};

use futures::{SinkExt, StreamExt};
use mcp_tests::StdioClient;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::{
    MaybeTlsStream, WebSocketStream,
    tungstenite::{self, Message, client::IntoClientRequest, http::HeaderValue},
};

mod auth;
mod changes;
mod claude_code;
mod concurrency;
mod confinement;
mod lang4;
// Unix permission bits, signals and uids (Windows keeps discovery files in the user's %TEMP%).
#[cfg(unix)]
mod discovery;
mod fake_host;
mod files;
mod gemini;
mod hostile4;
mod hostile_property;
mod ide_state;
mod lang;
mod limits;
// A real Neovim with claudecode.nvim (skipped where either is missing).
#[cfg(unix)]
mod neovim;
mod protocol;
mod reconnect;
mod resources;
mod signals;
mod tour;

/// The MCP side.
pub const BRIDGE: &str = env!("CARGO_BIN_EXE_mcp-server-ide-bridge");
/// The workspace side.
pub const HOST: &str = env!("CARGO_BIN_EXE_ide-bridge-host");
/// The token the tests give hosts.
pub const TOKEN: &str = "test-token-0123456789";

/// How long any wait in these tests lasts before it is a failure.
pub const WAIT: Duration = Duration::from_secs(20);

/// One test's world: a temp dir holding workspaces and a private runtime dir.
pub struct Env {
    pub tmp: tempfile::TempDir,
    pub xdg: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let xdg = tmp.path().join("xdg");
        std::fs::create_dir(&xdg).unwrap();
        mcp_tests::os::set_mode(&xdg, 0o700).unwrap();
        Env { tmp, xdg }
    }

    /// The discovery directory of this environment.
    pub fn discovery_dir(&self) -> PathBuf {
        self.xdg.join("ide-bridge")
    }

    /// The Claude Code configuration directory of this environment (lock files in `ide/`).
    pub fn claude_dir(&self) -> PathBuf {
        self.tmp.path().join("claude")
    }

    /// A new directory `name` in the temp dir, with `files` (path, content) in it.
    pub fn workspace(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for (path, content) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        dir.canonicalize().unwrap()
    }

    /// A host on `root` (port 0, the test token) with extra `args`.
    pub fn host(&self, root: &Path, args: &[&str]) -> HostProc {
        let mut all = vec!["--token", TOKEN];
        all.extend_from_slice(args);
        HostProc::spawn(&self.xdg, root, &all)
    }

    /// A host on `root` without `--token` (it generates one).
    pub fn host_without_token(&self, root: &Path, args: &[&str]) -> HostProc {
        HostProc::spawn(&self.xdg, root, args)
    }

    /// A bridge builder with this environment (cwd `cwd`, no token in the environment).
    pub fn bridge_builder(&self, cwd: &Path, args: &[&str]) -> mcp_tests::ClientBuilder {
        StdioClient::builder(BRIDGE)
            .args(args)
            .current_dir(cwd)
            .env("XDG_RUNTIME_DIR", &self.xdg)
            // Never a Claude Code IDE of the machine's user.
            .env("CLAUDE_CONFIG_DIR", self.claude_dir())
            .env_remove("IDE_BRIDGE_TOKEN")
            .env("RUST_LOG", "info")
            .timeout(WAIT)
    }

    /// A bridge started in `cwd` with `args`, initialised.
    pub fn bridge(&self, cwd: &Path, args: &[&str]) -> StdioClient {
        let mut client = self.bridge_builder(cwd, args).spawn().unwrap();
        client.initialize().unwrap();
        client
    }
}

/// A running `ide-bridge-host`, killed when dropped.
pub struct HostProc {
    child: Child,
    pub port: u16,
    pub token: String,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl HostProc {
    pub fn spawn(xdg: &Path, root: &Path, args: &[&str]) -> HostProc {
        HostProc::spawn_with(Some(xdg), None, root, "0", args)
    }

    /// A host with the test token started without `XDG_RUNTIME_DIR` and with `TMPDIR=tmpdir`
    /// (so its discovery file is `tmpdir/ide-bridge-<uid>/<port>.json`).
    pub fn spawn_without_xdg(tmpdir: &Path, root: &Path) -> HostProc {
        HostProc::spawn_with(None, Some(tmpdir), root, "0", &["--token", TOKEN])
    }

    /// A host with the test token on a given port (to restart one where it was).
    pub fn spawn_on_port(xdg: &Path, root: &Path, port: &str) -> HostProc {
        HostProc::spawn_with(Some(xdg), None, root, port, &["--token", TOKEN])
    }

    fn spawn_with(xdg: Option<&Path>, tmpdir: Option<&Path>, root: &Path, port: &str, args: &[&str]) -> HostProc {
        let mut command = Command::new(HOST);
        match xdg {
            Some(xdg) => command.env("XDG_RUNTIME_DIR", xdg),
            None => command.env_remove("XDG_RUNTIME_DIR"),
        };
        if let Some(tmpdir) = tmpdir {
            command.env("TMPDIR", tmpdir);
        }
        let mut child = command
            .arg("--root")
            .arg(root)
            .args(["--port", port])
            .args(args)
            .env_remove("IDE_BRIDGE_TOKEN")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr_pipe = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { return };
                sink.lock().unwrap().push_str(&format!("{line}\n"));
                if tx.send(line).is_err() {
                    // Nobody listens any more; keep draining into the buffer.
                }
            }
        });
        let mut host = HostProc { child, port: 0, token: String::new(), lines, stderr };
        let given = args.iter().position(|a| *a == "--token").and_then(|i| args.get(i + 1));
        let mut token = given.map(|t| (*t).to_owned());
        let deadline = Instant::now() + WAIT;
        loop {
            let line = host
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("the host did not start; stderr:\n{}", host.stderr()));
            if let Some(t) = line.strip_prefix("ide-bridge-host: token: ") {
                token = Some(t.trim().to_owned());
            }
            if let Some(url) = line.strip_prefix("ide-bridge-host: listening on ws://127.0.0.1:") {
                host.port = url.trim().parse().unwrap();
                break;
            }
        }
        host.token = token.expect("a token");
        host
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the host wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits for a stderr line containing `needle`; returns it.
    pub fn wait_for_line(&self, needle: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(_) => panic!("no stderr line with {needle:?}; stderr:\n{}", self.stderr()),
            }
        }
    }

    /// Sends `signal` and waits for the exit.
    #[cfg(unix)]
    pub fn stop_with(&mut self, signal: rustix::process::Signal) -> ExitStatus {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        rustix::process::kill_process(pid, signal).unwrap();
        self.child.wait().unwrap()
    }

    /// SIGTERM, and waits for the exit.
    #[cfg(unix)]
    pub fn terminate(&mut self) -> ExitStatus {
        self.stop_with(rustix::process::Signal::TERM)
    }

    /// Windows has no SIGTERM for a console child: terminated, and waits for the exit.
    #[cfg(windows)]
    pub fn terminate(&mut self) -> ExitStatus {
        let _ = self.child.kill();
        self.child.wait().unwrap()
    }

    /// SIGKILL, and waits for the exit.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HostProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A single-threaded runtime for the async helpers.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens a WebSocket to `port` with `headers` (e.g. `("Authorization", "Bearer x")`).
pub async fn ws_connect(port: u16, headers: &[(&str, &str)]) -> Result<Ws, tungstenite::Error> {
    let mut request = format!("ws://127.0.0.1:{port}/").into_client_request().unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(
            tungstenite::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    tokio_tungstenite::connect_async(request).await.map(|(ws, _)| ws)
}

/// The HTTP status a refused upgrade got.
pub fn refused_status(result: Result<Ws, tungstenite::Error>) -> u16 {
    match result {
        Err(tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(other) => panic!("expected an HTTP refusal, got {other}"),
        Ok(_) => panic!("expected an HTTP refusal, got a session"),
    }
}

/// An authorised WebSocket to `host`.
pub async fn ws_authorized(host: &HostProc) -> Ws {
    ws_connect(host.port, &[("Authorization", &format!("Bearer {}", host.token))]).await.unwrap()
}

/// Sends one JSON message as a text frame.
pub async fn ws_send(ws: &mut Ws, value: &Value) {
    ws.send(Message::Text(value.to_string().into())).await.unwrap();
}

/// Reads the next JSON text message (skipping pings and pongs).
pub async fn ws_recv(ws: &mut Ws) -> Value {
    loop {
        let message = tokio::time::timeout(WAIT, ws.next()).await.expect("no message in time");
        match message.expect("the connection ended").expect("a frame") {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("unexpected frame: {other:?}"),
        }
    }
}

/// One request and its response.
pub async fn ws_call(ws: &mut Ws, id: u64, method: &str, params: Value) -> Value {
    ws_send(ws, &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    let response = ws_recv(ws).await;
    assert_eq!(response["id"], id, "{response}");
    response
}

/// The `error.code` of a response.
pub fn wire_code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {response}"))
}

/// The shared error code of a tool result.
pub fn code(result: &Value) -> String {
    mcp_tests::error_code(result).unwrap_or_else(|| panic!("not an error result: {result}"))
}
