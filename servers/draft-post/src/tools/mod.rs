//! The tools of the draft-post server, one file each and one line each below; `rules` holds
//! what their parameters share.

use std::sync::Arc;

use crate::workspace::Places;

pub mod rules;

mcp_shared::tools! {
    /// The server's tools that `offer` accepts, in `tools/list` order.
    pub fn all(places: &Arc<Places>) {
        draft_post => draft_post::DraftPost::new(Arc::clone(places)),
        list_posts => list_posts::ListPosts::new(Arc::clone(places)),
    }
}
