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
//! The answer is rmcp's response but for the event ids and, for a call answered at once, the
//! framing: `200`, the same headers, the same SSE events byte for byte (the priming event for
//! the revisions that have one, then the answer). A call answered as soon as it starts is sent
//! in one write, with a `Content-Length` (rmcp's stream is always chunked; to an SSE client
//! the events are the same); one that takes time gets its priming event at once, then the
//! keep-alive comments rmcp sends every 15 s, then the answer, chunked.

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
        // The whole stream, written once, with its length.
        let mut bytes = Vec::with_capacity(256);
        for event in &ready {
            write_sse(&mut bytes, event);
        }
        Body::from(bytes)
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

/// One event as rmcp writes it ([`sse`], then `sse_stream`'s encoding), written to `out`
/// without the copies in between.
fn write_sse(out: &mut Vec<u8>, event: &ServerSseMessage) {
    out.extend_from_slice(b"data: ");
    if let Some(message) = &event.message {
        let start = out.len();
        if serde_json::to_writer(&mut *out, message.as_ref()).is_err() {
            out.truncate(start);
        }
    }
    out.push(b'\n');
    if let Some(id) = &event.event_id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(retry) = event.retry {
        out.extend_from_slice(b"retry: ");
        let millis = u64::try_from(retry.as_millis()).unwrap_or(u64::MAX);
        out.extend_from_slice(itoa::Buffer::new().format(millis).as_bytes());
        out.push(b'\n');
    }
    out.push(b'\n');
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

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock, RequestId, ServerJsonRpcMessage, ServerResult};

    use super::*;

    #[test]
    fn an_event_is_written_as_rmcps_sse_body_writes_it() {
        let result = CallToolResult::success(vec![ContentBlock::text("line\nwith \"quotes\" and é")]);
        let message = ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), RequestId::Number(7));
        let mut answer = ServerSseMessage::from_message(message);
        answer.event_id = Some("1/d12".into());
        let events = [ServerSseMessage::priming("0/d12", Duration::from_millis(3000)), answer];
        for event in events {
            let mut written = Vec::new();
            write_sse(&mut written, &event);
            assert_eq!(
                String::from_utf8(written).unwrap(),
                String::from_utf8(Bytes::from(sse(event)).to_vec()).unwrap()
            );
        }
    }
}
