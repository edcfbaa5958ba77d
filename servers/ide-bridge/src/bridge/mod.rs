//! The bridge's side of the WebSocket: finding the host, staying connected, and sending requests.
//!
//! A supervisor task keeps one [`Link`] to the host: it connects at start, and whenever the link
//! ends it reconnects, re-reading the discovery files each time (a restarted host has a new port
//! and token), with exponential backoff while the host stays down. A call made while there is no
//! link asks the supervisor for an immediate attempt and waits for its outcome, so a call after
//! the host came back succeeds at once, and a call while it is down fails fast with
//! `UNAVAILABLE`. Requests are never replayed on another connection, except the read-only methods
//! (`fs/list`, `fs/read`, `host/info`), which are retried once if the connection dropped under
//! them.

pub mod adapter;
pub mod claude_code;
pub mod conn;
mod endpoint;
pub mod error;
pub mod gemini;
pub mod link;
pub mod previews;

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use tokio::sync::{Notify, broadcast, watch};
use tokio_tungstenite::tungstenite::{
    Error as WsError,
    client::IntoClientRequest,
    http::{HeaderValue, StatusCode, header},
    protocol::WebSocketConfig,
};
use tokio_util::sync::CancellationToken;

pub use conn::{Conn, Protocol};
pub use error::BridgeError;
pub use link::{Link, RequestError};

use self::endpoint::{Endpoint, endpoint};
use crate::protocol::{BRIDGE_MAX_MESSAGE_SIZE, HostInfo, METHOD_INFO, METHOD_LIST, METHOD_NOT_FOUND, METHOD_READ};

/// The first pause after a failed connection attempt; doubled after each failure.
const INITIAL_BACKOFF: Duration = Duration::from_millis(100);
/// The longest pause between attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How long one connection attempt (TCP, upgrade, `host/info`) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a call waits for a connection attempt it asked for.
const CONNECT_WAIT: Duration = Duration::from_secs(6);

/// Where the host is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A fixed URL (`--url`), and the folder its files are confined to (canonical; inside the
    /// IDE's folders where its lock file says them).
    Url {
        /// The URL.
        url: String,
        /// The folder (canonical).
        dir: PathBuf,
        /// It was given with `--workspace` (else it is the working directory).
        given: bool,
    },
    /// The live host whose workspace folder contains this directory (discovery).
    Discover {
        /// The folder (canonical).
        dir: PathBuf,
        /// It was given with `--workspace` (else it is the working directory).
        given: bool,
    },
}

/// Which kind of IDE the bridge connects to (`--ide`). (Its values carry no doc comments: clap
/// would list them one per line and turn every `--help` into the long layout.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
#[allow(missing_docs, reason = "clap would show a variant's doc comment; each is described by a comment")]
pub enum IdeChoice {
    // The mcp-suite extension (or ide-bridge-host) when one serves the workspace, else an IDE of
    // the Claude Code IDE protocol, else a Gemini CLI companion; never VS Code's Claude Code
    // extension, which serves one client at a time (the user's own Claude Code session would be
    // dropped).
    #[default]
    Auto,
    // Only the mcp-suite extension or ide-bridge-host.
    McpSuite,
    // Only an IDE of the Claude Code IDE protocol (VS Code's Claude Code extension included:
    // connecting drops a Claude Code CLI connected to it).
    ClaudeCode,
    // Only the Gemini CLI's IDE companion.
    Gemini,
}

/// The bridge's configuration.
#[derive(Debug, Clone)]
pub struct BridgeConfig {
    /// Where the host is.
    pub target: Target,
    /// Which kind of IDE to connect to.
    pub ide: IdeChoice,
    /// Where Claude Code IDE lock files are ([`claude_code::lock::lock_dirs`]).
    pub lock_dirs: Vec<PathBuf>,
    /// Where Gemini CLI companion files are ([`crate::bridge::gemini::file::companion_dirs`]).
    pub companion_dirs: Vec<PathBuf>,
    /// The token; without one, the discovery file's is used.
    pub token: Option<String>,
    /// The discovery directories, in order ([`discovery::bridge_dirs`]).
    pub discovery_dirs: Vec<PathBuf>,
    /// How long one request may wait for the host's answer.
    pub request_timeout: Duration,
    /// How long a tool call may take in all (`--tool-timeout`): a request that waits for the
    /// user or a language server is kept within it.
    pub tool_timeout: Duration,
}

