//! The direct answer to a session's `tools/call` over HTTP, before rmcp's endpoint.
//!
//! [`super::sessions`] runs a session's call in the HTTP connection's task instead of rmcp's
//! session worker and serve loop. Reached through rmcp's endpoint, the request would still be
//! parsed by rmcp's generic message parsing (the whole body buffered three times over), and its
//! answer framed by rmcp's SSE body with a keep-alive timer set for every stream. [`try_answer`]
//! runs in the body check, as the sessionless direct path ([`super::fast_call`]) does, and
//! takes the request only when it can tell that rmcp would route it to the session as a plain
//! `tools/call`:
//!
//! - the headers pass [`FastCalls::headers_allow`] (`Host`, `Origin`, `Accept`, `Content-Type`
//!   as rmcp accepts them, a known `MCP-Protocol-Version`), of a revision with sessions
//!   (before 2026-07-28) and without the SEP-2243 headers (`Mcp-Method`, `Mcp-Name`,
//!   `Mcp-Param-*`), which such a revision does not send;
//! - there is one `Mcp-Session-Id`, of a session this server has open (an unknown one is left
//!   to rmcp, which answers `404`);
//! - the body is a JSON-RPC `tools/call` request without a per-request version in `_meta`;
//! - the session's manager takes the call ([`super::sessions::Sessions::takes`]: the
//!   session's peer is known, no progress is asked for, the tool needs nothing from the client
//!   first).
//!
//! The answer is rmcp's response, byte for byte but for the event ids: `200`, the same
//! headers, the same SSE events (the priming event for the revisions that have one, then the
//! answer). A call answered as soon as it starts is sent in one write; one that takes time
//! gets its priming event at once, then the keep-alive comments rmcp sends every 15 s, then the
//! answer.

use std::{
    pin::Pin,
    task::{Context, Poll, Waker},
    time::Duration,
};

use axum::{
    body::{Body, Bytes},
    http::{HeaderValue, StatusCode, header, request::Parts},
    response::Response,
};
use futures::{Stream, StreamExt as _};
use rmcp::{
    model::{ClientRequest, GetMeta as _, ProtocolVersion},
    transport::streamable_http_server::session::ServerSseMessage,
};
use sse_stream::{KeepAlive, Sse, SseBody};

use super::{
    fast_call::{FastCalls, MCP_SESSION_ID, parse, single},
    sessions::DirectStream,
};

/// rmcp's interval of keep-alive comments on an SSE stream (`sse_keep_alive`).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Answers `request` (its head, and the body the body check read) directly when it qualifies
/// (see the module docs); gives the head back otherwise, for rmcp.
pub async fn try_answer(calls: &FastCalls, parts: Parts, body: &Bytes) -> Result<Response, Parts> {
    let Some(sessions) = calls.sessions.as_ref() else {
        return Err(parts);
    };
    let Some(index) = calls.headers_allow(&parts.headers) else {
        return Err(parts);
    };
    let version = &ProtocolVersion::KNOWN_VERSIONS[index];
    let standard_headers = parts.headers.keys().any(|key| {
        let key = key.as_str();
        key == "mcp-method" || key == "mcp-name" || key.starts_with("mcp-param-")
    });
    if *version >= ProtocolVersion::STANDARD_HEADERS || standard_headers {
        return Err(parts);
    }
    let Some(session) = single(&parts.headers, &MCP_SESSION_ID).map(str::to_owned) else {
        return Err(parts);
    };
    let Some((id, call)) = parse(body) else {
        return Err(parts);
    };
    let request = ClientRequest::CallToolRequest(call);
    if request.get_meta().protocol_version().is_some() {
        return Err(parts);
    }
    let Some(taken) = sessions.takes(&session, &request) else {
        return Err(parts);
    };
    let priming = super::priming::has_priming(version.as_str());
    Ok(respond(sessions.call_directly(taken, id, request, parts, priming)))
}

/// rmcp's SSE response of `stream`: in one piece when the answer is ready now.
fn respond(mut stream: DirectStream) -> Response {
    let mut ready = Vec::new();
    let mut cx = Context::from_waker(Waker::noop());
    let finished = loop {
        match Pin::new(&mut stream).poll_next(&mut cx) {
            Poll::Ready(Some(event)) => ready.push(event),
            Poll::Ready(None) => break true,
            Poll::Pending => break false,
        }
    };
    let body = if finished {
        let mut bytes = Vec::new();
        for event in ready {
            bytes.extend_from_slice(&Bytes::from(sse(event)));
        }
        // One frame, its length unknown to hyper: chunked, as rmcp's stream is.
        Body::from_stream(futures::stream::once(std::future::ready(Ok::<_, std::convert::Infallible>(Bytes::from(
            bytes,
        )))))
    } else {
        let events =
            futures::stream::iter(ready).chain(stream).map(|event| Ok::<_, std::convert::Infallible>(sse(event)));
        Body::new(SseBody::new(events).with_keep_alive::<Sleep>(KeepAlive::new().interval(KEEP_ALIVE)))
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// One event as rmcp writes it.
fn sse(event: ServerSseMessage) -> Sse {
    let data = match &event.message {
        Some(message) => serde_json::to_string(message.as_ref()).unwrap_or_default(),
        // A priming event: empty data (SEP-1699).
        None => String::new(),
    };
    let mut sse = Sse::default().data(data);
    sse.id = event.event_id;
    sse.retry = event.retry.map(|retry| u64::try_from(retry.as_millis()).unwrap_or(u64::MAX));
    sse
}

/// The keep-alive clock.
struct Sleep(Pin<Box<tokio::time::Sleep>>);

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl sse_stream::Timer for Sleep {
    fn from_duration(duration: Duration) -> Self {
        Sleep(Box::pin(tokio::time::sleep(duration)))
    }

    fn reset(mut self: Pin<&mut Self>, when: std::time::Instant) {
        self.0.as_mut().reset(tokio::time::Instant::from_std(when));
    }
}
