//! Where the editor may work, decided by the shared default-workspace rule
//! ([`mcp_shared::workspace`]):
//!
//! - With `--root`, the configured roots, narrowed by the client's MCP roots when the client
//!   declares the `roots` capability. They can only narrow, never widen: a client root outside
//!   every configured root is ignored, and if none is left, no path is accessible. A client that
//!   declares the capability but answers with an empty list, or does not answer, gets the
//!   configured roots (and a warning in the log).
//! - Without `--root`, the client's MCP roots when it declares some; otherwise the working
//!   directory if it is a plausible project; otherwise there is no workspace and every call is
//!   refused with the flag to add (nothing is read or written).
//!
//! The client's roots come from [`ToolContext::client_roots`] (asked for once per session, or
//! carried by each 2026-07-28 call: [`mcp_shared::client_roots`]); the sandbox made of the last
//! list is kept, so a session's calls do not build it again.

// MCP roots are deprecated by 2026-07-28 (SEP-2577) but still part of it, and current for the
// session revisions.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};

use mcp_shared::{
    ErrorCode, ToolContext,
    reexports::rmcp::model::Root,
    sandbox::{Sandbox, SandboxError},
    workspace::{NO_WORKSPACE_CODE, no_workspace_message},
};

use crate::{ROOT_FLAG, error::ToolError};

/// Client roots, and the sandbox they make of the start-up workspace.
type SandboxOfRoots = (Arc<[Root]>, Result<Sandbox, ToolError>);

/// The start-up workspace and what the client's roots make of it.
pub struct EditorRoots {
    /// `--root`, or the working directory when it is a project; `None`: no workspace.
    configured: Option<Sandbox>,
    /// Whether `configured` is `--root` (client roots narrow it) or a default (they replace it).
    explicit: bool,
    /// The last client roots seen and the sandbox they made.
    last: Mutex<Option<SandboxOfRoots>>,
}

impl std::fmt::Debug for EditorRoots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorRoots")
            .field("configured", &self.configured)
            .field("explicit", &self.explicit)
            .finish_non_exhaustive()
    }
}

impl EditorRoots {
    /// A workspace over the roots given with `--root`: client roots only narrow them.
    pub fn explicit(configured: Sandbox) -> EditorRoots {
        EditorRoots { configured: Some(configured), explicit: true, last: Mutex::new(None) }
    }

    /// A workspace without `--root`: the client's roots when it declares some, else `fallback`
    /// (the working directory when it is a project), else none.
    pub fn by_default(fallback: Option<Sandbox>) -> EditorRoots {
        EditorRoots { configured: fallback, explicit: false, last: Mutex::new(None) }
    }

    /// The start-up roots (`--root`, or the working directory), if any.
    pub fn configured(&self) -> Option<&Sandbox> {
        self.configured.as_ref()
    }

    /// The start-up sandbox, or the no-workspace error.
    fn fallback(&self) -> Result<Sandbox, ToolError> {
        self.configured.clone().ok_or_else(no_workspace)
    }

    /// The sandbox for a call: the start-up roots, narrowed (with `--root`) or replaced
    /// (without) by the client's roots when it declares some. The roots are opened on the
    /// blocking pool (they are directories to look up), once per list of roots.
    pub async fn sandbox(&self, ctx: &ToolContext) -> Result<Sandbox, ToolError> {
        let Some(roots) = ctx.client_roots().await else {
            return self.fallback();
        };
        if let Some((seen, sandbox)) = self.last.lock().unwrap_or_else(PoisonError::into_inner).as_ref()
            && (Arc::ptr_eq(seen, &roots) || **seen == *roots)
        {
            return sandbox.clone();
        }
        let (configured, explicit, client) = (self.configured.clone(), self.explicit, Arc::clone(&roots));
        let sandbox = mcp_shared::blocking("Opening the client's roots", move || {
            from_client(configured.as_ref(), explicit, &client)
        })
        .await?;
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some((roots, sandbox.clone()));
        sandbox
    }

    /// What the client's `roots` make of the start-up workspace ([`from_client`]).
    pub fn from_client(&self, roots: &[Root]) -> Result<Sandbox, ToolError> {
        from_client(self.configured.as_ref(), self.explicit, roots)
    }

    /// The configured roots narrowed to `roots` ([`narrow`]).
    pub fn narrow(&self, roots: &[Root]) -> Result<Sandbox, String> {
        narrow(self.configured.as_ref(), roots)
    }
}

