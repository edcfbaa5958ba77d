//! `mcp-server-sample-tool`: the template of mcp-suite: a tool registry, the sample
//! `hoge` tool and its exact error codes.
//!
//! A server is a [`ToolRegistry`] plus a `main.rs` that parses flags and serves it. To add a
//! tool: write one file under `src/tools/` implementing [`mcp_shared::Tool`], and add its line
//! to the `tools!` list in `src/tools/mod.rs` (docs/adding-a-tool.md).

use mcp_shared::{RegistryError, ServerIdentity, ToolRegistry};

mod tools;

/// The binary's name, announced in `initialize`.
pub const NAME: &str = "mcp-server-sample-tool";

/// Who the server is, for `initialize`.
pub fn identity() -> ServerIdentity {
    ServerIdentity {
        name: NAME.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        title: Some("mcp-suite sample tool".to_owned()),
        website_url: Some(concat!(env!("CARGO_PKG_REPOSITORY"), "/tree/main/servers/sample-tool").to_owned()),
        instructions: "The template server of mcp-suite. `hoge` adds two numbers: \
            {\"action\":\"calc\",\"args\":{\"x\":1,\"y\":2}} returns {\"value\":3}. \
            `countdown` waits the given number of seconds, reporting progress each second; \
            it shows cancellation and the per-call timeout."
            .to_owned(),
    }
}

/// Every tool of this server.
pub fn registry() -> Result<ToolRegistry, RegistryError> {
    tools::all(&(), |_| true)
}
