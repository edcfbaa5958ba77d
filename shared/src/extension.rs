//! What a server adds to its tools: prompts, resources, live tool lists, subscribable resources,
//! the use of client roots ([`ServerExtension`]); the [`McpServer`](crate::McpServer) handler
//! asks it.

use futures::{future::BoxFuture, stream::BoxStream};
use rmcp::{
    ErrorData as McpError,
    model::{
        GetPromptResult, JsonObject, ListResourceTemplatesResult, ListResourcesResult, Prompt, ReadResourceResult,
    },
};

/// Prompts, resources, live tool lists and the use of client roots a server may add to its tools.
///
/// Every method has a default that offers nothing, so a server implements only what it has.
pub trait ServerExtension: Send + Sync + 'static {
    /// The prompts (`prompts/list`); non-empty enables the prompts capability.
    fn prompts(&self) -> Vec<Prompt> {
        Vec::new()
    }

    /// `prompts/get`.
    fn get_prompt(&self, name: &str, _arguments: Option<JsonObject>) -> Result<GetPromptResult, McpError> {
        Err(McpError::invalid_params(format!("unknown prompt `{name}`"), None))
    }

    /// Whether the server offers resources (enables the resources capability).
    fn has_resources(&self) -> bool {
        false
    }

    /// `resources/list`, with the client's pagination cursor.
    fn list_resources(&self, _cursor: Option<String>) -> BoxFuture<'_, Result<ListResourcesResult, McpError>> {
        Box::pin(async { Ok(ListResourcesResult::default()) })
    }

    /// `resources/templates/list`.
    fn list_resource_templates(&self) -> ListResourceTemplatesResult {
        ListResourceTemplatesResult::default()
    }

    /// `resources/read`.
    fn read_resource(&self, uri: String) -> BoxFuture<'_, Result<ReadResourceResult, McpError>> {
        Box::pin(async move { Err(McpError::resource_not_found(format!("unknown resource `{uri}`"), None)) })
    }

    /// `tools/list`: the registry's descriptors, adjusted to the server's current state (e.g. a
    /// backend that is read-only right now). By default they are listed unchanged.
    fn list_tools(&self, tools: Vec<rmcp::model::Tool>) -> BoxFuture<'_, Vec<rmcp::model::Tool>> {
        Box::pin(async move { tools })
    }

    /// Whether the tools narrow their workspace to the client's MCP roots
    /// ([`crate::client_roots`]). When true, a 2026-07-28 `tools/call` from a client that
    /// declares roots is first answered with an `InputRequiredResult` asking for them.
    fn uses_client_roots(&self) -> bool {
        false
    }

    /// Whether `tools/list` and `resources/list` change while the server runs (a live backend
    /// that comes and goes). When true, the server advertises `listChanged`, sends
    /// `notifications/tools/list_changed` and `notifications/resources/list_changed` on every
    /// item of [`Self::changes`] (in a session, and to a 2026-07-28 `subscriptions/listen`), and
    /// marks `tools/list` as not cacheable (`ttlMs: 0`).
    fn lists_change(&self) -> bool {
        false
    }

    /// Yields whenever the tools or resources lists may have changed; ends with the server.
    fn changes(&self) -> BoxStream<'static, ()> {
        Box::pin(futures::stream::empty())
    }

    /// Whether a client may subscribe to `uri` (`resources/subscribe`, or a 2026-07-28
    /// subscription's `resourceSubscriptions`): only resources whose changes
    /// [`Self::resource_updates`] reports. When any is, the server advertises `subscribe`.
    fn subscribable(&self, _uri: &str) -> bool {
        false
    }

    /// Whether any resource is subscribable (the `resources.subscribe` capability).
    fn has_subscriptions(&self) -> bool {
        false
    }

    /// Yields the URI of each subscribable resource that changed; ends with the server.
    fn resource_updates(&self) -> BoxStream<'static, String> {
        Box::pin(futures::stream::empty())
    }
}

/// The extension that offers nothing.
pub struct NoExtension;
impl ServerExtension for NoExtension {}
