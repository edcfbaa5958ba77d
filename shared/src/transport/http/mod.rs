//! Streamable HTTP at `/mcp`, and `GET /healthz` and `/metrics`: the composition root of the
//! HTTP transport. Its modules run one way, each using only those listed before it:
//!
//! - [`wire`] and [`auth`]: what the checks share (the continuation a check hands a request on
//!   to, body wrappers, JSON answers; the bearer header and a constant-time comparison);
//! - the checks, each on `wire` alone: [`token`] (`--http-token`), [`oauth`] (`--auth-issuer`:
//!   its key fetching in `oauth/keys.rs`, its gate in `oauth/mod.rs`), [`priming`] (SSE priming
//!   events by revision), [`session_gate`] (the session cap, idle timeout, owners);
//! - [`direct`]: the direct answer to a sessionless `tools/call` (the one path that does not
//!   go through rmcp's service: rmcp's own per-request service holds `--stateless` below
//!   0.35x the bare-hyper floor), and [`body`], the body check that calls it;
//! - [`listener`]: connections (TCP_NODELAY, header-read timeout, connection cap, graceful
//!   shutdown), which serves what it is given and knows nothing of MCP;
//! - this module: the options, the router, the order of the checks ([`McpGate`]), serving.
//!
//! What a client sees:
//!
//! - **Who may call**: `Host` and `Origin` are checked against allow-lists (the bound loopback
//!   address by default, plus `--allow-host` / `--allow-origin`): a web page cannot reach the
//!   server through DNS rebinding (403). With `--http-token`, every `/mcp` request needs
//!   `Authorization: Bearer <token>` (401). A non-loopback address without a token is refused at
//!   start unless `--insecure-no-token` says the network is guarded otherwise.
//! - **Sessions** (the default): rmcp's local session manager, each session ended after
//!   `--session-idle-timeout` without a request (and no call in flight), at most
//!   `--max-sessions` at once ([`session_gate`]). `--stateless`: no session state at all, so
//!   replicas behind any load balancer can serve one client.
//! - `GET /healthz` answers `200 ok` without authentication, for orchestrators' probes.
//! - **A refusal an OAuth client can read**: a missing or wrong token is `401` with
//!   `WWW-Authenticate: Bearer` and a JSON body in OAuth's shape, and every other path, the
//!   OAuth discovery URLs (`/.well-known/…`) included, is a plain `404` without authentication
//!   (with `--auth-issuer`, the protected resource metadata is served there).

mod auth;
mod body;
mod direct;
mod listener;
mod oauth;
mod priming;
mod session_gate;
mod token;
mod wire;

pub use auth::{bearer_token, constant_time_eq};
pub use listener::{ListenerLimits, default_max_connections};
pub use oauth::{CallWrites, OAuthOptions, OAuthSetupError};

use std::{net::SocketAddr, sync::Arc, time::Duration};

use axum::{
    extract::{Request, State},
    http::{HeaderValue, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::get,
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService,
    session::local::{LocalSessionManager, SessionConfig},
};
use tokio_util::sync::CancellationToken;

use self::{
    body::BodyLimits,
    direct::FastCalls,
    session_gate::SessionGate,
    wire::{Onward, json_response},
};
use super::ServeError;
use crate::server::McpServer;

/// Everything the HTTP flags configure.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The bearer token every `/mcp` request must carry, if any.
    pub token: Option<String>,
    /// The largest request body.
    pub max_message_bytes: usize,
    /// More `Host` values to accept (`name` or `name:port`).
    pub allow_hosts: Vec<String>,
    /// More browser `Origin`s to accept (`scheme://host[:port]`).
    pub allow_origins: Vec<String>,
    /// Serve a non-loopback address without a token.
    pub insecure_no_token: bool,
    /// No session state between requests.
    pub stateless: bool,
    /// Sessionless `tools/call` answered without rmcp's per-request service ([`direct`]);
    /// always, but in the tests that compare the two paths.
    pub direct_calls: bool,
    /// `/metrics` needs the token too.
    pub protect_metrics: bool,
    /// OAuth 2.1 resource server (`--auth-issuer`), instead of the static token.
    pub oauth: Option<oauth::OAuthOptions>,
    /// Sessions at most (stateful mode).
    pub max_sessions: usize,
    /// A session without a message for this long is ended.
    pub session_idle_timeout: Duration,
    /// The listener's limits.
    pub limits: ListenerLimits,
}

