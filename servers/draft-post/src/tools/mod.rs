//! The tools of the draft-post server, one file each.

pub mod draft_post;
pub mod list_posts;

use std::sync::Arc;

use mcp_shared::reexports::rmcp::model::JsonObject;
use serde_json::Value;

/// A JSON schema literal as the registry wants it.
pub(crate) fn schema(value: Value) -> Option<Arc<JsonObject>> {
    value.as_object().cloned().map(Arc::new)
}
