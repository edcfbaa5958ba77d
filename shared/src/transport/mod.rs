//! Transports: stdio by default, Streamable HTTP with `--http ADDR`, behind one flattened clap
//! [`TransportArgs`] that every server embeds.

use std::{net::SocketAddr, time::Duration};

use rmcp::ServiceExt;

use crate::server::{McpServer, ServerSettings};

pub mod http;
mod id_scan;
mod ids;
mod jsonrpc;
pub mod stdio;

/// The flags every server shares. Embed with `#[command(flatten)]`.
#[derive(Debug, Clone, clap::Args)]
pub struct TransportArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio: `HOST:PORT` (127.0.0.1:8080,
    /// 0.0.0.0:8080, [::1]:8080), `localhost:PORT`, or `:PORT` / `PORT` for 127.0.0.1.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr)]
    pub http: Option<SocketAddr>,

    /// Require `Authorization: Bearer TOKEN` on every HTTP request.
    #[arg(long, value_name = "TOKEN", env = "MCP_HTTP_TOKEN", hide_env_values = true)]
    pub http_token: Option<String>,

    /// Per-call timeout in seconds; a call that runs longer is stopped with TIMEOUT.
    #[arg(long, value_name = "SECS", default_value_t = crate::server::DEFAULT_TOOL_TIMEOUT.as_secs_f64(), value_parser = parse_seconds)]
    pub tool_timeout: f64,

    /// Leave out the MCP Apps views: no `_meta.ui` on tools, no `ui://` resources, no view data
    /// in results (hosts that render views show the text instead).
    #[arg(long)]
    pub no_views: bool,

    /// The largest JSON-RPC message accepted, in bytes; larger ones are refused with an error.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_message_bytes: usize,

    /// HTTP: another `Host` header value to accept (`name` or `name:port`), e.g. the name a
    /// reverse proxy or a container port mapping uses. Repeatable. Default: the bound address
    /// (and `localhost` for a loopback address) only.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,

    /// HTTP: another browser `Origin` to accept (`scheme://host[:port]`). Repeatable. Default:
    /// pages served from the bound address only.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,

    /// HTTP: serve a non-loopback address without --http-token (refused otherwise), when
    /// something else guards the network.
    #[arg(long)]
    pub insecure_no_token: bool,

    /// HTTP: no session state between requests, so that replicas behind a load balancer can
    /// serve one client (no server-to-client requests: no MCP roots, no progress).
    #[arg(long)]
    pub stateless: bool,

    /// HTTP: open connections at most; past it, a connection that never sent a request gives
    /// way, else the new one gets 503. Default: the file-descriptor limit less a reserve.
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,

    /// HTTP: seconds a client has to send a request head; also the longest a kept-alive
    /// connection may stay idle between requests. The body must follow within three times this.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_seconds)]
    pub header_read_timeout: f64,

    /// HTTP: sessions open at once at most; past it a new session takes the place of the least
    /// recently used idle one (never one with a call in flight; 503 when all are busy).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,

    /// HTTP: seconds without a message after which a session is ended (its client must
    /// initialize again).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_SESSION_IDLE_SECS, value_parser = parse_seconds)]
    pub session_idle_timeout: f64,

    /// HTTP: on SIGTERM, seconds in-flight calls get to finish before the server exits.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_seconds)]
    pub shutdown_grace: f64,

    /// The call log: one JSON line per tool call (time, tool, a digest of the arguments, caller,
    /// outcome, duration) appended to PATH; `-` for stderr. Over stdio and HTTP.
    #[arg(long, value_name = "PATH")]
    pub audit_log: Option<std::path::PathBuf>,

    /// HTTP: `GET /metrics` needs the bearer token too (by default it is open, like `/healthz`).
    #[arg(long)]
    pub protect_metrics: bool,

    /// HTTP: an OAuth 2.1 resource server: accept access tokens (JWTs) issued by this
    /// authorization server (its issuer URL; metadata by RFC 8414 or OpenID discovery) for
    /// --public-url. Not with --http-token.
    #[arg(long, value_name = "URL", requires = "public_url")]
    pub auth_issuer: Option<String>,

    /// HTTP: this server's canonical MCP URL as clients reach it (e.g.
    /// https://mcp.example.com/mcp): the audience its tokens must name, and the `resource` of
    /// its protected resource metadata.
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    pub public_url: Option<String>,

    /// HTTP with --auth-issuer: the scope every request needs.
    #[arg(long, value_name = "SCOPE", default_value = "mcp:read")]
    pub auth_read_scope: String,

    /// HTTP with --auth-issuer: the scope a call of a tool that can change something needs.
    #[arg(long, value_name = "SCOPE", default_value = "mcp:write")]
    pub auth_write_scope: String,
}