/// What the client's `roots` make of the start-up workspace `configured`: with `--root`
/// (`explicit`) they narrow it ([`narrow`]); without, they are the workspace. An empty list
/// changes nothing.
fn from_client(configured: Option<&Sandbox>, explicit: bool, roots: &[Root]) -> Result<Sandbox, ToolError> {
    if roots.is_empty() {
        return configured.cloned().ok_or_else(no_workspace);
    }
    if explicit {
        return narrow(configured, roots).map_err(|message| ToolError::new(ErrorCode::OutsideRoot, message));
    }
    // The client's roots are the user's choice (even `/`); those that are not directories
    // here (another machine's, deleted) are skipped.
    let paths: Vec<_> = mcp_shared::client_roots::paths(roots)
        .into_iter()
        .filter(|path| std::fs::metadata(path).is_ok_and(|md| md.is_dir()))
        .collect();
    let shown: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    if paths.is_empty() {
        return Err(ToolError::new(
            NO_WORKSPACE_CODE,
            format!(
                "No path is accessible: none of the client's roots ({}) is a directory on this machine, and the server was started without {}. Ask the user to open an existing folder, or to add {} to this server's arguments in the client configuration.",
                shown.join(", "),
                ROOT_FLAG.flag,
                ROOT_FLAG.config_snippet()
            ),
        ));
    }
    Sandbox::new(&paths).map_err(|error| {
        ToolError::new(
            error.code(),
            format!("The client's roots ({}) cannot be opened: {error}. Ask the user to check them.", shown.join(", ")),
        )
    })
}

/// The configured roots narrowed to `roots` (MCP `file://` URIs). An empty list narrows nothing;
/// a list none of whose entries lies inside (or around) a configured root leaves no accessible
/// path.
fn narrow(configured: Option<&Sandbox>, roots: &[Root]) -> Result<Sandbox, String> {
    let Some(configured) = configured else {
        return Err(no_workspace().message);
    };
    if roots.is_empty() {
        return Ok(configured.clone());
    }
    configured.narrowed(&mcp_shared::client_roots::paths(roots)).map_err(|error| match error {
        SandboxError::OutsideRoot { .. } => {
            let shown: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
            format!(
                "No path is accessible: none of the client's roots ({}) lies inside this server's configured root(s). Ask the user to add a root inside them.",
                shown.join(", ")
            )
        }
        other => other.to_string(),
    })
}

/// The error of every call made without a workspace: which flag to add, and how.
pub fn no_workspace() -> ToolError {
    ToolError::new(NO_WORKSPACE_CODE, no_workspace_message(&ROOT_FLAG))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_roots_only_narrow() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let workspace = EditorRoots::explicit(Sandbox::new([dir.path()]).unwrap());
        let uri = |p: &std::path::Path| Root::new(format!("file://{}", p.display()));

        let narrowed = workspace.narrow(&[uri(&inner)]).unwrap();
        assert_eq!(narrowed.roots(), &[inner.canonicalize().unwrap()]);
        // a client root around ours keeps ours
        let around = workspace.narrow(&[uri(dir.path().parent().unwrap())]).unwrap();
        assert_eq!(around.roots(), &[dir.path().canonicalize().unwrap()]);
        // outside only: nothing accessible
        assert!(workspace.narrow(&[uri(outside.path())]).is_err());
        // empty list: no narrowing
        assert_eq!(workspace.narrow(&[]).unwrap().roots(), workspace.configured().unwrap().roots());
    }

    #[test]
    fn without_root_the_client_roots_are_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let uri = |p: &std::path::Path| Root::new(format!("file://{}", p.display()));
        // no fallback: the client's roots, whatever they are
        let none = EditorRoots::by_default(None);
        let sandbox = none.from_client(&[uri(dir.path()), uri(&dir.path().join("missing"))]).unwrap();
        assert_eq!(sandbox.roots(), &[dir.path().canonicalize().unwrap()]);
        // an empty list or only missing directories: no workspace, with the flag to add
        assert_eq!(none.from_client(&[]).unwrap_err().code, NO_WORKSPACE_CODE);
        let missing = none.from_client(&[uri(&dir.path().join("missing"))]).unwrap_err();
        assert!(missing.message.contains("--root"), "{missing:?}");
        // a working-directory fallback is replaced by the client's roots, not narrowed
        let cwd = EditorRoots::by_default(Some(Sandbox::new([dir.path()]).unwrap()));
        assert_eq!(cwd.from_client(&[uri(other.path())]).unwrap().roots(), &[other.path().canonicalize().unwrap()]);
        assert_eq!(cwd.from_client(&[]).unwrap().roots(), &[dir.path().canonicalize().unwrap()]);
    }
}
