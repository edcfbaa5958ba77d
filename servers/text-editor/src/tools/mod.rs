//! The server's tools: `text_editor` (Claude's tool, byte-exact), and the workspace tools
//! `search_text`, `find_files` (`--tools` chooses which are offered).

pub mod find_files;
pub mod search_text;
pub mod text_editor;
