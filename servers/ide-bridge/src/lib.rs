//! `mcp-server-ide-bridge`: an IDE workspace exposed to MCP clients, in two binaries.
//!
//! - `mcp-server-ide-bridge` is a stdio MCP server ([`server`]): the tools `list_files`,
//!   `read_file`, `write_file` and the IDE's live state (`get_diagnostics`, `get_open_editors`,
//!   `get_selection`, `open_file`) ([`tools`]), the `file:///{path}` resources and the
//!   subscribable `ide://selection` and `ide://diagnostics`
//!   ([`extension`]) are forwarded over an authenticated WebSocket ([`bridge`]) to the
//!   workspace host, found by URL or through its discovery file ([`discovery`]).
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
pub mod extension;
pub mod host;
pub mod paths;
pub mod protocol;
pub mod tools;
pub mod ws;

use bridge::Bridge;
use extension::BridgeExtension;

/// The MCP server's binary name, announced in `initialize`.
pub const NAME: &str = "mcp-server-ide-bridge";

/// Who the MCP server is, for `initialize`.
pub fn identity() -> ServerIdentity {
    ServerIdentity {
        name: NAME.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        title: Some("IDE workspace bridge".to_owned()),
        website_url: Some(concat!(env!("CARGO_PKG_REPOSITORY"), "/tree/main/servers/ide-bridge").to_owned()),
        instructions: "Reads and writes the files of the workspace open in the user's IDE, through the \
            IDE's ide-bridge extension (or ide-bridge-host). Paths are relative to the workspace root. \
            Start with list_files (recursive: true for the whole tree; .gitignored and hidden files are \
            left out), read files with read_file, and create or replace a file with write_file (the \
            complete new content; the IDE's user is notified). Files are also resources: \
            file:///{path}. What only the IDE knows: get_diagnostics (the language servers' errors \
            and warnings, e.g. after an edit), get_open_editors, get_selection (what the user has \
            selected: \"this code\"), and open_file to show the user a file at a line; read_file \
            returns a file's unsaved editor text when it has unsaved changes, and save_file saves it. \
            The IDE's language servers: find_definition, find_references and describe_symbol name a \
            symbol by `path`, `line` and its text (`symbol`), list_symbols gives a file's outline or \
            searches the workspace's symbols, rename_symbol previews a rename (apply: true makes it). \
            To let the user approve a change, open_diff shows it in the IDE's diff view and returns \
            their decision (accepted, with their own edits; rejected; or pending). In a multi-root \
            workspace, files of a folder after the first are `folder-name/path`. If the IDE is not running, calls fail with UNAVAILABLE and the bridge \
            reconnects by itself: retry a little later."
            .to_owned(),
    }
}

/// The tools, over `bridge`.
pub fn registry(bridge: &Bridge) -> Result<ToolRegistry, RegistryError> {
    let mut registry = ToolRegistry::new();
    registry.register(tools::list_files::ListFiles::new(bridge.clone()))?;
    registry.register(tools::read_file::ReadFile::new(bridge.clone()))?;
    registry.register(tools::write_file::WriteFile::new(bridge.clone()))?;
    registry.register(tools::get_diagnostics::GetDiagnostics::new(bridge.clone()))?;
    registry.register(tools::get_open_editors::GetOpenEditors::new(bridge.clone()))?;
    registry.register(tools::get_selection::GetSelection::new(bridge.clone()))?;
    registry.register(tools::open_file::OpenFile::new(bridge.clone()))?;
    registry.register(tools::save_file::SaveFile::new(bridge.clone()))?;
    registry.register(tools::find_definition::FindDefinition::new(bridge.clone()))?;
    registry.register(tools::find_references::FindReferences::new(bridge.clone()))?;
    registry.register(tools::describe_symbol::DescribeSymbol::new(bridge.clone()))?;
    registry.register(tools::list_symbols::ListSymbols::new(bridge.clone()))?;
    registry.register(tools::rename_symbol::RenameSymbol::new(bridge.clone()))?;
    registry.register(tools::open_diff::OpenDiff::new(bridge.clone()))?;
    registry.register(tools::close_diffs::CloseDiffs::new(bridge.clone()))?;
    Ok(registry)
}

/// The MCP server: the tools and the resources, over `bridge`.
pub fn server(bridge: Bridge) -> Result<McpServer, RegistryError> {
    let registry = registry(&bridge)?;
    Ok(McpServer::new(identity(), registry).with_extension(Arc::new(BridgeExtension::new(bridge))))
}

/// A random 128-bit token, as 32 lowercase hex digits.
pub fn generate_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_128_bit_hex_and_differ() {
        let a = super::generate_token().unwrap();
        let b = super::generate_token().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