/// The `Host` values accepted for a server bound to `addr`: the address itself and, for a
/// loopback address, `localhost`; each with and without the port.
pub fn allowed_hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let ip = match addr.ip() {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        std::net::IpAddr::V4(v4) => v4.to_string(),
    };
    let mut hosts = vec![format!("{ip}:{port}"), ip.clone()];
    if addr.ip().is_loopback() {
        hosts.push(format!("localhost:{port}"));
        hosts.push("localhost".into());
        if let std::net::IpAddr::V6(v6) = addr.ip() {
            hosts.push(v6.to_string());
        }
    }
    hosts
}

/// The browser `Origin`s accepted: pages served from the server's own address only.
pub fn allowed_origins(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut origins = match addr.ip() {
        std::net::IpAddr::V6(v6) => vec![format!("http://[{v6}]:{port}")],
        std::net::IpAddr::V4(v4) => vec![format!("http://{v4}:{port}")],
    };
    if addr.ip().is_loopback() {
        origins.push(format!("http://localhost:{port}"));
    }
    origins
}

/// The refusal of a public address without a token, or `None` when `addr` may be served.
pub fn public_without_token(addr: SocketAddr, options: &HttpOptions) -> Option<String> {
    if addr.ip().is_loopback() || options.token.is_some() || options.oauth.is_some() || options.insecure_no_token {
        return None;
    }
    Some(format!(
        "refusing to serve HTTP on {addr} without --http-token: anyone who can reach that address could call \
         the tools. Set a token (--http-token TOKEN or the MCP_HTTP_TOKEN environment variable), or bind \
         127.0.0.1, or, if something else guards the network (a private container network, an authenticating \
         proxy), say so with --insecure-no-token"
    ))
}

/// Every path but `/mcp` and `/healthz`: `404`, before any authentication.
async fn not_found(State(oauth): State<bool>, request: Request) -> Response {
    let how = if oauth {
        "A 401 names this server's protected resource metadata (resource_metadata in WWW-Authenticate), \
         which names its authorization server"
    } else {
        "This server has no OAuth authorization server: if it answered 401, configure the client to send the \
         header `Authorization: Bearer <token>` with the server's --http-token"
    };
    let body = serde_json::json!({
        "error": "not_found",
        "error_description": format!(
            "{} is not served here: the MCP endpoint is /mcp (also at /; /healthz is the health probe, /metrics the \
             metrics). {how}",
            request.uri().path()
        ),
    });
    json_response(StatusCode::NOT_FOUND, &body)
}

/// Binds `addr` and serves until SIGTERM / Ctrl-C, then shuts down gracefully.
pub async fn serve_http(server: McpServer, addr: SocketAddr, options: HttpOptions) -> Result<(), ServeError> {
    if let Some(refusal) = public_without_token(addr, &options) {
        return Err(ServeError::Refused(refusal));
    }
    if options.oauth.is_some() && options.token.is_some() {
        return Err(ServeError::Refused(
            "--auth-issuer and --http-token cannot be mixed: OAuth access tokens from the authorization server, or \
             one static token, not both"
                .to_owned(),
        ));
    }
    let resource_server = match &options.oauth {
        None => None,
        Some(oauth) => {
            let rs = oauth::ResourceServer::new(
                oauth.clone(),
                {
                    let server = server.clone();
                    std::sync::Arc::new(
                        move |name: &str, arguments: Option<&serde_json::Map<String, serde_json::Value>>| {
                            server.call_writes(name, arguments)
                        },
                    )
                },
                options.max_message_bytes,
            )?;
            let rs = Arc::new(rs);
            let fetching = Arc::clone(&rs);
            tokio::spawn(async move { fetching.prefetch().await });
            Some(rs)
        }
    };
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| {
        if source.kind() == std::io::ErrorKind::AddrInUse {
            ServeError::Refused(format!(
                "cannot listen on {addr}: the port is in use (another server, or this one already running); pick another port with --http, or --http {}:0 for a free one (the log then says which)",
                addr.ip()
            ))
        } else {
            ServeError::Io { context: format!("cannot listen on {addr}"), source }
        }
    })?;
    let bound = listener
        .local_addr()
        .map_err(|source| ServeError::Io { context: "cannot read the bound address".into(), source })?;
    if !bound.ip().is_loopback() && options.token.is_none() && resource_server.is_none() {
        tracing::warn!(%bound, "--insecure-no-token: serving HTTP on a non-loopback address without a token");
    }
    let sessions = CancellationToken::new();
    let routes = router(server, bound, &options, resource_server, sessions.clone());
    tracing::info!(
        url = %format!("http://{bound}/mcp"),
        auth = if options.oauth.is_some() {
            "oauth"
        } else if options.token.is_some() {
            "bearer token"
        } else {
            "none"
        },
        mode = if options.stateless { "stateless" } else { "sessions" },
        max_connections = options.limits.max_connections,
        "serving Streamable HTTP"
    );
    let shutdown = CancellationToken::new();
    let signal = shutdown.clone();
    tokio::spawn(async move {
        wait_for_signal().await;
        signal.cancel();
    });
    listener::serve(listener, routes, options.limits, shutdown, sessions).await;
    Ok(())
}

