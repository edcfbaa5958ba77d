//! The client's MCP roots, for the servers that narrow their workspace to them (the text editor,
//! draft-post), in one place for every protocol revision:
//!
//! - **Sessions (2024-11-05 … 2025-11-25):** asked for with a `roots/list` request on the first
//!   call of a session whose client declares the `roots` capability, kept until the client
//!   sends `notifications/roots/list_changed`, asked for again on its next call.
//! - **2026-07-28 (stateless):** a server cannot send requests, so a `tools/call` from a client
//!   that declares `roots` in its request `_meta` is answered with an `InputRequiredResult`
//!   asking for `roots/list` (multi round-trip requests), and the retry carries the roots in
//!   `inputResponses` ([`ROOTS_INPUT_KEY`]). Nothing is kept between calls: each call's roots are
//!   its own.
//!
//! A tool asks [`ToolContext::client_roots`](crate::ToolContext::client_roots); `None` means the
//! client declares no roots (or did not answer in time), and the server's configured places
//! apply.

// MCP roots are deprecated by 2026-07-28 (SEP-2577) but still part of it, and current for the
// session revisions.
#![allow(deprecated)]

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    time::Duration,
};

use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{InitializeRequestParams, InputRequest, InputRequiredResult, ListRootsResult, RequestNoParam, Root},
    service::Peer,
};

/// How long a server waits for the client's `roots/list` answer in a session.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(5);

/// Sessions whose roots are remembered (Streamable HTTP serves several clients).
const MAX_SESSIONS: usize = 64;

/// The key of the `roots/list` request in an `InputRequiredResult`, and of its answer in the
/// retry's `inputResponses`.
pub const ROOTS_INPUT_KEY: &str = "roots";

/// Where a call's client roots come from.
#[derive(Clone, Default)]
pub enum CallRoots {
    /// The client declares no roots (or the call did not come over MCP).
    #[default]
    None,
    /// A session client: asked through `peer`, cached in the server's [`ClientRoots`].
    Session(Arc<ClientRoots>, Peer<RoleServer>),
    /// A 2026-07-28 call: the roots its retry carried in `inputResponses`.
    Given(Arc<[Root]>),
}

impl CallRoots {
    /// The client's roots, or `None` when it declares none or did not answer.
    pub async fn get(&self) -> Option<Arc<[Root]>> {
        match self {
            CallRoots::None => None,
            CallRoots::Session(cache, peer) => cache.get(peer).await,
            CallRoots::Given(roots) => Some(Arc::clone(roots)),
        }
    }
}

struct Session {
    client: Arc<InitializeRequestParams>,
    /// `None` until fetched, and again after `roots/list_changed`; `Some(None)`: the client
    /// did not answer.
    roots: Option<Option<Arc<[Root]>>>,
}

/// The roots of every session client (the latest [`MAX_SESSIONS`]).
#[derive(Default)]
pub struct ClientRoots {
    sessions: Mutex<Vec<Session>>,
}

impl ClientRoots {
    /// The roots of `peer`'s client when it declares the capability; `None` when it does not,
    /// or does not answer in time (the log says so).
    pub async fn get(&self, peer: &Peer<RoleServer>) -> Option<Arc<[Root]>> {
        let client = peer.peer_info()?;
        client.capabilities.roots.as_ref()?;
        if let Some(Some(cached)) =
            self.lock().iter().find(|s| Arc::ptr_eq(&s.client, &client)).map(|s| s.roots.clone())
        {
            return cached;
        }
        let roots: Option<Arc<[Root]>> = match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
            Ok(Ok(result)) => Some(result.roots.into()),
            Ok(Err(error)) => {
                tracing::warn!(%error, "the client declared roots but roots/list failed; using the configured places");
                None
            }
            Err(_) => {
                tracing::warn!("the client declared roots but did not answer roots/list; using the configured places");
                None
            }
        };
        let mut sessions = self.lock();
        match sessions.iter_mut().find(|s| Arc::ptr_eq(&s.client, &client)) {
            Some(session) => session.roots = Some(roots.clone()),
            None => {
                if sessions.len() >= MAX_SESSIONS {
                    sessions.remove(0);
                }
                sessions.push(Session { client, roots: Some(roots.clone()) });
            }
        }
        roots
    }

    /// Whether [`Self::get`] answers `peer` without asking its client: it declares no roots, or
    /// they are known (asked for since the last `roots/list_changed`).
    pub fn known(&self, peer: &Peer<RoleServer>) -> bool {
        let Some(client) = peer.peer_info() else {
            return true;
        };
        client.capabilities.roots.is_none()
            || self.lock().iter().any(|s| Arc::ptr_eq(&s.client, &client) && s.roots.is_some())
    }

    /// `peer`'s client said its roots changed: ask again on its next call.
    pub fn invalidate(&self, peer: &Peer<RoleServer>) {
        let Some(client) = peer.peer_info() else {
            return;
        };
        for session in self.lock().iter_mut().filter(|s| Arc::ptr_eq(&s.client, &client)) {
            session.roots = None;
        }
        tracing::debug!("the client's roots changed: asked for again on its next call");
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Session>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The `InputRequiredResult` that asks a 2026-07-28 client for its roots.
pub fn roots_input_required() -> InputRequiredResult {
    let request = RequestNoParam { method: Default::default(), extensions: Default::default() };
    InputRequiredResult::from_input_requests(BTreeMap::from([(
        ROOTS_INPUT_KEY.to_owned(),
        InputRequest::ListRoots(request),
    )]))
}

/// The roots a retry carries in `inputResponses`, or a -32602 that says what is wrong.
pub fn roots_from_input(value: &serde_json::Value) -> Result<Arc<[Root]>, McpError> {
    serde_json::from_value::<ListRootsResult>(value.clone()).map(|result| result.roots.into()).map_err(|error| {
        McpError::invalid_params(
            format!(
                "Invalid params: `inputResponses.{ROOTS_INPUT_KEY}` must be the client's `roots/list` result, \
                 {{\"roots\": [{{\"uri\": \"file:///…\"}}]}} ({error}). Retry the call with it, or without the \
                 `roots` capability."
            ),
            None,
        )
    })
}

/// The local paths of `roots` (`file://` URIs; others are skipped).
pub fn paths(roots: &[Root]) -> Vec<PathBuf> {
    roots.iter().filter_map(|root| crate::uri::file_uri_to_path(&root.uri)).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_input_request_is_a_roots_list_under_its_key() {
        let value = serde_json::to_value(roots_input_required()).unwrap();
        assert_eq!(value["resultType"], "input_required");
        assert_eq!(value["inputRequests"][ROOTS_INPUT_KEY], json!({"method": "roots/list"}));
    }

    #[test]
    fn the_answer_is_read_or_refused_with_its_shape() {
        let uri = if cfg!(windows) { "file:///C:/w/p" } else { "file:///w/p" };
        let roots = roots_from_input(&json!({"roots": [{"uri": uri, "name": "p"}]})).unwrap();
        assert_eq!(roots.len(), 1);
        assert_eq!(paths(&roots).len(), 1);
        let error = roots_from_input(&json!({"roots": "file:///w"})).unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("inputResponses.roots"), "{}", error.message);
        assert!(roots_from_input(&json!([])).is_err());
    }

    #[tokio::test]
    async fn a_call_without_roots_has_none_and_given_roots_are_returned() {
        assert!(CallRoots::None.get().await.is_none());
        let given: Arc<[Root]> = vec![Root::new("file:///a")].into();
        let got = CallRoots::Given(given).get().await.unwrap();
        assert_eq!(got[0].uri, "file:///a");
    }
}
