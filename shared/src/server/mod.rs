//! The one rmcp `ServerHandler` that serves any [`ToolRegistry`].
//!
//! It enforces, for every tool of every server: argument validation (in the registry), a per-call
//! timeout (`TIMEOUT`), `notifications/cancelled` (the tool's task is aborted and no result is
//! sent), a caught panic (`INTERNAL_ERROR`, and the server lives on), and an unknown tool name
//! (JSON-RPC error -32602 listing the known names). Prompts and resources come from an optional
//! [`ServerExtension`].

use std::{borrow::Cow, sync::Arc, time::Duration};

use futures::StreamExt;
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    model::{
        CacheScope, CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, DiscoverResult,
        GetPromptRequestParams, GetPromptResponse, Implementation, JsonObject, ListPromptsResult,
        ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, PromptsCapability,
        ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ResourcesCapability, ServerCapabilities,
        ServerConfig, SubscriptionFilter, ToolsCapability,
    },
    service::{NotificationContext, RequestContext, SubscriptionContext},
};
use serde_json::json;

use crate::{call_log::CallLog, client_roots::ClientRoots, registry::ToolRegistry, subscriptions::Subscriptions};

mod call;
mod listen;
mod malformed;

use malformed::KNOWN_METHODS;

/// The protocol versions every server accepts: `initialize` answers with the client's version
/// when it is one of the four that have the handshake, else with 2025-11-25; 2026-07-28 is
/// stateless (no `initialize`: `server/discover`, and the version in every request's `_meta`).
pub const SUPPORTED_PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// Who the server is: name and version for `initialize`, and `instructions` for the model.
#[derive(Debug, Clone)]
pub struct ServerIdentity {
    /// The binary's name, e.g. `mcp-server-sample-tool` (never "rmcp").
    pub name: String,
    /// The crate version.
    pub version: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// Where a person learns more (its README), announced in `serverInfo.websiteUrl`.
    pub website_url: Option<String>,
    /// Tells a model what the server is for and how to use it.
    pub instructions: String,
}

pub use crate::extension::{NoExtension, ServerExtension};

/// Per-server settings of the handler.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// The per-call timeout (flag `--tool-timeout`, default [`DEFAULT_TOOL_TIMEOUT`]).
    pub tool_timeout: Duration,
    /// The call log (flag `--audit-log`), if any.
    pub call_log: Option<Arc<CallLog>>,
    /// Whether tools show their MCP Apps views (false with `--no-views`).
    pub views: bool,
}

/// The default `--tool-timeout`.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings { tool_timeout: DEFAULT_TOOL_TIMEOUT, call_log: None, views: true }
    }
}

/// Who sent a request over HTTP, as the token check found it (an extension of the request).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller(pub String);

/// The client's address over HTTP (an extension of the request, set by the listener).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub std::net::SocketAddr);

/// The rmcp `ServerHandler` for a registry. Cheap to clone (one per HTTP session).
#[derive(Clone)]
pub struct McpServer {
    identity: Arc<ServerIdentity>,
    registry: Arc<ToolRegistry>,
    extension: Arc<dyn ServerExtension>,
    settings: ServerSettings,
    roots: Arc<ClientRoots>,
    subscriptions: Arc<Subscriptions>,
    /// Open `subscriptions/listen` streams, at most [`MAX_LISTENS`] at once.
    listens: Arc<tokio::sync::Semaphore>,
}

/// The most `subscriptions/listen` streams open at once, across clients.
pub const MAX_LISTENS: usize = 256;

/// The most resources one `subscriptions/listen` stream follows.
pub const MAX_LISTEN_RESOURCES: usize = 64;

impl McpServer {
    /// A server for `registry`, announcing `identity`.
    pub fn new(identity: ServerIdentity, registry: ToolRegistry) -> Self {
        McpServer {
            identity: Arc::new(identity),
            registry: Arc::new(registry),
            extension: Arc::new(NoExtension),
            settings: ServerSettings::default(),
            roots: Arc::default(),
            subscriptions: Arc::default(),
            listens: Arc::new(tokio::sync::Semaphore::new(MAX_LISTENS)),
        }
    }

    /// Adds prompts, resources and the other [`ServerExtension`] hooks.
    pub fn with_extension(mut self, extension: Arc<dyn ServerExtension>) -> Self {
        self.extension = extension;
        self
    }

    /// Sets the handler's settings (timeout).
    pub fn with_settings(mut self, settings: ServerSettings) -> Self {
        self.settings = settings;
        self
    }

