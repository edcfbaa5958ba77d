//! What a failed bridge call tells the model: the shared code and a message with the next step.
//!
//! The host's message states the fact (it may come from a third-party extension, so it is taken
//! as it is); the bridge adds what to do about it, per code and per operation.

use mcp_shared::{ErrorCode, ToolError};

use super::{ConnectError, RequestError};

/// Why a call through the bridge failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BridgeError {
    /// No connection to the host.
    #[error("{0}")]
    Connect(ConnectError),
    /// The request failed on the connection.
    #[error("{0:?}")]
    Request(RequestError),
    /// The host's answer is not what the protocol says.
    #[error("unreadable answer from the host: {0}")]
    Protocol(String),
}

/// What the failed call was doing, for the next step the message suggests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op<'a> {
    /// Listing files (under a directory).
    List,
    /// Reading a file.
    Read(&'a str),
    /// Writing a file.
    Write(&'a str),
    /// Asking the IDE for its live state (the tool's name: `get_diagnostics`, `open_file`, …).
    Ide(&'static str),
    /// Asking the IDE to change files (the tool's name, and what it changes): a rename applied,
    /// a diff the user may accept. Once started, the IDE completes it even when the answer is
    /// lost, so such a failure never says to simply retry.
    Change(&'static str, &'a str),
}

const RETRY: &str = "The bridge reconnects by itself: retry in a few seconds.";

impl BridgeError {
    /// The shared code and the message for the model.
    pub fn describe(&self, op: Op<'_>) -> (ErrorCode, String) {
        match self {
            BridgeError::Connect(error) => describe_connect(error),
            BridgeError::Request(RequestError::Host(wire))
                if wire.code == crate::protocol::METHOD_NOT_FOUND && matches!(op, Op::Ide(_) | Op::Change(..)) =>
            {
                let tool = match op {
                    Op::Ide(tool) | Op::Change(tool, _) => tool,
                    _ => "this tool",
                };
                let fact = wire.message.trim().trim_end_matches('.');
                let (version, instead) = needs(tool);
                (
                    ErrorCode::Unavailable,
                    format!(
                        "The IDE workspace host does not support {tool} ({fact}). It needs the IDE itself: VS Code (or Antigravity, Cursor) with the ide-bridge extension {version} or later (install or update it from the mcp-suite release's .vsix: `code --install-extension ide-bridge-*.vsix`); the headless ide-bridge-host has no editor. Do not retry; {instead}"
                    ),
                )
            }
            BridgeError::Request(RequestError::Host(wire)) => {
                let code = wire.error_code();
                let fact = wire.message.trim().trim_end_matches('.');
                let hint = hint(code, op);
                (code, if hint.is_empty() { format!("{fact}.") } else { format!("{fact}. {hint}") })
            }
            BridgeError::Request(RequestError::Lost) => (
                ErrorCode::Unavailable,
                match op {
                    Op::Write(path) => format!(
                        "The connection to the IDE workspace host was lost before it answered, so it is unknown whether `{path}` was written. The bridge is reconnecting and never replays a write: check the file with read_file, then write again if needed."
                    ),
                    Op::Change(tool, what) => format!(
                        "The connection to the IDE workspace host was lost before it answered, so it is unknown whether {tool} changed {what}: the IDE may have applied it, or may still. Do not simply call it again: check {what} with read_file first (the bridge is reconnecting), then call again only if nothing changed."
                    ),
                    _ => format!("The connection to the IDE workspace host was lost before it answered. {RETRY}"),
                },
            ),
            BridgeError::Request(RequestError::Timeout(after)) => (ErrorCode::Timeout, {
                let base = format!(
                    "The IDE workspace host did not answer within {} s (the bridge's --request-timeout), so the request was cancelled.",
                    after.as_secs_f64()
                );
                if let Op::Change(tool, what) = op {
                    return (
                        ErrorCode::Timeout,
                        format!(
                            "The IDE workspace host did not answer within {} s (the bridge's --request-timeout), so the bridge stopped waiting; the IDE may still apply {tool}'s change to {what} (an operation it started completes). Do not simply call it again: check {what} with read_file first, then call again only if nothing changed.",
                            after.as_secs_f64()
                        ),
                    );
                }
                match op {
                    Op::Write(path) => format!(
                        "{base} It is unknown whether `{path}` was written: check it with read_file before writing again."
                    ),
                    _ => format!("{base} The IDE may be busy: retry in a moment."),
                }
            }),
            BridgeError::Request(RequestError::TooLarge { bytes, max }) => (
                ErrorCode::FileTooLarge,
                format!(
                    "The request is {bytes} bytes, over the IDE workspace host's message limit of {max} bytes, so it was not sent and nothing was written. Write a smaller file."
                ),
            ),
            BridgeError::Protocol(reason) => (
                ErrorCode::InternalError,
                format!(
                    "The IDE workspace host sent an answer the bridge cannot read ({reason}). Retry once; if it persists, the IDE extension and the bridge speak different protocol versions."
                ),
            ),
        }
    }

    /// For a `file:///` URI `raw` that the host found no file for as a workspace-relative path,
    /// and whose absolute reading (`outside`, e.g. `/tmp/x`) is outside the workspace folders:
    /// `ACCESS_DENIED` naming both readings, not "does not exist" (the caller most likely meant
    /// the absolute path). Whether that path exists is never looked at.
    pub fn outside_workspace(&self, raw: &str, outside: &str) -> Option<(ErrorCode, String)> {
        let BridgeError::Request(RequestError::Host(wire)) = self else { return None };
        (wire.error_code() == ErrorCode::NotFound).then(|| {
            (
                ErrorCode::AccessDenied,
                format!(
                    "`{raw}` is outside the workspace: {outside} is not in a workspace folder, which is all the bridge may access (and the workspace has no such relative path either). Use a path inside the workspace, relative to its root (see list_files)."
                ),
            )
        })
    }

    /// The failure as a tool's failure.
    pub fn to_error(&self, op: Op<'_>) -> ToolError {
        let (code, message) = self.describe(op);
        ToolError::new(code, message)
    }
}

/// The extension version a tool of the `ide/*` or `lang/*` methods needs, and what to do without it.
fn needs(tool: &str) -> (&'static str, &'static str) {
    match tool {
        "find_definition" | "find_references" | "describe_symbol" | "list_symbols" => {
            ("0.3", "use read_file and list_files to find the code instead, or ask the user.")
        }
        "rename_symbol" => ("0.3", "edit each file with write_file instead, or ask the user."),
        "open_diff" | "close_diffs" => {
            ("0.3", "write the change with write_file (the user is notified of every write), or ask the user first.")
        }
        "save_file" => ("0.3", "ask the user to save the file."),
        "find_implementations" | "call_hierarchy" | "type_hierarchy" | "signature_help" => {
            ("0.4", "use read_file and list_files to find the code instead, or ask the user.")
        }
        "code_actions" | "apply_code_action" | "format" => {
            ("0.4", "make the change with write_file instead, or ask the user.")
        }
        _ => ("0.2", "use list_files/read_file instead, or ask the user."),
    }
}

fn describe_connect(error: &ConnectError) -> (ErrorCode, String) {
    match error {
        ConnectError::NoHost { live, given, ide, single_client, folder, found, looked } => {
            use super::IdeChoice;
            let which = if *given { "--workspace folder" } else { "working directory" };
            let kind = match ide {
                IdeChoice::McpSuite => "IDE with the ide-bridge extension (or ide-bridge-host)",
                IdeChoice::ClaudeCode => "IDE serving the Claude Code IDE protocol",
                IdeChoice::Gemini => "IDE with the Gemini CLI companion",
                IdeChoice::Auto => "IDE with the ide-bridge extension, or serving the Claude Code IDE protocol,",
            };
            let shown_folder = mcp_shared::escape::one_line(&folder.display().to_string()).into_owned();
            let mut message = format!(
                "No {kind} is running for this workspace: discovery found {live} live IDE(s), none with a workspace folder that contains the bridge's {which} ({shown_folder})."
            );
            if !found.is_empty() {
                message.push_str(&format!(" Found: {}.", found.join("; ")));
            }
            let looked: Vec<String> =
                looked.iter().map(|d| mcp_shared::escape::one_line(&d.display().to_string()).into_owned()).collect();
            if !looked.is_empty() {
                message.push_str(&format!(" Looked in: {}.", looked.join(", ")));
            }
            if let Some(name) = single_client {
                message.push_str(&format!(
                    " {name} serves it through its Claude Code extension, which keeps one client at a time: connecting would drop the user's own Claude Code session, so the bridge leaves it alone. Start the bridge with --ide claude-code to connect to it anyway (the Claude Code CLI then loses its IDE connection until it reconnects), or install the ide-bridge extension in it."
                ));
            } else {
                message.push_str(match ide {
                    IdeChoice::McpSuite => " Open that folder in the IDE with the ide-bridge extension (or run `ide-bridge-host --root` on it), or start the bridge with --url.",
                    IdeChoice::ClaudeCode => " Open that folder in an IDE with its Claude Code plugin running (JetBrains, claudecode.nvim, claude-code-ide.el, VS Code's Claude Code extension): it writes a lock file under ~/.claude/ide (or $CLAUDE_CONFIG_DIR/ide).",
                    IdeChoice::Gemini => " Open that folder in VS Code with the Gemini CLI companion extension: it writes a discovery file under the temporary directory's gemini/ide.",
                    IdeChoice::Auto => " Open that folder in VS Code with the ide-bridge extension, or in an IDE with its Claude Code plugin running (JetBrains, claudecode.nvim, claude-code-ide.el), or run `ide-bridge-host --root` on it; or start the bridge with --url.",
                });
            }
            if !given {
                message.push_str(" Start the bridge with --workspace <the folder open in the IDE>.");
            }
            message.push(' ');
            message.push_str(RETRY);
            (ErrorCode::Unavailable, message)
        }
        ConnectError::Unreachable { url, reason } => (
            ErrorCode::Unavailable,
            format!(
                "The IDE workspace host at {url} is not reachable ({reason}). Make sure the IDE with the ide-bridge extension (or ide-bridge-host) is running. {RETRY}"
            ),
        ),
        ConnectError::Unauthorized { url, had_token: true } => (
            ErrorCode::AccessDenied,
            format!(
                "The IDE workspace host at {url} refused the bridge's token (HTTP 401). Give the bridge the host's token (--token or IDE_BRIDGE_TOKEN; ide-bridge-host prints it at start, its discovery file holds it, and an IDE of the Claude Code IDE protocol keeps it in its lock file under ~/.claude/ide). Retrying will not help until the token matches."
            ),
        ),
        ConnectError::Unauthorized { url, had_token: false } => (
            ErrorCode::AccessDenied,
            format!(
                "The IDE workspace host at {url} requires a token (HTTP 401) and the bridge has none. Give the bridge the host's token with --token or IDE_BRIDGE_TOKEN (ide-bridge-host prints it at start)."
            ),
        ),
        ConnectError::Refused { url, status: 403 } => (
            ErrorCode::AccessDenied,
            format!(
                "The IDE workspace host at {url} refused the connection (HTTP 403). Check that the bridge's --url names 127.0.0.1 or localhost with the host's port."
            ),
        ),
        ConnectError::Refused { url, status } => (
            ErrorCode::Unavailable,
            format!("The IDE workspace host at {url} refused the connection for now (HTTP {status}). {RETRY}"),
        ),
        ConnectError::BadUrl { url } => (
            ErrorCode::Unavailable,
            format!("The bridge's --url `{url}` is not a WebSocket URL; configure it as ws://127.0.0.1:<port>."),
        ),
        ConnectError::UnsendableToken { url } => (
            ErrorCode::AccessDenied,
            format!(
                "The authentication token for the IDE at {url} (from its lock file, or --token) holds characters that cannot be sent in an HTTP header (a line break or another control character), so it was never sent and the IDE never saw it. Restart the IDE's plugin so that it writes a new lock file, or give the right token with --token."
            ),
        ),
        ConnectError::Workspace { url, reason } => {
            (ErrorCode::Unavailable, format!("The bridge serves no files through the IDE at {url}: {reason}."))
        }
        ConnectError::Handshake { url, reason } => (
            ErrorCode::Unavailable,
            format!("The IDE workspace host at {url} did not complete the connection ({reason}). {RETRY}"),
        ),
        ConnectError::StillConnecting => {
            (ErrorCode::Unavailable, format!("The bridge is still connecting to the IDE workspace host. {RETRY}"))
        }
    }
}

fn hint(code: ErrorCode, op: Op<'_>) -> &'static str {
    match (code, op) {
        (ErrorCode::NotFound, Op::List) => {
            "Call list_files without `path` to see the workspace's top level; paths are relative to the workspace root."
        }
        (ErrorCode::NotFound, Op::Ide(_)) => {
            "Check the path with list_files; paths are relative to the workspace root (in a multi-root workspace, `folder-name/path`)."
        }
        (ErrorCode::NotFound, _) => {
            "Check the path with list_files; paths are relative to the workspace root (e.g. `src/main.rs`)."
        }
        (ErrorCode::FileTooLarge, Op::Write(_)) => {
            "Nothing was written. Keep files under the host's maxFileSize (ide-bridge-host --max-file-size, or antigravity.mcp.maxFileSize in the IDE), or ask the user to raise it."
        }
        (ErrorCode::FileTooLarge, _) => {
            "The host does not send files over its maxFileSize (ide-bridge-host --max-file-size, or antigravity.mcp.maxFileSize in the IDE); ask the user for the part you need or to raise the limit."
        }
        (ErrorCode::ReadOnly, _) => {
            "The IDE workspace host runs read-only (ide-bridge-host --read-only, or antigravity.mcp.readOnly in the IDE), so nothing was written. Do not retry; tell the user what you wanted to change."
        }
        (ErrorCode::AccessDenied | ErrorCode::OutsideRoot, Op::Write(_)) => {
            "Nothing was written. Use a path inside the workspace, relative to its root, as list_files shows it."
        }
        (ErrorCode::AccessDenied | ErrorCode::OutsideRoot, _) => {
            "Use a path inside the workspace, relative to its root, as list_files shows it."
        }
        (ErrorCode::BinaryFile, _) => "Only UTF-8 text files can be read through the bridge.",
        (ErrorCode::InvalidArgs | ErrorCode::InvalidInput, Op::Write(_)) => {
            "Nothing was written. Fix the path (a file inside the workspace, not a directory) and call again."
        }
        (ErrorCode::InvalidArgs | ErrorCode::InvalidInput, _) => "Fix the arguments and call again.",
        (ErrorCode::Unavailable, _) => "The host is busy: retry in a moment.",
        (ErrorCode::Cancelled, _) => "Nothing was changed.",
        (ErrorCode::InternalError, _) => {
            "The host logged the details. Retry once; if it fails again, tell the user the IDE workspace host reported an internal error."
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::protocol::WireError;

    #[test]
    fn host_errors_keep_their_code_and_gain_a_next_step() {
        let e =
            BridgeError::Request(RequestError::Host(WireError::new(ErrorCode::ReadOnly, "the workspace is read-only")));
        let (code, message) = e.describe(Op::Write("a.txt"));
        assert_eq!(code, ErrorCode::ReadOnly);
        assert!(message.starts_with("the workspace is read-only. ") && message.contains("Do not retry"), "{message}");
        let e = BridgeError::Request(RequestError::Host(WireError::rpc(-32003, "File not found.")));
        let (code, message) = e.describe(Op::Read("x"));
        assert_eq!(code, ErrorCode::NotFound);
        assert!(message.starts_with("File not found. Check the path"), "{message}");
    }

    #[test]
    fn connection_failures_are_unavailable_or_access_denied() {
        let (code, m) = BridgeError::Connect(ConnectError::NoHost {
            live: 2,
            given: false,
            ide: super::super::IdeChoice::Auto,
            single_client: None,
            folder: "/home/u/proj".into(),
            found: vec!["Neovim (folders: /home/u)".into(), "IntelliJ IDEA (folders: /work/other)".into()],
            looked: vec!["/home/u/.claude/ide".into()],
        })
        .describe(Op::List);
        assert_eq!(code, ErrorCode::Unavailable);
        assert!(m.contains("retry") && m.contains("--workspace <the folder"), "{m}");
        // It names the folder, what it found and where it looked.
        assert!(m.contains("working directory (/home/u/proj)"), "{m}");
        assert!(m.contains("Found: Neovim (folders: /home/u); IntelliJ IDEA (folders: /work/other)."), "{m}");
        assert!(m.contains("Looked in: /home/u/.claude/ide."), "{m}");
        // Given --workspace, the message does not tell to give it.
        let (_, m) = BridgeError::Connect(ConnectError::NoHost {
            live: 0,
            given: true,
            ide: super::super::IdeChoice::Auto,
            single_client: None,
            folder: "/p".into(),
            found: Vec::new(),
            looked: Vec::new(),
        })
        .describe(Op::List);
        assert!(m.contains("--workspace folder") && !m.contains("start the bridge with --workspace"), "{m}");
        // VS Code's Claude Code extension is never taken without being asked for.
        let (_, m) = BridgeError::Connect(ConnectError::NoHost {
            live: 1,
            given: true,
            ide: super::super::IdeChoice::Auto,
            single_client: Some("Visual Studio Code".into()),
            folder: "/p".into(),
            found: Vec::new(),
            looked: Vec::new(),
        })
        .describe(Op::List);
        assert!(
            m.contains("Visual Studio Code") && m.contains("one client at a time") && m.contains("--ide claude-code"),
            "{m}"
        );
        let unauthorized = ConnectError::Unauthorized { url: "ws://127.0.0.1:1".into(), had_token: true };
        assert_eq!(BridgeError::Connect(unauthorized).describe(Op::List).0, ErrorCode::AccessDenied);
        for e in [
            BridgeError::Request(RequestError::Lost),
            BridgeError::Request(RequestError::Timeout(Duration::from_secs(30))),
        ] {
            let (_, m) = e.describe(Op::Change("open_diff", "src/a.ts"));
            assert!(m.contains("may") && m.contains("Do not simply call it again") && !m.contains("retry"), "{m}");
            assert!(m.contains("check src/a.ts with read_file"), "{m}");
        }
        let (code, m) = BridgeError::Request(RequestError::Lost).describe(Op::Write("a.txt"));
        assert_eq!(code, ErrorCode::Unavailable);
        assert!(m.contains("unknown whether `a.txt` was written") && m.contains("never replays"), "{m}");
        let old_host = WireError::rpc(-32601, "method `ide/diagnostics` not found; this host knows host/info");
        let (code, m) = BridgeError::Request(RequestError::Host(old_host.clone())).describe(Op::Ide("get_diagnostics"));
        assert_eq!(code, ErrorCode::Unavailable);
        assert!(m.starts_with("The IDE workspace host does not support get_diagnostics (method"), "{m}");
        assert!(m.contains("Do not retry") && m.contains("extension 0.2 or later"), "{m}");
        let headless = WireError::rpc(-32601, "ide-bridge-host is headless: no language server runs in it");
        let (code, m) = BridgeError::Request(RequestError::Host(headless)).describe(Op::Ide("find_references"));
        assert_eq!(code, ErrorCode::Unavailable);
        assert!(m.contains("extension 0.3 or later") && m.contains("--install-extension"), "{m}");
        // A file operation's -32601 stays what it was.
        assert_eq!(BridgeError::Request(RequestError::Host(old_host)).describe(Op::List).0, ErrorCode::InternalError);
        let (code, m) =
            BridgeError::Request(RequestError::Timeout(Duration::from_millis(1500))).describe(Op::Read("a"));
        assert_eq!(code, ErrorCode::Timeout);
        assert!(m.contains("1.5 s"), "{m}");
    }
}
