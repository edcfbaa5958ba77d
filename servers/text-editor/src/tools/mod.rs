//! The server's one tool.

pub mod text_editor;
