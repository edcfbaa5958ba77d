//! The tools of the draft-post server, one file each.

pub mod draft_post;
pub mod list_posts;
pub mod rules;
