//! SSE priming events only for the protocol revisions that have them.
//!
//! rmcp starts every SSE stream of a session with a priming event (`data:` with nothing after
//! it, an `id` and a `retry`; SEP-1699, protocol 2025-11-25), so that a client can resume the
//! stream. Clients of earlier revisions parse every `data:` as a JSON-RPC message: Gemini CLI
//! (2025-06-18) fails with "Unexpected end of JSON input" and drops the server. [`by_version`]
//! takes the revision of the request (its `MCP-Protocol-Version` header; for `initialize`, the
//! revision the client asked for; with neither, 2025-03-26, as the specification says a server
//! must assume) and, for a revision before 2025-11-25, removes priming events from the SSE
//! response. Everything else in the stream passes unchanged and as soon as it is complete.

use std::{
    collections::VecDeque,
    pin::Pin,
    task::{Context, Poll},
};

use axum::{
    body::{Body, Bytes},
    extract::Request,
    http::{HeaderMap, Method, header},
    response::Response,
};
use http_body::Frame;

/// The revisions before SEP-1699's priming events (every other one, and an unknown one, which
/// the server answers with its latest, has them).
const WITHOUT_PRIMING: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18"];

/// The middleware: see the module docs.
pub async fn by_version<F: super::wire::Onward>(request: Request, next: F) -> Response {
    let (parts, body) = request.into_parts();
    let (version, body) = match header_version(&parts.headers) {
        Some(version) => (version, body),
        None if parts.method == Method::POST => {
            // The body is already buffered by the body check (`body::check_body`).
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
            (initialize_version(&bytes).unwrap_or_else(|| "2025-03-26".to_owned()), Body::from(bytes))
        }
        None => ("2025-03-26".to_owned(), body),
    };
    let response = next(Request::from_parts(parts, body)).await;
    if !WITHOUT_PRIMING.contains(&version.as_str()) || !is_event_stream(response.headers()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, Body::new(WithoutPriming::new(body)))
}

fn header_version(headers: &HeaderMap) -> Option<String> {
    headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok()).map(|v| v.trim().to_owned())
}

/// The `protocolVersion` an `initialize` request asks for.
fn initialize_version(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Init {
        method: String,
        params: Params,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    serde_json::from_slice::<Init>(body)
        .ok()
        .filter(|init| init.method == "initialize")
        .map(|i| i.params.protocol_version)
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

/// Whether one SSE event (without its blank-line terminator) is a priming event: it carries
/// data, all of it empty (an `id` and a `retry` may come with it). Comments (keep-alives) and
/// events with content are not.
fn is_priming(event: &[u8]) -> bool {
    let mut data_lines = 0;
    for line in event.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(value) = line.strip_prefix(b"data:") {
            if !value.strip_prefix(b" ").unwrap_or(value).is_empty() {
                return false;
            }
            data_lines += 1;
        }
    }
    data_lines > 0
}

/// A response body with the priming events taken out.
struct WithoutPriming {
    inner: Body,
    /// Bytes of an event not complete yet.
    partial: Vec<u8>,
    /// Complete events (with their terminator) to pass on.
    ready: VecDeque<Bytes>,
    done: bool,
}

impl WithoutPriming {
    fn new(inner: Body) -> Self {
        WithoutPriming { inner, partial: Vec::new(), ready: VecDeque::new(), done: false }
    }

    /// Moves the complete events of `partial` to `ready`, dropping priming events.
    fn split(&mut self) {
        while let Some(end) = self.partial.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = self.partial.drain(..end + 2).collect();
            if !is_priming(&event[..end]) {
                self.ready.push_back(Bytes::from(event));
            }
        }
    }
}

impl http_body::Body for WithoutPriming {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Poll::Ready(Some(Ok(Frame::data(event))));
            }
            if self.done {
                let rest = std::mem::take(&mut self.partial);
                return Poll::Ready((!rest.is_empty()).then(|| Ok(Frame::data(Bytes::from(rest)))));
            }
            match Pin::new(&mut self.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => self.done = true,
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Some(Err(error))),
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => {
                        self.partial.extend_from_slice(&data);
                        self.split();
                    }
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_priming_event_is_recognised_and_nothing_else() {
        assert!(is_priming(b"data: \nid: 0\nretry: 3000"));
        assert!(is_priming(b"data:\nid: 0/1"));
        assert!(!is_priming(b"data: {\"jsonrpc\":\"2.0\"}\nid: 1"));
        assert!(!is_priming(b": keep-alive"));
        assert!(!is_priming(b"id: 0\nretry: 3000"));
    }

    #[test]
    fn initialize_asks_for_a_version() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#;
        assert_eq!(initialize_version(body).as_deref(), Some("2025-06-18"));
        assert_eq!(initialize_version(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#), None);
    }

    #[tokio::test]
    async fn priming_events_are_dropped_across_frame_boundaries_and_the_rest_kept() {
        let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(Bytes::from_static(b"data: \nid: 0\nret")),
            Ok(Bytes::from_static(b"ry: 3000\n\ndata: {\"a\":1}\nid: 1\n\n:\n\nda")),
            Ok(Bytes::from_static(b"ta: {\"b\":2}\n\n")),
        ];
        let inner = Body::from_stream(futures::stream::iter(chunks));
        let out = axum::body::to_bytes(Body::new(WithoutPriming::new(inner)), usize::MAX).await.unwrap();
        assert_eq!(&out[..], b"data: {\"a\":1}\nid: 1\n\n:\n\ndata: {\"b\":2}\n\n");
    }
}
