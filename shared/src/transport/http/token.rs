//! The static bearer token of `--http-token`: every request to the MCP endpoint (and to
//! `/metrics` with `--protect-metrics`) carries `Authorization: Bearer <token>`, else `401` with
//! `WWW-Authenticate: Bearer` and a JSON body in OAuth's shape (`error`, `error_description`,
//! RFC 6750). Without a token every caller is `anonymous`.

use std::sync::Arc;

use axum::{
    extract::{Request, State},
    http::{HeaderValue, StatusCode, header},
    middleware::Next,
    response::Response,
};

use super::{
    auth::{bearer_token, constant_time_eq},
    wire::{Onward, json_response},
};
use crate::server::Caller;

/// [`require_token`] as a layer of its own (`/metrics` with `--protect-metrics`).
pub async fn token_layer(State(token): State<Arc<Option<String>>>, request: Request, next: Next) -> Response {
    require_token(&token, request, |request| next.run(request)).await
}

/// The `--http-token` check (see the module docs); every caller is `anonymous` without a token.
pub async fn require_token<F: Onward>(token: &Option<String>, mut request: Request, next: F) -> Response {
    let Some(expected) = token.as_deref() else {
        request.extensions_mut().insert(Caller("anonymous".to_owned()));
        return next(request).await;
    };
    let presented = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(bearer_token);
    if presented.is_none_or(|p| !constant_time_eq(p.as_bytes(), expected.as_bytes()))
        && let Some(metrics) = crate::metrics::global()
    {
        metrics.unauthorized();
    }
    match presented {
        Some(p) if constant_time_eq(p.as_bytes(), expected.as_bytes()) => {
            request.extensions_mut().insert(Caller("bearer-token".to_owned()));
            next(request).await
        }
        None => unauthorized(
            "Bearer",
            "invalid_request",
            "this server needs a bearer token: send `Authorization: Bearer <token>` (the token given to the server \
             with --http-token or MCP_HTTP_TOKEN)",
        ),
        Some(_) => unauthorized(
            "Bearer error=\"invalid_token\"",
            "invalid_token",
            "the bearer token is not the one this server was given (--http-token or MCP_HTTP_TOKEN)",
        ),
    }
}

/// `401` with `WWW-Authenticate: challenge` and OAuth's JSON error body (RFC 6750).
fn unauthorized(challenge: &'static str, error: &str, description: &str) -> Response {
    let body = serde_json::json!({"error": error, "error_description": description});
    let mut response = json_response(StatusCode::UNAUTHORIZED, &body);
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}
