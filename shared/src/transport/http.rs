//! Streamable HTTP at `/mcp`: stateful sessions, `Host` and `Origin` checked against the bound
//! loopback address (DNS rebinding → 403), and an optional bearer token (→ 401 without it).

use std::{net::SocketAddr, sync::Arc};

use axum::{
    extract::{Request, State},
    http::{HeaderValue, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use super::ServeError;
use crate::server::McpServer;

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

/// Constant-time comparison of a presented token `a` with the secret `b`.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    // The time depends on `a`'s length only (the presented token, which the caller knows): every
    // byte of `a` is compared with `b`, cycled, and a length mismatch is folded into the result
    // instead of returning early, so neither `b`'s content nor its length leaks.
    if b.is_empty() {
        return a.is_empty();
    }
    let length_differs = u8::from(a.len() != b.len());
    let diff = a.iter().zip(b.iter().cycle()).fold(length_differs, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

async fn require_token(State(token): State<Arc<Option<String>>>, request: Request, next: Next) -> Response {
    let Some(expected) = token.as_deref() else {
        return next.run(request).await;
    };
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    match presented {
        Some(p) if constant_time_eq(p.as_bytes(), expected.as_bytes()) => next.run(request).await,
        _ => {
            let mut response =
                (StatusCode::UNAUTHORIZED, "Unauthorized: send `Authorization: Bearer <token>`.\n").into_response();
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
    }
}

/// Binds `addr` and serves until Ctrl-C / SIGTERM.
pub async fn serve_http(
    server: McpServer,
    addr: SocketAddr,
    token: Option<String>,
    max_message_bytes: usize,
) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Io { context: format!("cannot listen on {addr}"), source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| ServeError::Io { context: "cannot read the bound address".into(), source })?;
    if !bound.ip().is_loopback() {
        tracing::warn!(%bound, "serving HTTP on a non-loopback address: anyone who can reach it can call the tools; set --http-token");
    }
    let shutdown = CancellationToken::new();
    let router = router(server, bound, token.clone(), max_message_bytes, shutdown.clone());
    tracing::info!(
        url = %format!("http://{bound}/mcp"),
        auth = if token.is_some() { "bearer token" } else { "none" },
        "serving Streamable HTTP"
    );
    let signal = shutdown.clone();
    tokio::spawn(async move {
        wait_for_signal().await;
        signal.cancel();
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
        .map_err(|source| ServeError::Io { context: "HTTP server failed".into(), source })
}

/// The router: `/mcp` behind the token check, with Host/Origin validation by rmcp.
pub fn router(
    server: McpServer,
    bound: SocketAddr,
    token: Option<String>,
    max_message_bytes: usize,
    shutdown: CancellationToken,
) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(bound))
        .with_allowed_origins(allowed_origins(bound))
        .with_legacy_session_mode(true)
        .with_max_request_body_bytes(max_message_bytes)
        .with_cancellation_token(shutdown);
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::new(LocalSessionManager::default()), config);
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn(session_deleted_is_ok))
        .layer(middleware::from_fn_with_state(Arc::new(token), require_token))
}

/// rmcp answers a successful session `DELETE` with 202 Accepted; the Python SDK (and so
/// mcp-use) logs "Session termination failed: 202" unless it gets 200 or 204. The session is
/// closed by then, so 204 No Content says exactly what happened.
async fn session_deleted_is_ok(request: Request, next: Next) -> Response {
    let is_delete = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if is_delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
        *response.body_mut() = axum::body::Body::empty();
    }
    response
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
    fn token_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"abcabc", b"abc"), "a repeated secret is not the secret");
        assert!(!constant_time_eq(b"", b"abc"));
        assert!(!constant_time_eq(b"abc", b""));
        assert!(constant_time_eq(b"", b""));
    }
}