    /// When stdin is a terminal, says on stderr what this server is, what it offers (its tools
    /// and prompts, as listed) and how to register it ([`crate::logging::banner_if_terminal`]).
    pub fn banner(&self, summary: &str, example_args: &[String]) {
        let tools = self.registry.names();
        let prompts: Vec<String> = self.extension.prompts().into_iter().map(|prompt| prompt.name).collect();
        let prompts: Vec<&str> = prompts.iter().map(String::as_str).collect();
        crate::logging::banner_if_terminal(&crate::logging::Banner {
            name: &self.identity.name,
            version: &self.identity.version,
            summary,
            offers: crate::logging::Offers { tools: &tools, prompts: &prompts },
            example_args,
        });
    }

    /// The views of the tools offered, each once (none with `--no-views`).
    fn views(&self) -> Vec<&'static crate::view::View> {
        let mut views: Vec<&'static crate::view::View> = Vec::new();
        if self.settings.views {
            for view in self.registry.tools().filter_map(crate::registry::RegisteredTool::view) {
                if !views.iter().any(|known| known.uri == view.uri) {
                    views.push(view);
                }
            }
        }
        views
    }

    /// The listed descriptor of the tool called `name`, if the registry has it.
    pub(crate) fn tool_descriptor(&self, name: &str) -> Option<&rmcp::model::Tool> {
        self.registry.get(name).map(|tool| tool.descriptor())
    }

    /// The registry served.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The identity announced.
    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    /// Whether a call of tool `name` with `arguments` can change something ([`Tool::call_writes`]):
    /// with OAuth, it then needs the write scope. An unknown tool changes nothing (it fails).
    pub fn call_writes(&self, name: &str, arguments: Option<&JsonObject>) -> bool {
        self.registry.get(name).is_some_and(|tool| tool.call_writes(arguments))
    }
}

/// The `_meta` key of the server's identity in 2026-07-28 results.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

impl McpServer {
    /// For a 2026-07-28 request, the result's `_meta` with the server's identity
    /// (`io.modelcontextprotocol/serverInfo`), which that revision's results carry.
    fn stamp(&self, meta: &mut Option<rmcp::model::MetaObject>, context: &RequestContext<RoleServer>) {
        if !is_stateless(context) {
            return;
        }
        let mut info = json!({"name": self.identity.name, "version": self.identity.version});
        if let Some(title) = &self.identity.title {
            info["title"] = json!(title);
        }
        if let Some(url) = &self.identity.website_url {
            info["websiteUrl"] = json!(url);
        }
        meta.get_or_insert_default().insert(SERVER_INFO_KEY.to_owned(), info);
    }
}

/// How long (ms) a 2026-07-28 client may cache what does not change while the process runs
/// (`tools/list` of a fixed registry, prompts, resource templates, `server/discover`).
pub const STATIC_TTL_MS: u64 = 300_000;

