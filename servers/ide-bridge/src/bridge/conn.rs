//! What the bridge is connected to: a workspace host speaking the bridge's own protocol (our
//! extension, ide-bridge-host), or an IDE reached through another protocol by an [`Adapter`]
//! that answers the bridge's protocol methods (`fs/*`, `ide/*`) with that IDE's tools.

use std::{sync::Arc, time::Duration};

use futures::future::BoxFuture;
use serde_json::Value;

use super::{Link, RequestError};
use crate::protocol::HostInfo;

/// The protocol an IDE is reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// The bridge's own protocol: the mcp-suite extension (VS Code, Antigravity) or ide-bridge-host.
    McpSuite,
    /// The Claude Code IDE protocol (VS Code's Claude Code extension, JetBrains, claudecode.nvim,
    /// claude-code-ide.el).
    ClaudeCode,
    /// The Gemini CLI's IDE companion protocol (MCP over HTTP).
    Gemini,
}

impl Protocol {
    /// How the protocol is named to a person.
    pub fn title(self) -> &'static str {
        match self {
            Protocol::McpSuite => "the mcp-suite ide-bridge protocol",
            Protocol::ClaudeCode => "the Claude Code IDE protocol",
            Protocol::Gemini => "the Gemini CLI companion protocol",
        }
    }
}

/// An IDE reached through another protocol, answering the bridge's protocol methods.
pub trait Adapter: Send + Sync + std::fmt::Debug + 'static {
    /// Answers `method` (a bridge protocol method) within `timeout`.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RequestError>>;
    /// What the adapter says in `host/info` (the folders it serves, its limits).
    fn info(&self) -> &HostInfo;
    /// Whether the IDE can serve the bridge tool `tool` (else it is not listed).
    fn offers(&self, tool: &str) -> bool;
    /// The IDE's name, as a person knows it (escaped).
    fn ide_name(&self) -> &str;
    /// The protocol.
    fn protocol(&self) -> Protocol;
    /// The IDE's URL.
    fn url(&self) -> &str;
    /// Whether the connection has ended.
    fn is_closed(&self) -> bool;
    /// Resolves when the connection has ended.
    fn closed(&self) -> BoxFuture<'_, ()>;
    /// Closes the connection.
    fn close(&self);
}

/// One live connection of the bridge.
#[derive(Debug, Clone)]
pub enum Conn {
    /// A workspace host of the bridge's own protocol.
    Host(Arc<Link>),
    /// An IDE through an adapter.
    Ide(Arc<dyn Adapter>),
}

impl Conn {
    /// The URL connected to.
    pub fn url(&self) -> &str {
        match self {
            Conn::Host(link) => link.url(),
            Conn::Ide(ide) => ide.url(),
        }
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        match self {
            Conn::Host(link) => link.is_closed(),
            Conn::Ide(ide) => ide.is_closed(),
        }
    }

    /// Resolves when the connection has ended.
    pub async fn closed(&self) {
        match self {
            Conn::Host(link) => link.closed().await,
            Conn::Ide(ide) => ide.closed().await,
        }
    }

    /// Closes the connection.
    pub fn close(&self) {
        match self {
            Conn::Host(link) => link.close(),
            Conn::Ide(ide) => ide.close(),
        }
    }

    /// What `host/info` said (or the adapter's).
    pub fn info(&self) -> Option<&HostInfo> {
        match self {
            Conn::Host(link) => link.info(),
            Conn::Ide(ide) => Some(ide.info()),
        }
    }

    /// The workspace folders served.
    pub fn workspace_folders(&self) -> &[String] {
        match self {
            Conn::Host(link) => link.workspace_folders(),
            Conn::Ide(ide) => &ide.info().workspace_folders,
        }
    }

    /// The protocol.
    pub fn protocol(&self) -> Protocol {
        match self {
            Conn::Host(_) => Protocol::McpSuite,
            Conn::Ide(ide) => ide.protocol(),
        }
    }

    /// Whether this connection can serve the bridge tool `tool`.
    pub fn offers(&self, tool: &str) -> bool {
        match self {
            Conn::Host(_) => true,
            Conn::Ide(ide) => ide.offers(tool),
        }
    }

    /// Sends `method` (request `id` on a host link) and waits at most `timeout` for the answer.
    pub async fn request(
        &self,
        id: u64,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        match self {
            Conn::Host(link) => link.request(id, method, params, timeout).await,
            Conn::Ide(ide) => ide.request(method, params, timeout).await,
        }
    }
}