/// The router: `/healthz`, and `/mcp` behind the token check and the session cap, with
/// Host/Origin validation by rmcp. `sessions` ends every session when cancelled.
fn router(
    server: McpServer,
    bound: SocketAddr,
    options: &HttpOptions,
    resource_server: Option<Arc<oauth::ResourceServer>>,
    sessions: CancellationToken,
) -> axum::Router {
    crate::metrics::enable();
    let name: Arc<str> = Arc::from(server.identity().name.as_str());
    let mut hosts = allowed_hosts(bound);
    hosts.extend(options.allow_hosts.iter().cloned());
    // The public URL's host (a reverse proxy in front) is this server's name too.
    if let Some(authority) = options
        .oauth
        .as_ref()
        .and_then(|o| o.public_url.parse::<axum::http::Uri>().ok())
        .and_then(|u| u.authority().cloned())
    {
        hosts.push(authority.as_str().to_owned());
        hosts.push(authority.host().to_owned());
    }
    let mut origins = allowed_origins(bound);
    origins.extend(options.allow_origins.iter().map(|o| o.trim_end_matches('/').to_owned()));
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(origins.clone())
        .with_legacy_session_mode(!options.stateless)
        // A terminal answer as one JSON body, not an SSE stream: sessionless requests (--stateless,
        // and every 2026-07-28 request, which rmcp serves statelessly beside the sessions). An
        // answer preceded by progress notifications still streams. Sessions keep SSE.
        .with_json_response(true)
        .with_max_request_body_bytes(options.max_message_bytes)
        .with_cancellation_token(sessions.clone());
    // The idle timeout is the gate's (`SessionGate::sweep_idle`), which sees every request of a
    // session; rmcp's sees only those that pass through its session worker.
    let mut session_config = SessionConfig::default();
    session_config.keep_alive = None;
    let mut local = LocalSessionManager::default();
    local.session_config = session_config;
    let manager = Arc::new(local);
    let direct = options
        .direct_calls
        .then(|| Arc::new(FastCalls::new(server.clone(), options.stateless, &hosts, &origins, sessions.clone())));
    // rmcp's service behind an `Arc`: axum clones the endpoint for every request.
    let service = Arc::new(StreamableHttpService::new(move || Ok(server.clone()), Arc::clone(&manager), config));
    let endpoint = axum::routing::any(move |request: Request| {
        let service = Arc::clone(&service);
        async move { service.handle(request).await.into_response() }
    });
    let gate = Arc::new(SessionGate::new(manager, if options.stateless { usize::MAX } else { options.max_sessions }));
    if !options.stateless {
        gate.sweep_idle(options.session_idle_timeout, sessions.clone());
    }
    // The body check also answers a sessionless tools/call directly (without rmcp's per-request
    // service) when it can.
    let limits = BodyLimits { max_bytes: options.max_message_bytes, direct };
    // route_layer: the checks wrap the MCP endpoint only, so an unknown path is a 404 without a
    // token. The endpoint is /mcp, and / as well (clients configured with the bare server URL).
    let mut metrics = axum::Router::new().route("/metrics", get(metrics)).with_state(Arc::clone(&gate));
    let mut outer = axum::Router::new();
    let oauth = resource_server.is_some();
    let auth = match resource_server {
        Some(rs) => {
            if options.protect_metrics {
                metrics = metrics.route_layer(middleware::from_fn_with_state(Arc::clone(&rs), oauth::gate_layer));
            }
            for path in rs.metadata_paths() {
                outer = outer.route(path, get(oauth::metadata).with_state((Arc::clone(&rs), Arc::clone(&name))));
            }
            Auth::OAuth(rs)
        }
        None => {
            let token = Arc::new(options.token.clone());
            if options.protect_metrics {
                metrics = metrics.route_layer(middleware::from_fn_with_state(Arc::clone(&token), token::token_layer));
            }
            Auth::Token(token)
        }
    };
    // Sessions stream SSE, whose priming events only 2025-11-25 clients can take.
    let checks = Arc::new(McpGate { auth, sessions: gate, limits, priming: !options.stateless });
    let mcp = axum::Router::new()
        .route_service("/", endpoint.clone())
        .nest_service("/mcp", endpoint)
        .route_layer(middleware::from_fn_with_state(checks, mcp_gate));
    outer.route("/healthz", get(healthz)).merge(metrics).merge(mcp).fallback(not_found).with_state(oauth)
}