/// The default `--max-sessions`. A session costs about 90 KiB of heap whatever it does: a heap
/// profile (valgrind's massif, 1,200 `initialize` floods) puts three quarters of it in the blocks
/// of rmcp's per-session tokio channels (each allocates 32 message slots when it is made) and
/// the rest in its tasks. 256 sessions are ~23 MiB over the idle server, so that a flood of
/// abandoned sessions stays far inside 64 MiB (10,000 of them: 39 MB in all, `bench/http_limits.py`);
/// 256 concurrent clients is more than a tool server on one machine serves (scale out with
/// --stateless replicas). Past it, idle sessions give way to new ones.
pub const DEFAULT_MAX_SESSIONS: usize = 256;

/// The default `--session-idle-timeout`: 10 minutes. Long enough for a person to think between
/// two tool calls (a session that ended forces the client to initialize again); abandoned
/// sessions are also ended sooner when new ones need their place (`--max-sessions`).
pub const DEFAULT_SESSION_IDLE_SECS: f64 = 600.0;

/// `--http`'s address: `HOST:PORT` with an IP address, `localhost:PORT`, or `:PORT` and `PORT`
/// alone for the loopback address 127.0.0.1.
pub fn parse_http_addr(s: &str) -> Result<SocketAddr, String> {
    let loopback = |port: &str| port.parse::<u16>().ok().map(|p| SocketAddr::from(([127, 0, 0, 1], p)));
    let parsed = s.parse::<SocketAddr>().ok().or_else(|| {
        let port = s.strip_prefix(':').or_else(|| s.strip_prefix("localhost:")).unwrap_or(s);
        loopback(port)
    });
    parsed.ok_or_else(|| {
        format!(
            "`{s}` is not an address to listen on: write HOST:PORT with an IP address (127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080), localhost:PORT, or :PORT or PORT alone for 127.0.0.1"
        )
    })
}

/// The one parser of a duration flag in seconds (`--tool-timeout`, the bridge's and the host's
/// timeouts): a positive, finite number of seconds, at most a year; fractions allowed (`0.5`).
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    let secs: f64 = s.parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 * 365.0 {
        Ok(secs)
    } else {
        Err(format!("`{s}` must be a positive number of seconds"))
    }
}

impl TransportArgs {
    /// The handler settings these flags ask for, for the server named `server` (the call log's
    /// `server` field); the call log is opened here.
    pub fn settings(&self, server: &str) -> Result<ServerSettings, ServeError> {
        let call_log = match &self.audit_log {
            None => None,
            Some(path) => {
                Some(std::sync::Arc::new(crate::call_log::CallLog::open(path, server).map_err(|source| {
                    ServeError::Io {
                        context: format!("cannot open the call log {} (--audit-log)", path.display()),
                        source,
                    }
                })?))
            }
        };
        Ok(ServerSettings { tool_timeout: Duration::from_secs_f64(self.tool_timeout), call_log, views: !self.no_views })
    }

    /// The HTTP options these flags ask for.
    pub fn http_options(&self) -> http::HttpOptions {
        http::HttpOptions {
            token: self.http_token.clone().filter(|t| !t.is_empty()),
            max_message_bytes: self.max_message_bytes,
            allow_hosts: self.allow_hosts.clone(),
            allow_origins: self.allow_origins.clone(),
            insecure_no_token: self.insecure_no_token,
            stateless: self.stateless,
            direct_calls: true,
            protect_metrics: self.protect_metrics,
            oauth: self.auth_issuer.as_ref().zip(self.public_url.as_ref()).map(|(issuer, public_url)| {
                http::OAuthOptions {
                    issuer: issuer.clone(),
                    public_url: public_url.clone(),
                    read_scope: self.auth_read_scope.clone(),
                    write_scope: self.auth_write_scope.clone(),
                }
            }),
            max_sessions: self.max_sessions.max(1),
            session_idle_timeout: Duration::from_secs_f64(self.session_idle_timeout),
            limits: http::ListenerLimits {
                max_connections: self.max_connections.unwrap_or_else(http::default_max_connections).max(1),
                header_read_timeout: Duration::from_secs_f64(self.header_read_timeout),
                shutdown_grace: Duration::from_secs_f64(self.shutdown_grace),
            },
        }
    }
}