/// Why no connection could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    /// The token to send cannot be an HTTP header value (a line break in the lock file).
    #[error("the token for {url} cannot be sent in an HTTP header")]
    UnsendableToken {
        /// The IDE's URL.
        url: String,
    },
    /// The folder the bridge would serve is not one it may serve through this IDE.
    #[error("the bridge serves no files through {url}: {reason}")]
    Workspace {
        /// The IDE's URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// Discovery found no live host for the workspace.
    #[error("no live host serves the workspace ({live} live hosts found)")]
    NoHost {
        /// How many live hosts there were (serving other folders).
        live: usize,
        /// The folder came from `--workspace` (else from the working directory).
        given: bool,
        /// What `--ide` asked for.
        ide: IdeChoice,
        /// A single-client IDE (VS Code's Claude Code extension) that serves the workspace but
        /// was left alone (`--ide auto`): its name.
        single_client: Option<String>,
        /// The folder the bridge serves (`--workspace`, or the working directory).
        folder: PathBuf,
        /// What discovery found: each live IDE's name and workspace folders.
        found: Vec<String>,
        /// Where it looked: the directories of announcement files it read.
        looked: Vec<PathBuf>,
    },
    /// The TCP connection failed or timed out.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The host's URL.
        url: String,
        /// Why, in a few words.
        reason: String,
    },
    /// The host refused the token (HTTP 401).
    #[error("{url} refused the token (401)")]
    Unauthorized {
        /// The host's URL.
        url: String,
        /// Whether the bridge had a token at all.
        had_token: bool,
    },
    /// The host refused the connection (HTTP 403, or another refusal).
    #[error("{url} refused the connection (HTTP {status})")]
    Refused {
        /// The host's URL.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// The URL is not a WebSocket URL.
    #[error("`{url}` is not a ws:// URL")]
    BadUrl {
        /// The URL as given.
        url: String,
    },
    /// The connection opened but the host did not behave (e.g. `host/info` failed).
    #[error("{url} did not complete the handshake: {reason}")]
    Handshake {
        /// The host's URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The attempt did not finish within the wait.
    #[error("still connecting")]
    StillConnecting,
}

#[derive(Debug, Clone)]
enum LinkState {
    Starting,
    Connecting { attempt: u64 },
    Up { attempt: u64, link: Conn },
    Down { attempt: u64, error: ConnectError },
}

#[derive(Debug)]
struct Inner {
    config: BridgeConfig,
    state: watch::Sender<LinkState>,
    wake: Notify,
    next_id: AtomicU64,
    shutdown: CancellationToken,
    /// The hosts' notifications (method names), from whichever link is up.
    events: broadcast::Sender<String>,
    /// What the last previews of changes showed, to hold their applies to.
    previews: previews::Previews,
}

/// The connection manager. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Bridge {
    inner: Arc<Inner>,
}

impl Bridge {
    /// Starts connecting to the host in the background (needs a tokio runtime).
    pub fn start(config: BridgeConfig) -> Bridge {
        let bridge = Bridge::new(config);
        bridge.connect();
        bridge
    }

    /// A bridge that does not connect yet ([`Bridge::connect`] starts it): `main.rs` builds the
    /// server with it before the runtime exists, and connects once the runtime runs.
    pub fn new(config: BridgeConfig) -> Bridge {
        let (state, _) = watch::channel(LinkState::Starting);
        let inner = Arc::new(Inner {
            config,
            state,
            wake: Notify::new(),
            next_id: AtomicU64::new(1),
            shutdown: CancellationToken::new(),
            events: broadcast::channel(64).0,
            previews: previews::Previews::default(),
        });
        Bridge { inner }
    }

    /// Starts connecting to the host in the background (needs a tokio runtime).
    pub fn connect(&self) {
        tokio::spawn(supervise(Arc::clone(&self.inner)));
    }

