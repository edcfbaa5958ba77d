//! The MCP Apps views of the text editor's tools: the change view (`change.rs`: one edit, move
//! or deletion, with its diff and Undo) and the Changes view (`changes.rs`: `list_changes` and
//! `revert_changes`, grouped by file, with Revert buttons held to what they show).

pub mod change;
pub mod changes;