/// Who may use the MCP endpoint.
enum Auth {
    /// `--http-token` (none: anyone, as `anonymous`).
    Token(Arc<Option<String>>),
    /// OAuth access tokens (`--auth-issuer`), checked by the resource server.
    OAuth(Arc<oauth::ResourceServer>),
}

/// Every check in front of the MCP endpoint, run by [`mcp_gate`] as one layer.
struct McpGate {
    /// The caller: [`token::require_token`] or [`oauth::gate`].
    auth: Auth,
    /// The session bookkeeping and cap: [`session_gate::sessions`].
    sessions: Arc<SessionGate>,
    /// The body: [`body::check_body`], which also answers a sessionless call directly.
    limits: BodyLimits,
    /// SSE priming events by revision ([`priming::by_version`]): with sessions, whose
    /// answers stream SSE.
    priming: bool,
}

/// The checks of [`McpGate`] in their order: the caller, then the sessions, then the body, then
/// (with sessions) the priming events, then the endpoint. The first that refuses answers.
async fn mcp_gate(State(checks): State<Arc<McpGate>>, request: Request, next: Next) -> Response {
    gate(&checks, request, move |request| next.run(request)).await
}

/// [`mcp_gate`] in front of `next`.
async fn gate<F: Onward>(checks: &McpGate, request: Request, next: F) -> Response {
    let after_auth = move |request: Request| async move {
        session_gate::sessions(&checks.sessions, request, move |request: Request| async move {
            body::check_body(&checks.limits, request, move |request: Request| async move {
                if checks.priming { priming::by_version(request, next).await } else { next(request).await }
            })
            .await
        })
        .await
    };
    match &checks.auth {
        Auth::Token(token) => token::require_token(token, request, after_auth).await,
        Auth::OAuth(rs) => oauth::gate(rs, request, after_auth).await,
    }
}

