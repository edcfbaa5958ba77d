//! `mcp-server-ide-bridge`: an IDE workspace exposed to MCP clients, in two binaries.
//!
//! - `mcp-server-ide-bridge` is a stdio MCP server ([`server`]): its tools (the workspace's
//!   files, the IDE's live state, its language servers and changes the user approves; one file
//!   each under `tools/`, listed once in its `tools!` line), the `file:///{path}` resources and
//!   the subscribable `ide://selection` and `ide://diagnostics` ([`resources`]) are forwarded
//!   over an authenticated WebSocket ([`bridge`]) to the workspace host, found by URL or through
//!   its discovery file ([`discovery`]); or to an IDE that serves another protocol (the Claude
//!   Code IDE protocol of Neovim, JetBrains, Emacs and VS Code plugins, the Gemini CLI
//!   companion), through an adapter of [`bridge`] that answers the same methods.
//! - `ide-bridge-host` is the workspace side ([`host`]), the role an IDE extension plays: a
//!   WebSocket server on 127.0.0.1 serving `fs/list`, `fs/read` and `fs/write` on one folder
//!   through the shared sandbox.
//!
//! The wire protocol between them is [`protocol`], written down for extension authors in
//! `docs/ide-bridge-protocol.md`.

use std::sync::Arc;

use mcp_shared::{McpServer, RegistryError, ServerIdentity, ToolRegistry};

pub mod bridge;
pub mod discovery;
pub mod host;
mod paths;
pub mod protocol;
mod resources;
mod tools;
mod views;
pub mod ws;

use bridge::Bridge;
use resources::BridgeExtension;
pub use tools::NAMES as TOOL_NAMES;

/// The MCP server's binary name, announced in `initialize`.
pub const NAME: &str = "mcp-server-ide-bridge";

/// Who the MCP server is, for `initialize`.
pub fn identity(registry: &ToolRegistry) -> ServerIdentity {
    let mut instructions = String::from(
        "The workspace open in the user's IDE, through the IDE's ide-bridge extension (or ide-bridge-host, \
         or the IDE's Claude Code or Gemini CLI plugin): its files, its live state and its language \
         servers. Paths are relative to the workspace root; in a multi-root workspace, files of a \
         folder after the first are `folder-name/path`. Files are also resources: file:///{path}.",
    );
    for sentence in registry.tools().filter_map(|tool| tool.instructions()) {
        instructions.push(' ');
        instructions.push_str(&sentence);
    }
    instructions.push_str(
        " If the IDE is not running, calls fail with UNAVAILABLE and the bridge reconnects by itself: retry a little later.",
    );
    ServerIdentity {
        name: NAME.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        title: Some("IDE workspace bridge".to_owned()),
        website_url: Some(concat!(env!("CARGO_PKG_REPOSITORY"), "/tree/main/servers/ide-bridge").to_owned()),
        instructions,
    }
}

/// The bridge's tools that `offer` accepts (`--tools`), in `tools/list` order.
pub fn registry(bridge: &Bridge, offer: impl Fn(&str) -> bool) -> Result<ToolRegistry, RegistryError> {
    tools::all(bridge, offer)
}

/// The MCP server: the tools and the resources, over `bridge`.
pub fn server(bridge: Bridge, offer: impl Fn(&str) -> bool) -> Result<McpServer, RegistryError> {
    let registry = registry(&bridge, offer)?;
    Ok(McpServer::new(identity(&registry), registry).with_extension(Arc::new(BridgeExtension::new(bridge))))
}

/// A random 128-bit token, as 32 lowercase hex digits.
pub fn generate_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use crate::bridge::{Bridge, BridgeConfig, Target};

    /// Which calls change something (with OAuth they need the write scope): every call of a tool
    /// that writes, except the previews of `format` and `apply_code_action` (no `apply: true`);
    /// none of a tool that only reads. A rename's preview counts as a write, as it always has.
    #[test]
    fn only_calls_that_change_something_count_as_writes() {
        let bridge = Bridge::new(BridgeConfig {
            target: Target::Url {
                url: "ws://127.0.0.1:9".into(),
                dir: std::path::PathBuf::from("/nowhere"),
                given: true,
            },
            ide: crate::bridge::IdeChoice::Auto,
            lock_dirs: Vec::new(),
            companion_dirs: Vec::new(),
            token: None,
            discovery_dirs: Vec::new(),
            request_timeout: Duration::from_secs(1),
            tool_timeout: Duration::from_secs(1),
        });
        let registry = super::registry(&bridge, |_| true).unwrap();
        let writes = |name: &str, args: serde_json::Value| registry.get(name).unwrap().call_writes(args.as_object());
        for tool in ["format", "apply_code_action"] {
            assert!(!writes(tool, json!({"path": "a.ts", "line": 1})), "{tool} preview");
            assert!(!writes(tool, json!({"path": "a.ts", "line": 1, "apply": false})), "{tool} apply: false");
            assert!(!writes(tool, json!({"path": "a.ts", "line": 1, "apply": "true"})), "{tool} apply: \"true\"");
            assert!(writes(tool, json!({"path": "a.ts", "line": 1, "apply": true})), "{tool} apply: true");
        }
        assert!(writes("rename_symbol", json!({"path": "a.ts", "line": 1, "symbol": "a", "new_name": "b"})));
        assert!(writes("write_file", json!({"path": "a.ts", "content": ""})));
        for tool in ["read_file", "code_actions", "find_definition", "get_diagnostics", "call_hierarchy"] {
            assert!(!writes(tool, json!({"path": "a.ts", "line": 1, "apply": true})), "{tool}");
        }
    }

    #[test]
    fn tokens_are_128_bit_hex_and_differ() {
        let a = super::generate_token().unwrap();
        let b = super::generate_token().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