/// Whether the request is of the stateless revision (2026-07-28 or later), which has no session
/// and cannot be sent requests.
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// Whether notifications sent later reach the client: stdio, or an HTTP request of a session
/// (not `--stateless`, not 2026-07-28).
fn has_session(context: &RequestContext<RoleServer>) -> bool {
    if is_stateless(context) {
        return false;
    }
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .is_none_or(|parts| parts.headers.contains_key("mcp-session-id"))
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let lists_change = self.extension.lists_change().then_some(true);
        let mut capabilities = ServerCapabilities::default();
        let mut tools = ToolsCapability::default();
        tools.list_changed = lists_change;
        capabilities.tools = Some(tools);
        capabilities.logging = Some(JsonObject::new());
        if !self.extension.prompts().is_empty() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if self.extension.has_resources() || !self.views().is_empty() {
            let mut resources = ResourcesCapability::default();
            resources.list_changed = lists_change;
            resources.subscribe = self.extension.has_subscriptions().then_some(true);
            capabilities.resources = Some(resources);
        }
        if !self.views().is_empty() {
            let mut extensions = rmcp::model::ExtensionCapabilities::new();
            extensions.insert(crate::view::EXTENSION.to_owned(), JsonObject::new());
            capabilities.extensions = Some(extensions);
        }
        let mut implementation = Implementation::new(self.identity.name.clone(), self.identity.version.clone());
        implementation.title = self.identity.title.clone();
        implementation.website_url = self.identity.website_url.clone();
        let mut info = ServerConfig::new(capabilities);
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info.server_info = implementation;
        info.instructions = Some(self.identity.instructions.clone());
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_PROTOCOL_VERSIONS)
    }

    async fn discover(&self, _context: RequestContext<RoleServer>) -> Result<DiscoverResult, McpError> {
        // The instructions name this machine's directories: for this client only.
        let mut result = DiscoverResult::from_server_info(SUPPORTED_PROTOCOL_VERSIONS.to_vec(), self.get_info());
        result.ttl_ms = STATIC_TTL_MS;
        result.cache_scope = CacheScope::Private;
        Ok(result)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut tools = self.registry.list();
        if !self.settings.views {
            for tool in &mut tools {
                if let Some(meta) = tool.meta.as_mut() {
                    crate::view::strip_tool_meta(meta);
                    if meta.0.is_empty() {
                        tool.meta = None;
                    }
                }
            }
        }
        let mut result = ListToolsResult::with_all_items(self.extension.list_tools(tools).await);
        if is_stateless(&context) && !self.extension.lists_change() {
            // The same for every client while the process runs.
            result.ttl_ms = Some(STATIC_TTL_MS);
            result.cache_scope = Some(CacheScope::Public);
        }
        self.stamp(&mut result.meta, &context);
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.registry.get(name).map(|t| t.descriptor().clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call_tool_logged(request, context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let mut result = ListPromptsResult::with_all_items(self.extension.prompts());
        if is_stateless(&context) {
            result.ttl_ms = Some(STATIC_TTL_MS);
            result.cache_scope = Some(CacheScope::Public);
        }
        self.stamp(&mut result.meta, &context);
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let mut result = self.extension.get_prompt(&request.name, request.arguments)?;
        self.stamp(&mut result.meta, &context);
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        // The views are found through their tools (`_meta.ui.resourceUri`) and read by URI; the
        // MCP Apps spec lets a server leave them out of the list, where a host would offer them
        // to the user as things to attach.
        let mut result = if self.extension.has_resources() {
            self.extension.list_resources(cursor).await?
        } else {
            ListResourcesResult::default()
        };
        self.stamp(&mut result.meta, &context);
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let mut result = self.extension.list_resource_templates();
        if is_stateless(&context) {
            result.ttl_ms = Some(STATIC_TTL_MS);
            result.cache_scope = Some(CacheScope::Public);
        }
        self.stamp(&mut result.meta, &context);
        Ok(result)
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        if !self.extension.lists_change() && !self.extension.has_subscriptions() {
            return None;
        }
        let mut accepted = SubscriptionFilter::new();
        if self.extension.lists_change() {
            accepted.tools_list_changed = requested.tools_list_changed;
            accepted.resources_list_changed = requested.resources_list_changed;
        }
        // Each resource once (duplicates would crowd others out of the cut), then the cut.
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            let mut seen = std::collections::HashSet::new();
            uris.iter()
                .filter(|uri| self.extension.subscribable(uri) && seen.insert(uri.as_str()))
                .take(MAX_LISTEN_RESOURCES)
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        self.listen_until_cancelled(context).await
    }

    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if !self.extension.subscribable(&request.uri) {
            return Err(McpError::invalid_params(
                format!(
                    "`{}` cannot be subscribed to: only resources that change while the server runs can (see resources/list).",
                    request.uri
                ),
                None,
            ));
        }
        if !has_session(&context) {
            return Err(McpError::invalid_request(
                "resources/subscribe needs a session to send notifications/resources/updated to: use stdio or an HTTP session; at 2026-07-28, open subscriptions/listen with resourceSubscriptions instead.",
                None,
            ));
        }
        self.subscriptions.subscribe(context.peer, request.uri, self.extension.resource_updates())
    }

    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.unsubscribe(&context.peer, &request.uri);
        Ok(())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let view = self.views().into_iter().find(|view| view.uri == request.uri);
        let mut result = match view {
            Some(view) => view.read(),
            None => self.extension.read_resource(request.uri).await?,
        };
        self.stamp(&mut result.meta, &context);
        Ok(result.into())
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Accepted, as the `logging` capability promises; the log goes to stderr, filtered by
        // `RUST_LOG`, and the server sends no `notifications/message`.
        tracing::debug!(level = ?request.level, "client set the logging level");
        Ok(())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        // rmcp turns a request of a known method whose params do not parse into a "custom"
        // request; answering "method not found" would send a model looking for the wrong mistake.
        match request.method.as_str() {
            "tools/call" => {
                // A result of the session's own revision: `resultType` is 2026-07-28's (rmcp
                // strips it from typed results for older peers, not from a custom one).
                let current = context
                    .protocol_version()
                    .is_some_and(|v| v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str());
                self.malformed_tool_call(request.params.as_ref())
                    .map(|mut result| {
                        if !current && let Some(object) = result.as_object_mut() {
                            object.remove("resultType");
                        }
                        result
                    })
                    .map(CustomResult)
            }
            method if KNOWN_METHODS.contains(&method) => Err(McpError::invalid_params(
                format!("Invalid params for `{method}`: they do not match the MCP schema of this method."),
                None,
            )),
            method => Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                None,
            )),
        }
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        tracing::debug!("client initialized");
        if self.extension.lists_change() {
            // A session hears of changes as notifications until it ends.
            let mut changes = self.extension.changes();
            let peer = context.peer;
            let resources = self.extension.has_resources();
            tokio::spawn(async move {
                while changes.next().await.is_some() {
                    let sent = match peer.notify_tool_list_changed().await {
                        Ok(()) if resources => peer.notify_resource_list_changed().await,
                        other => other,
                    };
                    if sent.is_err() {
                        break;
                    }
                }
            });
        }
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.roots.invalidate(&context.peer);
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use rmcp::model::ToolAnnotations;
    use serde::Deserialize;

    use super::*;
    use crate::registry::Tool;
    use crate::{error::ErrorCode, output::ToolOutput, registry::ToolContext};

    #[derive(Deserialize, schemars::JsonSchema, garde::Validate)]
    struct Mode {
        /// What to do.
        #[garde(skip)]
        mode: String,
    }

    struct Misbehaving;
    impl Tool for Misbehaving {
        type Params = Mode;
        fn name(&self) -> Cow<'static, str> {
            "misbehave".into()
        }
        fn description(&self) -> Cow<'static, str> {
            "panics or hangs".into()
        }
        fn annotations(&self) -> ToolAnnotations {
            ToolAnnotations::with_title("Test tool")
        }
        async fn run(&self, params: Mode, _ctx: ToolContext) -> crate::ToolResult {
            match params.mode.as_str() {
                "panic" => panic!("boom at /secret/path.rs"),
                "hang" => std::future::pending().await,
                _ => Ok(ToolOutput::text("fine")),
            }
        }
    }

    fn server(timeout: Duration) -> McpServer {
        let mut registry = ToolRegistry::new();
        registry.register(Misbehaving).unwrap();
        let identity = ServerIdentity {
            name: "t".into(),
            version: "0".into(),
            title: None,
            website_url: None,
            instructions: "i".into(),
        };
        McpServer::new(identity, registry).with_settings(ServerSettings {
            tool_timeout: timeout,
            call_log: None,
            views: true,
        })
    }

    fn args(mode: &str) -> Option<JsonObject> {
        json!({ "mode": mode }).as_object().cloned()
    }

    #[tokio::test]
    async fn a_panic_becomes_internal_error_without_details_and_the_server_lives_on() {
        let server = server(Duration::from_secs(5));
        let out = server.call("misbehave", args("panic"), ToolContext::detached()).await.unwrap();
        let error = out.error_item().unwrap();
        assert_eq!(error.code, ErrorCode::InternalError);
        assert!(!error.message.contains("secret") && !error.message.contains("boom"), "{}", error.message);
        let out = server.call("misbehave", args("ok"), ToolContext::detached()).await.unwrap();
        assert!(!out.is_error());
    }

    #[tokio::test(start_paused = true)]
    async fn a_hanging_tool_is_cut_by_the_timeout() {
        let server = server(Duration::from_secs(2));
        let ctx = ToolContext::detached();
        let out = server.call("misbehave", args("hang"), ctx.clone()).await.unwrap();
        assert_eq!(out.error_item().unwrap().code, ErrorCode::Timeout);
        assert!(ctx.is_cancelled(), "the tool's token is cancelled on timeout");
    }

    #[tokio::test]
    async fn cancellation_stops_the_call() {
        let server = server(Duration::from_secs(60));
        let ctx = ToolContext::detached();
        let token = ctx.cancellation().clone();
        let call = tokio::spawn({
            let server = server.clone();
            async move { server.call("misbehave", args("hang"), ctx).await }
        });
        token.cancel();
        let out = call.await.unwrap().unwrap();
        assert_eq!(out.error_item().unwrap().code, ErrorCode::Cancelled);
    }

    #[tokio::test]
    async fn unknown_tools_are_none_and_info_names_the_server() {
        let server = server(Duration::from_secs(1));
        assert!(server.call("nope", None, ToolContext::detached()).await.is_none());
        let info = server.get_info();
        assert_eq!(info.server_info.name, "t");
        assert_eq!(info.instructions.as_deref(), Some("i"));
        assert!(info.capabilities.tools.is_some());
        assert!(info.capabilities.prompts.is_none());
    }
}

/// A tool for the shared crate's tests.
#[cfg(test)]
pub(crate) mod tests_support;