    /// Stops the supervisor and closes the link.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
        if let LinkState::Up { link, .. } = &*self.inner.state.borrow() {
            link.close();
        }
    }

    /// What the last previews of changes showed.
    pub fn previews(&self) -> &previews::Previews {
        &self.inner.previews
    }

    /// The configuration.
    pub fn config(&self) -> &BridgeConfig {
        &self.inner.config
    }

    /// Waits (at most `max`) until the first connection attempt has an outcome.
    pub async fn settled(&self, max: Duration) {
        let mut rx = self.inner.state.subscribe();
        let _ = tokio::time::timeout(max, rx.wait_for(|s| matches!(s, LinkState::Up { .. } | LinkState::Down { .. })))
            .await;
    }

    /// Which IDE discovery finds now, in a sentence (the banner's).
    pub fn expected(&self) -> String {
        match endpoint(&self.inner.config) {
            Ok(Endpoint::Host(url, ..)) => {
                format!("IDE: the ide-bridge extension or host at {url} ({})", Protocol::McpSuite.title())
            }
            Ok(Endpoint::Claude(lock, _)) => format!(
                "IDE: {} at {} ({})",
                mcp_shared::escape::one_line(&lock.ide_name),
                lock.url(),
                Protocol::ClaudeCode.title()
            ),
            Ok(Endpoint::Gemini(found, _)) => format!(
                "IDE: {} at {} ({})",
                mcp_shared::escape::one_line(&found.ide_name),
                found.url(),
                Protocol::Gemini.title()
            ),
            Err(error) => format!(
                "no IDE found yet ({}): {}",
                error,
                error::BridgeError::Connect(error.clone()).describe(error::Op::List).1
            ),
        }
    }

    /// The current connection, if connected.
    pub fn current(&self) -> Option<Conn> {
        match &*self.inner.state.borrow() {
            LinkState::Up { link, .. } if !link.is_closed() => Some(link.clone()),
            _ => None,
        }
    }

    /// Whether the tool `tool` can be served by the current connection (every tool when there is
    /// none: the next connection may serve it).
    pub fn offers(&self, tool: &str) -> bool {
        self.current().is_none_or(|c| c.offers(tool))
    }

    /// Yields each time the host connects or goes away (what `tools/list` and
    /// `resources/list` answer changes then); ends when the bridge shuts down.
    pub fn link_changes(&self) -> futures::stream::BoxStream<'static, ()> {
        let rx = self.inner.state.subscribe();
        let up = matches!(&*rx.borrow(), LinkState::Up { .. });
        Box::pin(futures::stream::unfold((rx, up), |(mut rx, mut up)| async move {
            loop {
                rx.changed().await.ok()?;
                let now = matches!(&*rx.borrow_and_update(), LinkState::Up { .. });
                if now != up {
                    up = now;
                    return Some(((), (rx, up)));
                }
            }
        }))
    }

    /// The host's notifications (their method names: `ide/selectionChanged`, …), as they come;
    /// a listener that falls behind skips what it missed. Ends when the bridge shuts down.
    pub fn host_events(&self) -> futures::stream::BoxStream<'static, String> {
        let rx = self.inner.events.subscribe();
        Box::pin(futures::stream::unfold(rx, |mut rx| async move {
            loop {
                match rx.recv().await {
                    Ok(method) => return Some((method, rx)),
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        }))
    }

    /// What the connected host said in `host/info`.
    pub fn host_info(&self) -> Option<HostInfo> {
        self.current().and_then(|l| l.info().cloned())
    }

    /// The host's workspace folders (from `host/info` or the discovery file), when connected.
    pub fn workspace_folders(&self) -> Vec<String> {
        self.current().map(|l| l.workspace_folders().to_vec()).unwrap_or_default()
    }

    /// The names a multi-root workspace addresses its folders by ([`crate::paths::folder_names`]).
    pub fn folder_names(&self) -> Vec<String> {
        let reported = self.host_info().map(|i| i.folder_names).unwrap_or_default();
        crate::paths::folder_names(&self.workspace_folders(), &reported)
    }

    /// Waits for a connection attempt under way (the first one of a session, or a reconnection)
    /// to have an outcome, so that the host's workspace folders are known when connected. Never
    /// starts an attempt: a failure is left to the request that follows, which reports it.
    pub async fn ready(&self) {
        self.settled(self.inner.config.request_timeout).await;
    }

    /// The link, connecting first if there is none.
    async fn link(&self) -> Result<Conn, ConnectError> {
        let mut rx = self.inner.state.subscribe();
        let want = {
            let state = rx.borrow_and_update();
            match &*state {
                LinkState::Up { link, .. } if !link.is_closed() => return Ok(link.clone()),
                LinkState::Up { attempt, .. } | LinkState::Down { attempt, .. } => {
                    self.inner.wake.notify_one();
                    attempt + 1
                }
                LinkState::Connecting { attempt } => *attempt,
                LinkState::Starting => 1,
            }
        };
        let waited = tokio::time::timeout(CONNECT_WAIT, async {
            loop {
                match &*rx.borrow_and_update() {
                    LinkState::Up { attempt, link } if *attempt >= want => return Ok(link.clone()),
                    LinkState::Down { attempt, error } if *attempt >= want => return Err(error.clone()),
                    _ => {}
                }
                if rx.changed().await.is_err() {
                    return Err(ConnectError::StillConnecting);
                }
            }
        })
        .await;
        waited.unwrap_or(Err(ConnectError::StillConnecting))
    }

    /// [`Bridge::call`] with the protocol module's typed params and result: the bridge builds
    /// and reads the same structs the host does.
    pub async fn request<P: serde::Serialize, T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<T, BridgeError> {
        let params = serde_json::to_value(params).map_err(|e| BridgeError::Protocol(format!("{method}: {e}")))?;
        let value = self.call(method, params).await?;
        serde_json::from_value(value).map_err(|e| BridgeError::Protocol(format!("{method}: {e}")))
    }

    /// [`Bridge::request`] for a method that waits up to `wait` on the host's side (for the user,
    /// or a language server): the answer is awaited that much longer. Never replayed.
    pub async fn request_waiting<P: serde::Serialize, T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
        wait: Duration,
    ) -> Result<T, BridgeError> {
        let params = serde_json::to_value(params).map_err(|e| BridgeError::Protocol(format!("{method}: {e}")))?;
        let link = self.link().await.map_err(BridgeError::Connect)?;
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let value = link
            .request(id, method, params, self.inner.config.request_timeout + wait)
            .await
            .map_err(BridgeError::Request)?;
        serde_json::from_value(value).map_err(|e| BridgeError::Protocol(format!("{method}: {e}")))
    }

    /// The longest a host-side wait may be so that the call still ends within `--tool-timeout`
    /// (5 s are kept for the answer to travel).
    pub fn max_wait(&self) -> Duration {
        self.inner.config.tool_timeout.saturating_sub(Duration::from_secs(5))
    }

    /// Sends `method` with `params` to the host and returns its result.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, BridgeError> {
        let replayable = matches!(method, METHOD_LIST | METHOD_READ | METHOD_INFO);
        let mut tries = 0;
        loop {
            tries += 1;
            let link = self.link().await.map_err(BridgeError::Connect)?;
            let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
            match link.request(id, method, params.clone(), self.inner.config.request_timeout).await {
                Ok(value) => return Ok(value),
                Err(RequestError::Lost) if replayable && tries < 2 => {
                    tracing::debug!(method, "connection lost under a read-only request; trying once more");
                }
                Err(error) => return Err(BridgeError::Request(error)),
            }
        }
    }
}

