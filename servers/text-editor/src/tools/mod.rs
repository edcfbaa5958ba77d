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

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

/// Sets its flag when dropped: held by a call's future, so that a call that timed out or was
/// cancelled (its future dropped) tells its blocking work to write nothing.
pub(crate) struct AbandonOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}