/// Errors that end serving.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The MCP session could not start.
    #[error("the MCP session could not start")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),
    /// An I/O error (binding the HTTP address, ...).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The flags ask for something unsafe (a public address without a token).
    #[error("{0}")]
    Refused(String),
    /// The OAuth flags are not usable.
    #[error(transparent)]
    OAuth(#[from] http::OAuthSetupError),
    /// The server task failed.
    #[error("the server task failed")]
    Join(#[source] tokio::task::JoinError),
}

/// The runtime of stdio: one thread for the protocol (a cold start spawns no worker thread) and
/// at most 64 for blocking file work; I/O and timers, no signal handling (nothing over stdio
/// waits for a signal: the client ends a session by closing stdin).
pub fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(64)
        .build()
        .map_err(|source| ServeError::Io { context: "cannot start the async runtime".into(), source })
}

/// [`serve`] on a [`runtime`] (stdio) or an [`http_runtime`]: what a server's `main` calls once
/// its flags are parsed.
pub fn serve_blocking(server: McpServer, args: &TransportArgs) -> Result<(), ServeError> {
    serve_blocking_with(server, args, || (), || ())
}

/// [`serve_blocking`] for a server with work of its own on the runtime: `start` runs on it
/// before serving (it may spawn tasks), `stop` after.
pub fn serve_blocking_with(
    server: McpServer,
    args: &TransportArgs,
    start: impl FnOnce(),
    stop: impl FnOnce(),
) -> Result<(), ServeError> {
    let runtime = if args.http.is_some() { http_runtime()? } else { runtime()? };
    runtime.block_on(async {
        start();
        let served = serve(server, args).await;
        stop();
        served
    })
}

/// Lets the call log write what is queued before the process ends (bounded: a log nobody reads
/// does not hold the exit up).
fn drain(call_log: Option<&crate::call_log::CallLog>) {
    if let Some(log) = call_log {
        log.drain(Duration::from_secs(2));
    }
}

/// The runtime of `--http`: one worker per core, since many clients call at once (a cold start
/// matters less there than for stdio, which keeps [`runtime`]).
pub fn http_runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(64)
        .build()
        .map_err(|source| ServeError::Io { context: "cannot start the async runtime".into(), source })
}

/// Serves `server` on the transport `args` selects, until the client goes away (stdio) or the
/// process is interrupted (HTTP).
pub async fn serve(server: McpServer, args: &TransportArgs) -> Result<(), ServeError> {
    let settings = args.settings(&server.identity().name)?;
    let call_log = settings.call_log.clone();
    let server = server.with_settings(settings);
    let served = match args.http {
        Some(addr) => http::serve_http(server, addr, args.http_options()).await,
        None => serve_stdio(server, args.max_message_bytes).await,
    };
    drain(call_log.as_deref());
    served
}

/// Serves over stdin/stdout until stdin closes.
pub async fn serve_stdio(server: McpServer, max_message_bytes: usize) -> Result<(), ServeError> {
    // Non-blocking pipes on Linux when the client launched us with pipes (no thread hand-off per
    // message); the blocking std handles otherwise (e.g. a terminal).
    let (reader, writer) = rmcp::transport::io::stdio_pipes();
    let transport = stdio::StdioTransport::new(reader, writer, max_message_bytes);
    let running = match server.serve(transport).await {
        Ok(running) => running,
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            tracing::debug!("stdin closed before initialize");
            return Ok(());
        }
        Err(error) => return Err(ServeError::Initialize(Box::new(error))),
    };
    let reason = running.waiting().await.map_err(ServeError::Join)?;
    tracing::debug!(?reason, "session ended");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_takes_host_port_localhost_and_a_port_alone() {
        for (given, addr) in [
            ("127.0.0.1:8080", "127.0.0.1:8080"),
            ("0.0.0.0:9000", "0.0.0.0:9000"),
            ("[::1]:8080", "[::1]:8080"),
            ("localhost:8080", "127.0.0.1:8080"),
            (":8080", "127.0.0.1:8080"),
            ("8080", "127.0.0.1:8080"),
            ("0", "127.0.0.1:0"),
        ] {
            assert_eq!(parse_http_addr(given).unwrap().to_string(), addr, "{given}");
        }
        for bad in ["example.com:80", "localhost", ":", "8080x", "99999", ""] {
            let error = parse_http_addr(bad).unwrap_err();
            assert!(error.contains("localhost:PORT") && error.contains(":PORT or PORT"), "{bad}: {error}");
        }
    }
}
