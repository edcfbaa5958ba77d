//! The server's tools: `text_editor` (Claude's tool, byte-exact), and the workspace tools
//! `search_text`, `find_files`, `move_file`, `delete_file` (`--tools` chooses which are offered).

pub mod delete_file;
pub mod edit_file;
pub mod find_files;
pub mod list_tree;
pub mod move_file;
pub mod read_files;
pub mod search_text;
pub mod text_editor;
