//! Where the editor may work: the configured roots (`--root`), narrowed by the client's MCP
//! roots when the client declares the `roots` capability.
//!
//! The client's roots are asked for (`roots/list`) on the first call of a session and cached
//! until the client says they changed (`notifications/roots/list_changed`). They can only
//! narrow the configured roots, never widen them: a client root outside every configured root
//! is ignored, and if none is left, no path is accessible. A client that declares the
//! capability but answers with an empty list, or does not answer, gets the configured roots
//! (and a warning in the log).

// MCP roots are deprecated by a protocol version newer than those served here (SEP-2577);
// for the versions this server speaks they are current.
#![allow(deprecated)]

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

use mcp_shared::{
    ErrorCode,
    reexports::rmcp::{
        RoleServer,
        model::{InitializeRequestParams, Root},
        service::Peer,
    },
    sandbox::Sandbox,
};

use crate::error::EditError;

/// How long the server waits for the client's `roots/list` answer.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(5);

/// Sessions whose roots are remembered (Streamable HTTP serves several clients).
const MAX_SESSIONS: usize = 64;

/// One client session's view of the roots.
struct Session {
    client: Arc<InitializeRequestParams>,
    /// `None` until fetched, and again after `roots/list_changed`.
    roots: Option<Result<Sandbox, String>>,
}

/// The configured roots and, per client session, the narrowed ones.
pub struct Workspace {
    configured: Sandbox,
    sessions: Mutex<Vec<Session>>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace").field("configured", &self.configured).finish_non_exhaustive()
    }
}

impl Workspace {
    /// A workspace over the configured roots.
    pub fn new(configured: Sandbox) -> Workspace {
        Workspace { configured, sessions: Mutex::new(Vec::new()) }
    }

    /// The configured roots (`--root`).
    pub fn configured(&self) -> &Sandbox {
        &self.configured
    }

    /// The sandbox for a call from `peer`: the configured roots, narrowed by the client's roots
    /// when it declared the capability.
    pub async fn sandbox(&self, peer: Option<&Peer<RoleServer>>) -> Result<Sandbox, EditError> {
        let Some(peer) = peer else {
            return Ok(self.configured.clone());
        };
        let Some(client) = peer.peer_info() else {
            return Ok(self.configured.clone());
        };
        if client.capabilities.roots.is_none() {
            return Ok(self.configured.clone());
        }
        if let Some(cached) = self.cached(&client) {
            return cached.map_err(|message| EditError::new(ErrorCode::OutsideRoot, message));
        }
        let answer = tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await;
        let roots = match answer {
            Ok(Ok(result)) => self.narrow(&result.roots),
            Ok(Err(error)) => {
                tracing::warn!(%error, "the client declared roots but roots/list failed; using the configured roots");
                Ok(self.configured.clone())
            }
            Err(_) => {
                tracing::warn!("the client declared roots but did not answer roots/list; using the configured roots");
                Ok(self.configured.clone())
            }
        };
        self.store(client, roots.clone());
        roots.map_err(|message| EditError::new(ErrorCode::OutsideRoot, message))
    }

    /// The client's roots changed: fetch them again on its next call.
    pub fn invalidate(&self, peer: &Peer<RoleServer>) {
        let Some(client) = peer.peer_info() else {
            return;
        };
        let mut sessions = self.lock();
        for session in sessions.iter_mut().filter(|s| Arc::ptr_eq(&s.client, &client)) {
            session.roots = None;
        }
    }

    /// The configured roots narrowed to `roots` (MCP `file://` URIs). An empty list narrows
    /// nothing; a list none of whose entries lies inside (or around) a configured root leaves
    /// no accessible path.
    pub fn narrow(&self, roots: &[Root]) -> Result<Sandbox, String> {
        if roots.is_empty() {
            return Ok(self.configured.clone());
        }
        let paths: Vec<PathBuf> = roots.iter().filter_map(|root| root_uri_to_path(&root.uri)).collect();
        self.configured.narrowed(&paths).map_err(|_| {
            let shown: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
            format!(
                "No path is accessible: none of the client's roots ({}) lies inside this server's configured root(s). Ask the user to add a root inside them.",
                shown.join(", ")
            )
        })
    }

    fn cached(&self, client: &Arc<InitializeRequestParams>) -> Option<Result<Sandbox, String>> {
        self.lock().iter().find(|s| Arc::ptr_eq(&s.client, client)).and_then(|s| s.roots.clone())
    }

    fn store(&self, client: Arc<InitializeRequestParams>, roots: Result<Sandbox, String>) {
        let mut sessions = self.lock();
        if let Some(session) = sessions.iter_mut().find(|s| Arc::ptr_eq(&s.client, &client)) {
            session.roots = Some(roots);
            return;
        }
        if sessions.len() >= MAX_SESSIONS {
            sessions.remove(0);
        }
        sessions.push(Session { client, roots: Some(roots) });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Session>> {
        match self.sessions.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// The local path of a `file://` URI (percent-decoded), or `None` for any other URI.
pub fn root_uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?;
    if decoded.contains('\0') {
        return None;
    }
    Some(PathBuf::from(decoded.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(root_uri_to_path("file:///home/a%20b/p"), Some(PathBuf::from("/home/a b/p")));
        assert_eq!(root_uri_to_path("file://localhost/x"), Some(PathBuf::from("/x")));
        assert_eq!(root_uri_to_path("https://example.com/x"), None);
        assert_eq!(root_uri_to_path("file://host/x"), None);
        assert_eq!(root_uri_to_path("file:///a%00b"), None);
    }

    #[test]
    fn client_roots_only_narrow() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(Sandbox::new([dir.path()]).unwrap());
        let uri = |p: &std::path::Path| Root::new(format!("file://{}", p.display()));

        let narrowed = workspace.narrow(&[uri(&inner)]).unwrap();
        assert_eq!(narrowed.roots(), &[inner.canonicalize().unwrap()]);
        // a client root around ours keeps ours
        let around = workspace.narrow(&[uri(dir.path().parent().unwrap())]).unwrap();
        assert_eq!(around.roots(), &[dir.path().canonicalize().unwrap()]);
        // outside only: nothing accessible
        assert!(workspace.narrow(&[uri(outside.path())]).is_err());
        // empty list: no narrowing
        assert_eq!(workspace.narrow(&[]).unwrap().roots(), workspace.configured().roots());
    }
}
