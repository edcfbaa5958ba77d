//! The pieces every check of the HTTP endpoint shares, below all of them: the continuation a
//! check hands a request on to ([`Onward`]), the response body that holds a guard until it is
//! written ([`HoldingBody`]), the request body's timeout error ([`BodyTimedOut`]), the owner of
//! a request's sessions ([`SessionOwner`]), and JSON answers.

use std::{
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
};

use axum::{
    body::Body,
    extract::Request,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};

/// Where a check hands a request on: the next check, or the endpoint. Each check is a plain
/// function that takes its continuation, so that the gate (`McpGate`) runs them all as one
/// layer: axum clones a route's whole stack of layers for every request, and each `from_fn`
/// layer clones everything below it once more.
pub trait Onward: FnOnce(Request) -> Self::Answer + Send {
    /// The answer's future.
    type Answer: Future<Output = Response> + Send;
}

impl<F, Fut> Onward for F
where
    F: FnOnce(Request) -> Fut + Send,
    Fut: Future<Output = Response> + Send,
{
    type Answer = Fut;
}

/// A response body that holds `G` (a guard: the listener's count of `POST`s in flight, a
/// session's in `session_gate`) until the body is done, so what it guards lasts while the
/// answer is written.
pub struct HoldingBody<G> {
    inner: Body,
    _held: G,
}

impl<G> HoldingBody<G> {
    /// `inner`, holding `held` until it is done.
    pub fn new(inner: Body, held: G) -> HoldingBody<G> {
        HoldingBody { inner, _held: held }
    }
}

impl<G: Unpin> http_body::Body for HoldingBody<G> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The error of a request body that did not arrive within its deadline (the HTTP layer answers
/// it `408 Request Timeout`).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the request body did not arrive in time")]
pub struct BodyTimedOut;

/// Who a request speaks for, when that decides whose sessions it may use (OAuth: the token's
/// subject and client), an extension of the request set by the caller's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOwner(pub Arc<str>);

/// `status` with a JSON body.
pub fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body.to_string()).into_response()
}
