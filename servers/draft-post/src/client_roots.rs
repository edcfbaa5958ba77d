//! The client's MCP roots, per session: asked for (`roots/list`) on the first call of a session
//! whose client declares the `roots` capability, and again after
//! `notifications/roots/list_changed`.

// MCP roots are deprecated by a protocol version newer than those served here (SEP-2577); for
// the versions this server speaks they are current.
#![allow(deprecated)]

use std::{
    path::PathBuf,
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use mcp_shared::reexports::rmcp::{RoleServer, model::InitializeRequestParams, service::Peer};

/// How long the server waits for the client's `roots/list` answer.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(5);

/// Sessions whose roots are remembered (Streamable HTTP serves several clients).
const MAX_SESSIONS: usize = 64;

struct Session {
    client: Arc<InitializeRequestParams>,
    /// The client's roots as paths; `None` until fetched, and again after `roots/list_changed`.
    roots: Option<Option<Vec<PathBuf>>>,
}

/// The roots of every client session (the latest [`MAX_SESSIONS`]).
#[derive(Default)]
pub struct ClientRoots {
    sessions: Mutex<Vec<Session>>,
}

impl ClientRoots {
    /// The roots of `peer`'s client as local paths (`file://` URIs only), when it declares the
    /// capability; `None` when it does not, or does not answer in time (the configured places
    /// apply then, and the log says so).
    pub async fn get(&self, peer: &Peer<RoleServer>) -> Option<Vec<PathBuf>> {
        let client = peer.peer_info()?;
        client.capabilities.roots.as_ref()?;
        if let Some(Some(cached)) =
            self.lock().iter().find(|s| Arc::ptr_eq(&s.client, &client)).map(|s| s.roots.clone())
        {
            return cached;
        }
        let roots = match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
            Ok(Ok(result)) => {
                Some(result.roots.iter().filter_map(|r| mcp_shared::uri::file_uri_to_path(&r.uri)).collect::<Vec<_>>())
            }
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
        match self.sessions.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}
