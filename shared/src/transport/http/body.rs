//! The request body of the MCP endpoint, read whole before rmcp reads it: a `POST` body that
//! does not arrive in time is `408` (not `500`), one over `--max-message-bytes` stays `413`, and
//! a body that is not JSON, not UTF-8 or not a JSON-RPC message is `400` with a JSON-RPC error
//! (`-32700` / `-32600`, under the message's id when it shows one), where rmcp answers `415`
//! although the media type was right. A sessionless `tools/call` is answered here, on the body
//! just read, by the direct path ([`super::direct`]) when it can be.

use std::sync::Arc;

use axum::{
    body::{Body, Bytes},
    extract::Request,
    http::{HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};

use super::{
    direct,
    wire::{BodyTimedOut, Onward},
};
use crate::transport::jsonrpc::refusal_of;

/// What [`check_body`] needs.
#[derive(Clone)]
pub struct BodyLimits {
    /// `--max-message-bytes`.
    pub max_bytes: usize,
    /// The direct answer to a sessionless `tools/call` ([`super::direct`]): it runs here, on the
    /// body just read, rather than as one more layer. `None` in tests that compare it with
    /// rmcp's own path.
    pub direct: Option<Arc<direct::FastCalls>>,
}

/// Reads a `POST` body whole (bounded by `--max-message-bytes`, and by the listener's deadline)
/// before rmcp does, so that a late body is `408` and a body rmcp cannot parse is `400` with a
/// JSON-RPC error.
pub async fn check_body<F: Onward>(limits: &BodyLimits, request: Request, next: F) -> Response {
    if request.method() != Method::POST {
        return explained(next(request).await).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match collect(body, limits.max_bytes).await {
        Ok(bytes) => bytes,
        Err(Refused::TooLarge) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: the request body exceeds this server's limit of {} bytes (--max-message-bytes).\n",
                    limits.max_bytes
                ),
            )
                .into_response();
        }
        Err(Refused::TimedOut) => {
            let mut response =
                (StatusCode::REQUEST_TIMEOUT, "Request Timeout: the request body did not arrive in time.\n")
                    .into_response();
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
        Err(Refused::Broken(why)) => {
            return (StatusCode::BAD_REQUEST, format!("Bad Request: the request body could not be read: {why}.\n"))
                .into_response();
        }
    };
    let json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    let parts = match &limits.direct {
        Some(direct) => match direct::try_answer(direct, parts, &bytes).await {
            Ok(response) => return response,
            Err(parts) => parts,
        },
        None => parts,
    };
    let response = next(Request::from_parts(parts, Body::from(bytes.clone()))).await;
    // rmcp answers 415 for a JSON body it cannot deserialize, even when the media type is right.
    if json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        let error = serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(&bytes).err();
        let mut refusal = (StatusCode::BAD_REQUEST, refusal_of(&bytes, error.as_ref())).into_response();
        refusal.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        return refusal;
    }
    explained(response).await
}

/// rmcp's plain-text refusals of a request's form, each with what to send instead (what a
/// person writing their first `curl` needs): the `Accept` header, the `Content-Type`, and the
/// `initialize` a session starts with. Any other response passes as it is.
async fn explained(response: Response) -> Response {
    let status = response.status();
    let text = match status {
        StatusCode::NOT_ACCEPTABLE => {
            "Not Acceptable: send `Accept: application/json, text/event-stream` (a Streamable HTTP client takes both: the answer comes as JSON or as an event stream).\n"
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            "Unsupported Media Type: send the JSON-RPC message as the body with `Content-Type: application/json` (curl: -H 'Content-Type: application/json'; its default is a form).\n"
        }
        StatusCode::BAD_REQUEST => {
            let (parts, body) = response.into_parts();
            let bytes = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
            if !String::from_utf8_lossy(&bytes).contains("Session ID is required") {
                return Response::from_parts(parts, Body::from(bytes));
            }
            "Bad Request: this request needs a session. Send `initialize` first (without an `Mcp-Session-Id` header), then send the `Mcp-Session-Id` header of its answer with every request, `notifications/initialized` first; or start the server with --stateless for no sessions at all.\n"
        }
        _ => return response,
    };
    (status, text).into_response()
}

enum Refused {
    TooLarge,
    TimedOut,
    Broken(String),
}

async fn collect(body: Body, max: usize) -> Result<Bytes, Refused> {
    use http_body::Body as _;
    let mut body = std::pin::pin!(body);
    let mut collected = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(|e| {
            let inner = e.into_inner();
            if inner.is::<BodyTimedOut>() { Refused::TimedOut } else { Refused::Broken(inner.to_string()) }
        })?;
        if let Ok(data) = frame.into_data() {
            if data.len() > max.saturating_sub(collected.len()) {
                return Err(Refused::TooLarge);
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(collected))
}
