//! The server's tools, one file each and one line each below: `text_editor` (Claude's tool,
//! byte-exact), `apply_patch` (Codex's), and the workspace tools. A profile ([`Profile`]) is the
//! set a model family is offered; `--tools` narrows it.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use crate::{editor::Editor, locks::FileLocks, workspace::EditorRoots};

/// What the tools share: one editor (its limits and change journals), one workspace, one set of
/// per-file locks for every tool that writes, and the flags that shape a tool.
pub struct Shared {
    /// The editor.
    pub editor: Arc<Editor>,
    /// The workspace.
    pub workspace: Arc<EditorRoots>,
    /// The per-file locks.
    pub locks: Arc<FileLocks>,
    /// `--tool-name`.
    pub tool_name: String,
    /// `--read-only`.
    pub read_only: bool,
    /// The tool the Changes view's Revert buttons call: `revert_changes`, when it is offered.
    pub revert_tool: Option<String>,
    /// The tool whose `undo_edit` the change view's Undo calls: the text editor's name, when it
    /// is offered and keeps an undo history.
    pub undo_tool: Option<String>,
}

mcp_shared::tools! {
    /// The server's tools that `offer` accepts, in `tools/list` order.
    pub fn all(s: &Shared) {
        text_editor => text_editor::TextEditor::with_locks(s.tool_name.clone(), Arc::clone(&s.editor), Arc::clone(&s.workspace), Arc::clone(&s.locks)).read_only(s.read_only).undo_via(s.undo_tool.clone()),
        apply_patch => apply_patch::ApplyPatch::new(Arc::clone(&s.editor), Arc::clone(&s.workspace)),
        search_text => search_text::SearchText::new(Arc::clone(&s.workspace), search_text::SearchLimits::of(s.editor.limits())),
        find_files => find_files::FindFiles::new(Arc::clone(&s.workspace)),
        move_file => move_file::MoveFile::new(Arc::clone(&s.editor), Arc::clone(&s.workspace), Arc::clone(&s.locks)).undo_via(s.undo_tool.clone()),
        delete_file => delete_file::DeleteFile::new(Arc::clone(&s.editor), Arc::clone(&s.workspace), Arc::clone(&s.locks)).undo_via(s.undo_tool.clone()),
        edit_file => edit_file::EditFile::new(Arc::clone(&s.editor), Arc::clone(&s.workspace), Arc::clone(&s.locks)).undo_via(s.undo_tool.clone()),
        read_files => read_files::ReadFiles::new(Arc::clone(&s.editor), Arc::clone(&s.workspace)),
        list_tree => list_tree::ListTree::new(Arc::clone(&s.workspace)),
        list_changes => list_changes::ListChanges::new(Arc::clone(&s.editor), Arc::clone(&s.workspace)).revert_via(s.revert_tool.clone()),
        revert_changes => revert_changes::RevertChanges::new(Arc::clone(&s.editor), Arc::clone(&s.workspace)),
    }
}

/// Which model family's tools the server offers (`--profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Profile {
    /// Claude's `text_editor` and the workspace tools (today's set).
    #[default]
    Claude,
    /// Codex's `apply_patch` (codex-cli 0.171.0), with the workspace's read and search tools and
    /// the change journal's.
    Codex,
}

impl Profile {
    /// The profile's name, as `--profile` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Claude => "claude",
            Profile::Codex => "codex",
        }
    }

    /// The tools the profile offers, in `tools/list` order (a subset of [`NAMES`]).
    pub fn tools(self) -> Vec<&'static str> {
        let offered: &dyn Fn(&str) -> bool = match self {
            // Every tool but the other families' editing tools.
            Profile::Claude => &|name| name != "apply_patch",
            Profile::Codex => &|name| {
                matches!(
                    name,
                    "apply_patch"
                        | "read_files"
                        | "search_text"
                        | "find_files"
                        | "list_tree"
                        | "list_changes"
                        | "revert_changes"
                )
            },
        };
        NAMES.iter().copied().filter(|name| offered(name)).collect()
    }
}

/// Sets its flag when dropped: held by a call's future, so that a call that timed out or was
/// cancelled (its future dropped) tells its blocking work to write nothing.
pub(crate) struct AbandonOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}