async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /metrics`: the process's metrics (see [`crate::metrics`]).
async fn metrics(State(gate): State<Arc<SessionGate>>) -> Response {
    let text = crate::metrics::global().map_or_else(String::new, |metrics| {
        metrics.set_sessions(gate.open_sessions());
        metrics.render()
    });
    ([(header::CONTENT_TYPE, HeaderValue::from_static(crate::metrics::CONTENT_TYPE))], text).into_response()
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Options for tests: loopback defaults, sessions, direct calls, small limits.
#[cfg(test)]
pub(crate) fn test_options() -> HttpOptions {
    HttpOptions {
        token: None,
        max_message_bytes: 1024,
        allow_hosts: vec![],
        allow_origins: vec![],
        insecure_no_token: false,
        stateless: false,
        direct_calls: true,
        protect_metrics: false,
        oauth: None,
        max_sessions: 10,
        session_idle_timeout: Duration::from_secs(60),
        limits: ListenerLimits {
            max_connections: 16,
            header_read_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_origin_lists_name_the_bound_address() {
        let addr: SocketAddr = "127.0.0.1:8123".parse().unwrap();
        assert!(allowed_hosts(addr).contains(&"127.0.0.1:8123".to_string()));
        assert!(allowed_hosts(addr).contains(&"localhost:8123".to_string()));
        assert!(!allowed_hosts(addr).iter().any(|h| h.contains("evil")));
        assert_eq!(allowed_origins(addr), vec!["http://127.0.0.1:8123", "http://localhost:8123"]);
    }

    #[test]
    fn a_public_address_needs_a_token_or_an_explicit_insecure_flag() {
        let public: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let loopback: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let refusal = public_without_token(public, &test_options()).unwrap();
        assert!(refusal.contains("--http-token") && refusal.contains("--insecure-no-token"), "{refusal}");
        assert!(public_without_token(loopback, &test_options()).is_none());
        assert!(public_without_token(public, &HttpOptions { token: Some("t".into()), ..test_options() }).is_none());
        assert!(public_without_token(public, &HttpOptions { insecure_no_token: true, ..test_options() }).is_none());
    }

    /// The direct path ([`direct`]) answers exactly as rmcp's own stateless path does: the same
    /// requests, good and hostile, sent to a router with it and to one without get the same
    /// status, headers and body, byte for byte; the requests it should take, it takes (its debug
    /// event counted), so that the comparison cannot pass by both going through rmcp.
    #[tokio::test]
    async fn the_direct_path_answers_exactly_as_rmcp_does() {
        use std::sync::atomic::{AtomicUsize, Ordering};

        use serde_json::{Value, json};
        use tower::ServiceExt as _;
        use tracing_subscriber::layer::SubscriberExt as _;

        /// Counts the direct path's debug events.
        struct Taken(Arc<AtomicUsize>);
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Taken {
            fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
                if event.metadata().target().ends_with("::direct") {
                    self.0.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        let taken = Arc::new(AtomicUsize::new(0));
        // The test's own thread, which runs every task of this current-thread runtime.
        let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(Taken(Arc::clone(&taken))));

        let mut registry = crate::ToolRegistry::new();
        registry.register(crate::server::tests_support::Echo).unwrap();
        let identity = crate::ServerIdentity {
            name: "t".into(),
            version: "0".into(),
            title: None,
            website_url: None,
            instructions: "i".into(),
        };
        let server = McpServer::new(identity, registry);
        let bound: SocketAddr = "127.0.0.1:8123".parse().unwrap();
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "direct-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let call = |id: Value, name: &str, arguments: Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
                .to_string()
        };
        let call_2026 = |id: Value, arguments: Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"_meta": meta, "name": "echo", "arguments": arguments}})
            .to_string()
        };
        let base = |version: Option<&str>| {
            let mut headers = vec![
                ("host", "127.0.0.1:8123".to_owned()),
                ("content-type", "application/json".to_owned()),
                ("accept", "application/json, text/event-stream".to_owned()),
            ];
            headers.extend(version.map(|v| ("mcp-protocol-version", v.to_owned())));
            headers
        };
        let with = |mut headers: Vec<(&'static str, String)>, extra: &[(&'static str, &str)]| {
            for (name, value) in extra {
                headers.retain(|(n, _)| n != name);
                if !value.is_empty() {
                    headers.push((name, (*value).to_owned()));
                }
            }
            headers
        };
        let v25 = || base(Some("2025-11-25"));
        let v26 = || with(base(Some("2026-07-28")), &[("mcp-method", "tools/call"), ("mcp-name", "echo")]);
        let ok = call(json!(1), "echo", json!({"text": "hi"}));
        /// A label, the headers, the body, and whether a `--stateless` server takes it directly.
        type Case<'a> = (&'a str, Vec<(&'a str, String)>, String, bool);
        let cases: Vec<Case> = vec![
            ("2025-11-25 call", v25(), ok.clone(), true),
            ("2025-06-18 call", base(Some("2025-06-18")), ok.clone(), true),
            ("a string id", v25(), call(json!("ab\"c"), "echo", json!({"text": "hi"})), true),
            ("bad arguments: isError", v25(), call(json!(2), "echo", json!({"text": 5})), true),
            ("escaped method", v25(), ok.replace("tools/call", "tools\\/call"), true),
            (
                "charset parameter",
                with(v25(), &[("content-type", "application/json; charset=utf-8")]),
                ok.clone(),
                true,
            ),
            ("allowed Origin", with(v25(), &[("origin", "http://127.0.0.1:8123")]), ok.clone(), true),
            ("2026-07-28 call", v26(), call_2026(json!(5), json!({"text": "hi"})), true),
            ("unknown tool", v25(), call(json!(6), "nope", json!({})), false),
            (
                "a progress token",
                v25(),
                json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                "_meta": {"progressToken": "p"}, "name": "echo", "arguments": {"text": "hi"}}})
                .to_string(),
                false,
            ),
            ("tools/list", v25(), json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}).to_string(), false),
            ("a stray member", v25(), ok.replace("\"id\":1", "\"id\":1,\"extra\":true"), false),
            ("duplicate id", v25(), ok.replace("\"id\":1", "\"id\":1,\"id\":2"), false),
            ("id too large", v25(), ok.replace("\"id\":1", "\"id\":18446744073709551616"), false),
            ("not JSON", v25(), "{\"jsonrpc\":".to_owned(), false),
            ("Accept JSON only", with(v25(), &[("accept", "application/json")]), ok.clone(), false),
            ("text/plain", with(v25(), &[("content-type", "text/plain")]), ok.clone(), false),
            ("foreign Host", with(v25(), &[("host", "evil.example")]), ok.clone(), false),
            ("foreign Origin", with(v25(), &[("origin", "http://evil.example")]), ok.clone(), false),
            ("unknown version", base(Some("1999-01-01")), ok.clone(), false),
            ("a session id", with(v25(), &[("mcp-session-id", "abc")]), ok.clone(), false),
            (
                "2026 wrong Mcp-Name",
                with(v26(), &[("mcp-name", "other")]),
                call_2026(json!(10), json!({"text": "hi"})),
                false,
            ),
            (
                "2026 Mcp-Param header",
                with(v26(), &[("mcp-param-x", "1")]),
                call_2026(json!(13), json!({"text": "hi"})),
                false,
            ),
            ("2026 header without meta", v26(), ok.clone(), false),
        ];
        let answer = |router: axum::Router, headers: &[(&str, String)], body: &str| {
            let mut request = axum::http::Request::post("/mcp");
            for (name, value) in headers {
                request = request.header(*name, value);
            }
            let request = request.body(axum::body::Body::from(body.to_owned())).unwrap();
            async move {
                let response = router.oneshot(request).await.unwrap();
                let status = response.status();
                let mut headers: Vec<(String, String)> = response
                    .headers()
                    .iter()
                    // A body of known size gets its `content-length` from hyper on the wire either
                    // way; the bodies are compared byte for byte.
                    .filter(|(name, _)| *name != header::DATE && *name != header::CONTENT_LENGTH)
                    .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or_default().to_owned()))
                    .collect();
                headers.sort();
                let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
                (status, headers, String::from_utf8_lossy(&body).into_owned())
            }
        };
        for stateless in [true, false] {
            let options =
                |direct_calls| HttpOptions { stateless, direct_calls, max_message_bytes: 1 << 20, ..test_options() };
            let direct = router(server.clone(), bound, &options(true), None, CancellationToken::new());
            let plain = router(server.clone(), bound, &options(false), None, CancellationToken::new());
            let mut expected = 0;
            for (label, headers, body, takes) in &cases {
                let before = taken.load(Ordering::SeqCst);
                let from_rmcp = answer(plain.clone(), headers, body).await;
                assert_eq!(taken.load(Ordering::SeqCst), before, "{label}: rmcp's router answered directly");
                let from_direct = answer(direct.clone(), headers, body).await;
                assert_eq!(from_direct, from_rmcp, "{label} (stateless: {stateless}): direct vs rmcp");
                // With sessions, only a 2026-07-28 call is sessionless.
                let is_2026 = headers.iter().any(|(n, v)| *n == "mcp-protocol-version" && v == "2026-07-28");
                if *takes && (stateless || is_2026) {
                    expected += 1;
                    assert_eq!(taken.load(Ordering::SeqCst), before + 1, "{label}: not answered directly");
                    assert_eq!(from_direct.0, StatusCode::OK, "{label}: {}", from_direct.2);
                }
            }
            assert_eq!(expected, if stateless { 8 } else { 1 });
        }
    }
}
