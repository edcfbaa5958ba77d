//! `mcp-shared`: the core every mcp-suite server stands on. Public, because the servers use them:
//!
//! - [`registry`]: the [`Tool`] trait (a tool's one declaration), the `tools!` list and the
//!   [`ToolRegistry`]; [`blocking`] work off the runtime.
//! - [`schema`]: every tool's input and output JSON Schema, flat and standard.
//! - [`transport`]: stdio and Streamable HTTP, behind one flattened clap [`TransportArgs`].
//! - [`cli`]: what the command lines share (`--tools`, the directory flags, the start-up error).
//! - [`logging`]: tracing to stderr and the terminal banner.
//! - [`sandbox`]: confined, symlink-safe, atomic file access under one or more roots.
//! - [`platform`]: what differs per operating system (file identity, permissions, sync).
//! - [`workspace`]: the default workspace when a server's directory flag is absent.
//! - [`client_roots`]: the client's MCP roots, per session or per 2026-07-28 call.
//! - [`diff`]: bounded unified diffs of a change made on someone's behalf.
//! - [`escape`]: names and other programs' text made safe to show (no forged lines).
//! - [`view`]: MCP Apps views of tool results (`ui://` resources, their data in `_meta`).
//!
//! Private, what they give re-exported here: `server` (the rmcp `ServerHandler`, [`McpServer`]),
//! `output` ([`ToolOutput`], [`ToolError`] and their one mapping to MCP), `error`
//! ([`ErrorCode`]), `extension` ([`ServerExtension`]), `subscriptions`, `call_log`
//! (`--audit-log`), `metrics` (`/metrics`) and `uri` (`file://` URIs as paths).

mod call_log;
pub mod cli;
pub mod client_roots;
pub mod diff;
mod error;
pub mod escape;
mod extension;
pub mod logging;
mod metrics;
mod output;
pub mod platform;
pub mod registry;
pub mod sandbox;
pub mod schema;
mod server;
mod subscriptions;
pub mod transport;
mod uri;
pub mod view;
pub mod workspace;

pub use error::ErrorCode;
pub use output::{ContentItem, ToolError, ToolOutput};
pub use registry::{RegisteredTool, RegistryError, Tool, ToolContext, ToolRegistry, ToolResult, blocking};
pub use server::{McpServer, NoExtension, ServerExtension, ServerIdentity, ServerSettings};
pub use transport::{TransportArgs, serve, serve_blocking, serve_blocking_with};

/// Re-exports of the crates a tool implementation needs, so servers use the same versions.
pub mod reexports {
    pub use garde;
    pub use rmcp;
    pub use schemars;
}
