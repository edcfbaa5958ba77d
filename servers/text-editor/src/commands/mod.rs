//! The five commands, one file each, as methods of [`crate::Editor`].

pub mod create;
pub mod files;
pub mod insert;
pub mod str_replace;
pub mod undo_edit;
pub mod view;