/// One connection attempt.
async fn connect(inner: &Inner) -> Result<Conn, ConnectError> {
    match endpoint(&inner.config)? {
        Endpoint::Host(url, token, folders) => connect_host(inner, url, token, folders).await.map(Conn::Host),
        Endpoint::Claude(lock, dir) => {
            let ide =
                claude_code::connect(&lock, &dir, inner.config.token.as_deref(), inner.events.clone(), CONNECT_TIMEOUT)
                    .await?;
            Ok(Conn::Ide(ide))
        }
        Endpoint::Gemini(found, dir) => {
            let ide = crate::bridge::gemini::connect(
                &found,
                &dir,
                inner.config.token.as_deref(),
                inner.events.clone(),
                CONNECT_TIMEOUT,
            )
            .await?;
            Ok(Conn::Ide(ide))
        }
    }
}

/// One connection attempt to a host of the bridge's protocol: TCP, the authenticated upgrade,
/// then `host/info`.
async fn connect_host(
    inner: &Inner,
    url: String,
    token: Option<String>,
    folders: Vec<String>,
) -> Result<Arc<Link>, ConnectError> {
    let bad_url = || ConnectError::BadUrl { url: url.clone() };
    let mut request = url.as_str().into_client_request().map_err(|_| bad_url())?;
    if !matches!(request.uri().scheme_str(), Some("ws" | "wss")) {
        return Err(bad_url());
    }
    if let Some(token) = &token {
        let value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| ConnectError::Unauthorized { url: url.clone(), had_token: true })?;
        request.headers_mut().insert(header::AUTHORIZATION, value);
    }
    let config = WebSocketConfig::default()
        .read_buffer_size(64 * 1024)
        .write_buffer_size(64 * 1024)
        .max_message_size(Some(BRIDGE_MAX_MESSAGE_SIZE))
        .max_frame_size(Some(BRIDGE_MAX_MESSAGE_SIZE));
    let connected = tokio::time::timeout(
        CONNECT_TIMEOUT,
        tokio_tungstenite::connect_async_with_config(request, Some(config), true),
    )
    .await;
    let ws = match connected {
        Err(_) => return Err(ConnectError::Unreachable { url, reason: "timed out".into() }),
        Ok(Ok((ws, _))) => ws,
        Ok(Err(WsError::Http(response))) => {
            return Err(match response.status() {
                StatusCode::UNAUTHORIZED => ConnectError::Unauthorized { url, had_token: token.is_some() },
                status => ConnectError::Refused { url, status: status.as_u16() },
            });
        }
        Ok(Err(WsError::Io(error))) => {
            let reason = match error.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".to_owned(),
                kind => kind.to_string(),
            };
            return Err(ConnectError::Unreachable { url, reason });
        }
        Ok(Err(error)) => return Err(ConnectError::Handshake { url, reason: error.to_string() }),
    };
    let link = Link::spawn(ws, url.clone(), folders, inner.events.clone());
    let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
    match link.request(id, METHOD_INFO, json!({}), CONNECT_TIMEOUT).await {
        Ok(value) => match serde_json::from_value::<HostInfo>(value) {
            Ok(info) => link.set_info(info),
            Err(error) => tracing::warn!(%error, "the host's host/info answer is not readable; going on without it"),
        },
        Err(RequestError::Host(e)) if e.code == METHOD_NOT_FOUND => {
            tracing::debug!("the host does not implement host/info");
        }
        Err(error) => {
            link.close();
            return Err(ConnectError::Handshake { url, reason: format!("host/info failed: {error:?}") });
        }
    }
    Ok(link)
}

