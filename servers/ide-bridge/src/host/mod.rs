//! The headless workspace host (`ide-bridge-host`): the role the IDE extension plays.
//!
//! It listens on 127.0.0.1 only, checks every WebSocket upgrade ([`handshake`]), and serves the
//! JSON-RPC methods of [`crate::protocol`] over each connection ([`session`]) on one workspace
//! folder ([`fs::WorkspaceFolder`]). Many connections, and many requests per connection, are served at
//! once; file operations run on tokio's blocking pool.

pub mod fs;
pub mod handshake;
pub mod session;

use std::{
    net::{Ipv4Addr, SocketAddr},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use tokio::{
    io::AsyncWriteExt,
    net::{TcpListener, TcpStream},
};
use tokio_tungstenite::tungstenite::{
    handshake::server::{ErrorResponse, Request, Response},
    http::{HeaderMap, StatusCode, header},
    protocol::WebSocketConfig,
};
use tokio_util::sync::CancellationToken;

use crate::protocol::{HostInfo, PROTOCOL_VERSION};
use fs::WorkspaceFolder;
use handshake::{Policy, Refusal};

/// The host binary's name (reported in `host/info`).
pub const HOST_NAME: &str = "ide-bridge-host";

/// Connections served at once; more are refused with 503 at the upgrade.
pub const MAX_CONNECTIONS: usize = 128;

/// How long a client may take to complete the WebSocket upgrade.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything a host needs.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The workspace folder served.
    pub workspace: WorkspaceFolder,
    /// The bearer token of the upgrade.
    pub token: String,
    /// `Origin` values accepted (none by default: no web page may connect).
    pub allowed_origins: Vec<String>,
    /// The largest message accepted, in bytes (a larger one closes the connection with 1009).
    pub max_message_size: usize,
    /// The keep-alive ping interval; a client silent for two intervals is dropped.
    pub ping_interval: Duration,
}

/// What every connection shares.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) workspace: WorkspaceFolder,
    pub(crate) policy: Policy,
    pub(crate) ws_config: WebSocketConfig,
    pub(crate) ping_interval: Duration,
    pub(crate) info: HostInfo,
    pub(crate) connections: AtomicUsize,
    /// Notified when the last connection ends.
    pub(crate) idle: tokio::sync::Notify,
}

/// A bound host, ready to serve.
#[derive(Debug)]
pub struct Host {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Host {
    /// Binds 127.0.0.1:`port` (0 picks a free port).
    pub async fn bind(config: HostConfig, port: u16) -> std::io::Result<Host> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
        let port = listener.local_addr()?.port();
        let settings = config.workspace.settings().clone();
        let info = HostInfo {
            protocol_version: PROTOCOL_VERSION,
            name: HOST_NAME.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            workspace_folders: vec![config.workspace.root().display().to_string()],
            folder_names: Vec::new(),
            read_only: settings.read_only,
            max_file_size: settings.max_file_size,
            max_message_size: config.max_message_size as u64,
        };
        let ws_config = WebSocketConfig::default()
            .read_buffer_size(64 * 1024)
            .write_buffer_size(64 * 1024)
            .max_message_size(Some(config.max_message_size))
            .max_frame_size(Some(config.max_message_size));
        let shared = Shared {
            workspace: config.workspace,
            policy: Policy { port, token: config.token, allowed_origins: config.allowed_origins },
            ws_config,
            ping_interval: config.ping_interval,
            info,
            connections: AtomicUsize::new(0),
            idle: tokio::sync::Notify::new(),
        };
        Ok(Host { listener, shared: Arc::new(shared) })
    }

    /// The address bound.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// What `host/info` answers.
    pub fn info(&self) -> &HostInfo {
        &self.shared.info
    }

    /// Serves until `shutdown` is cancelled; then every connection is closed (code 1001), waiting
    /// a moment for the close frames to go out.
    pub async fn serve(self, shutdown: CancellationToken) {
        self.accept_until(&shutdown).await;
        let Host { listener, shared } = self;
        drop(listener);
        let drained = async move {
            loop {
                let idle = shared.idle.notified();
                tokio::pin!(idle);
                idle.as_mut().enable();
                if shared.connections.load(Ordering::SeqCst) == 0 {
                    return;
                }
                idle.await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), drained).await;
    }

    async fn accept_until(&self, shutdown: &CancellationToken) {
        loop {
            tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let shared = Arc::clone(&self.shared);
                        let shutdown = shutdown.child_token();
                        tokio::spawn(async move { connection(stream, peer, shared, shutdown).await });
                    }
                    Err(error) => {
                        // EMFILE and the like: keep serving the connections we have.
                        tracing::warn!(%error, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                () = shutdown.cancelled() => break,
            }
        }
    }
}

