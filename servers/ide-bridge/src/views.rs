//! The MCP Apps views of the bridge: `rename_symbol`'s preview (each file's diff, and **Apply**:
//! the same call with `apply: true`) and `get_diagnostics`' problems (grouped by file, errors
//! first, with counts). Both show the result's structured content: they need no data of their own.

use mcp_shared::view::View;

/// `rename_symbol`'s view.
pub static RENAME: View =
    View { uri: "ui://ide-bridge/rename", title: "Rename preview", body: include_str!("../views/rename.html") };

/// `get_diagnostics`' view.
pub static DIAGNOSTICS: View =
    View { uri: "ui://ide-bridge/diagnostics", title: "Problems", body: include_str!("../views/diagnostics.html") };