async fn supervise(inner: Arc<Inner>) {
    let mut attempt = 0u64;
    let mut backoff = INITIAL_BACKOFF;
    let mut last_error: Option<ConnectError> = None;
    loop {
        attempt += 1;
        inner.state.send_replace(LinkState::Connecting { attempt });
        let outcome = tokio::select! {
            outcome = connect(&inner) => outcome,
            () = inner.shutdown.cancelled() => return,
        };
        match outcome {
            Ok(link) => {
                backoff = INITIAL_BACKOFF;
                last_error = None;
                let read_only = link.info().is_some_and(|i| i.read_only);
                let ide = link.info().map(|i| i.name.clone()).unwrap_or_default();
                tracing::info!(
                    url = link.url(),
                    read_only,
                    ide,
                    protocol = link.protocol().title(),
                    "connected to the workspace host"
                );
                inner.state.send_replace(LinkState::Up { attempt, link: link.clone() });
                tokio::select! {
                    () = link.closed() => {}
                    () = inner.shutdown.cancelled() => {
                        link.close();
                        return;
                    }
                }
                tracing::warn!(url = link.url(), "lost the connection to the workspace host; reconnecting");
                // The next attempt starts at once; backoff only after it fails.
            }
            Err(error) => {
                if last_error.as_ref() != Some(&error) {
                    tracing::warn!(%error, "cannot connect to the workspace host; retrying with backoff");
                }
                last_error = Some(error.clone());
                inner.state.send_replace(LinkState::Down { attempt, error });
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = inner.wake.notified() => {}
                    () = inner.shutdown.cancelled() => return,
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}