/// Decrements the connection count when a connection ends, however it ends.
struct Counted(Arc<Shared>);
impl Drop for Counted {
    fn drop(&mut self) {
        if self.0.connections.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

// tungstenite's callback returns `Result<Response, ErrorResponse>`; its size is not ours to choose.
#[allow(clippy::result_large_err)]
async fn connection(mut stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>, shutdown: CancellationToken) {
    let _ = stream.set_nodelay(true);
    let over_limit = shared.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS;
    let counted = Counted(Arc::clone(&shared));
    let policy = shared.policy.clone();
    if plain_http_refused(&mut stream, &policy, peer).await {
        return;
    }
    let callback = move |request: &Request, response: Response| -> Result<Response, ErrorResponse> {
        if over_limit {
            let refusal = Refusal { status: StatusCode::SERVICE_UNAVAILABLE, reason: "too many connections" };
            tracing::warn!(%peer, "refused a WebSocket upgrade: too many connections (503)");
            return Err(error_response(&refusal));
        }
        match policy.check(request.headers()) {
            Ok(()) => Ok(response),
            Err(refusal) => {
                tracing::warn!(%peer, status = refusal.status.as_u16(), "refused a WebSocket upgrade: {}", refusal.reason);
                Err(error_response(&refusal))
            }
        }
    };
    let accepted = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        tokio_tungstenite::accept_hdr_async_with_config(stream, callback, Some(shared.ws_config)),
    )
    .await;
    let ws = match accepted {
        Ok(Ok(ws)) => ws,
        Ok(Err(error)) => {
            tracing::debug!(%peer, %error, "WebSocket upgrade failed");
            return;
        }
        Err(_) => {
            tracing::debug!(%peer, "WebSocket upgrade timed out");
            return;
        }
    };
    tracing::debug!(%peer, "session opened");
    session::run(ws, Arc::clone(&shared), shutdown).await;
    tracing::debug!(%peer, "session closed");
    drop(counted);
}

/// Answers a plain HTTP request (one that is not a WebSocket upgrade) itself, which tungstenite
/// would drop without a word: the same checks as an upgrade (403 / 401), and 426 Upgrade Required
/// when they pass. Only looks at the request head already received (a peek, nothing consumed);
/// an upgrade, or a head still incomplete, is left to the WebSocket handshake. Returns whether
/// the connection is done (answered here, or silent for the whole handshake time).
async fn plain_http_refused(stream: &mut TcpStream, policy: &Policy, peer: SocketAddr) -> bool {
    let mut buf = [0u8; 8192];
    let n = match tokio::time::timeout(HANDSHAKE_TIMEOUT, stream.peek(&mut buf)).await {
        Ok(Ok(n)) => n,
        // Silent for the whole handshake time, or gone: nothing to answer.
        Ok(Err(_)) | Err(_) => {
            tracing::debug!(%peer, "a connection sent no request");
            return true;
        }
    };
    let Some(head) = buf.get(..n).and_then(request_head) else { return false };
    let is_upgrade = head
        .get_all(header::UPGRADE)
        .iter()
        .any(|v| v.to_str().is_ok_and(|v| v.to_ascii_lowercase().contains("websocket")));
    if is_upgrade {
        return false;
    }
    let refusal = policy.check(&head).err().unwrap_or(Refusal {
        status: StatusCode::UPGRADE_REQUIRED,
        reason: "this is the ide-bridge WebSocket endpoint: connect with a WebSocket client (mcp-server-ide-bridge)",
    });
    tracing::warn!(%peer, status = refusal.status.as_u16(), "refused a plain HTTP request: {}", refusal.reason);
    let response = error_response(&refusal);
    let mut text = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status().as_u16(),
        response.status().canonical_reason().unwrap_or("Error")
    );
    for (name, value) in response.headers() {
        if let Ok(value) = value.to_str() {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    if refusal.status == StatusCode::UPGRADE_REQUIRED {
        text.push_str("upgrade: websocket\r\n");
    }
    text.push_str("\r\n");
    text.push_str(response.body().as_deref().unwrap_or_default());
    let _ = tokio::time::timeout(HANDSHAKE_TIMEOUT, async {
        let _ = stream.write_all(text.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
    true
}

/// The headers of a complete HTTP request head (up to the empty line), parsed by `httparse`
/// (hyper's and tungstenite's parser), or `None` if `bytes` does not hold one yet, it is not
/// HTTP/1.x, or it has more than 64 headers (the handshake then refuses it).
fn request_head(bytes: &[u8]) -> Option<HeaderMap> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut request = httparse::Request::new(&mut headers);
    if !matches!(request.parse(bytes), Ok(httparse::Status::Complete(_))) {
        return None;
    }
    let mut map = HeaderMap::new();
    for parsed in request.headers.iter() {
        let name = header::HeaderName::from_bytes(parsed.name.as_bytes()).ok()?;
        map.append(name, header::HeaderValue::from_bytes(parsed.value).ok()?);
    }
    Some(map)
}

/// The HTTP response of a refused upgrade: the status, a plain-text reason, and for 401 a
/// `WWW-Authenticate` challenge.
fn error_response(refusal: &Refusal) -> ErrorResponse {
    let body = format!("{}\n", refusal.reason);
    let mut response = ErrorResponse::new(Some(body.clone()));
    *response.status_mut() = refusal.status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/plain; charset=utf-8"));
    headers.insert(header::CONNECTION, header::HeaderValue::from_static("close"));
    if let Ok(len) = header::HeaderValue::from_str(&body.len().to_string()) {
        headers.insert(header::CONTENT_LENGTH, len);
    }
    if refusal.status == StatusCode::UNAUTHORIZED {
        headers.insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer realm=\"ide-bridge\""));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_heads_are_parsed_only_when_complete() {
        let head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:1\r\nAuthorization: Bearer t\r\nX-A: 1\r\nx-a: 2\r\n\r\nbody";
        let headers = request_head(head).unwrap();
        assert_eq!(headers.get(header::HOST).unwrap(), "127.0.0.1:1");
        assert_eq!(headers.get(header::AUTHORIZATION).unwrap(), "Bearer t");
        assert_eq!(headers.get_all("x-a").iter().count(), 2, "duplicates are kept for the policy to refuse");
        assert!(request_head(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:1\r\n").is_none(), "incomplete");
        assert!(request_head(b"\x16\x03\x01 not http\r\n\r\n").is_none());
        assert!(request_head(b"GET / HTTP/1.1\r\nno colon here\r\n\r\n").is_none());
    }
}
