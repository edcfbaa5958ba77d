//! `mcp-shared`: the core every mcp-suite server stands on.
//!
//! - [`client_roots`]: the client's MCP roots, per session or per 2026-07-28 call.
//! - [`output`]: the tool result type ([`ToolOutput`]) and its one mapping to MCP.
//! - [`diff`]: bounded unified diffs of a change made on someone's behalf.
//! - [`error`]: the error codes ([`ErrorCode`]) shared by every server.
//! - [`registry`]: the [`Tool`] trait and the [`ToolRegistry`].
//! - [`schema`]: every tool's input and output JSON Schema, flat and standard.
//! - [`server`]: the rmcp `ServerHandler` ([`McpServer`]) that serves any registry.
//! - [`transport`]: stdio and Streamable HTTP, behind one flattened clap [`TransportArgs`].
//! - [`platform`]: what differs per operating system (file identity, permissions, sync).
//! - [`sandbox`]: confined, symlink-safe, atomic file access under one or more roots.
//! - [`logging`]: tracing to stderr and the terminal banner.
//! - [`uri`]: `file://` URIs of MCP client roots as local paths.
//! - [`workspace`]: the default workspace when a server's directory flag is absent.

mod call_log;
pub mod cli;
pub mod client_roots;
pub mod diff;
mod error;
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
