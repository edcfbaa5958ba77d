//! The commands of Claude's `text_editor` tool, by their wire names: what the editor carries out
//! and what its errors name (a module of its own, below both).

/// The commands of the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// Show a file (`cat -n`) or a directory (two levels).
    View,
    /// Create a new file.
    Create,
    /// Replace one unique occurrence of a string.
    StrReplace,
    /// Insert text after a line.
    Insert,
    /// Undo the last edit of a file.
    UndoEdit,
}

impl Command {
    /// Every command, in the order the tool lists them.
    pub const ALL: [Command; 5] =
        [Command::View, Command::Create, Command::StrReplace, Command::Insert, Command::UndoEdit];

    /// The wire name, e.g. `str_replace`.
    pub fn as_str(self) -> &'static str {
        match self {
            Command::View => "view",
            Command::Create => "create",
            Command::StrReplace => "str_replace",
            Command::Insert => "insert",
            Command::UndoEdit => "undo_edit",
        }
    }

    /// The command named `name`.
    pub fn parse(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.as_str() == name)
    }
}
