//! The tool registry: a typed [`Tool`] trait and a [`ToolRegistry`] that refuses
//! duplicate names.
//!
//! A tool declares its parameters as a struct deriving `Deserialize + JsonSchema + garde::Validate`;
//! the registry generates the input schema from it and turns any deserialisation or validation
//! failure into an `INVALID_ARGS` result that names the field and what was expected, so `run`
//! only ever sees valid parameters.

use std::{
    borrow::Cow,
    collections::HashMap,
    future::Future,
    sync::{Arc, OnceLock},
};

use futures::future::BoxFuture;
use rmcp::{
    RoleServer,
    model::{JsonObject, ProgressNotificationParam, ProgressToken, ToolAnnotations},
    service::Peer,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{
    client_roots::CallRoots,
    error::ErrorCode,
    output::{ToolError, ToolOutput},
    schema,
};

/// What a tool's `run` gives: its result, or the failure a model can act on (an `isError`
/// result with the failure's code).
pub type ToolResult = Result<ToolOutput, ToolError>;

/// A tool, declared once, in its own file: its name, description, annotations (whose `title` is
/// the tool's title), typed parameters (the input schema is derived from them), whether a call
/// writes, what the server's instructions and guide say of it, and an async `run`. Everything
/// that lists tools (`tools/list`, `--tools`, banners, the guide, the manifests) reads it from
/// the registry.
pub trait Tool: Send + Sync + 'static {
    /// The parameters, deserialised from the call's `arguments` and validated with `garde`.
    type Params: DeserializeOwned + JsonSchema + garde::Validate<Context = ()> + Send + 'static;

    /// The tool's name, unique within a registry.
    fn name(&self) -> Cow<'static, str>;

    /// What the tool does, for the model (it becomes `tools/list`'s `description`).
    fn description(&self) -> Cow<'static, str>;

    /// MCP annotations: the title a person reads (`tools/list`'s `title` too; hosts such as
    /// VS Code show it instead of the name) and the read-only, destructive, idempotent and
    /// open-world hints.
    fn annotations(&self) -> ToolAnnotations;

    /// The input schema; by default generated from [`Self::Params`] by [`schema::input`].
    /// Whatever this returns, the registry lists it flat and standard ([`schema::standardise`]).
    fn input_schema(&self) -> Arc<JsonObject> {
        schema::input::<Self::Params>()
    }

    /// The output schema, for tools whose results carry structured content: derive it from the
    /// output type with [`schema::output`]. The registry adds the error result's branch
    /// ([`schema::with_error_branch`]), so the tool declares only its success shape.
    fn output_schema(&self) -> Option<Arc<JsonObject>> {
        None
    }

    /// Turns the raw `arguments` into parameters. The default deserialises with serde (the error
    /// names the field path) and validates with garde; both failures are `INVALID_ARGS`.
    /// A tool whose contract classifies bad input more finely overrides this.
    fn parse(&self, arguments: Option<JsonObject>) -> Result<Self::Params, ToolError> {
        parse_params::<Self::Params>(&self.name(), arguments)
    }

    /// Whether a call with these raw `arguments` can change something (with OAuth it then needs
    /// the write scope; `--read-only` servers leave such tools out). By default, whether the
    /// tool is not annotated read-only; a tool whose commands differ (the text editor's `view`
    /// changes nothing) decides per call.
    fn call_writes(&self, arguments: Option<&JsonObject>) -> bool {
        let _ = arguments;
        self.annotations().read_only_hint != Some(true)
    }

    /// What the server's `instructions` say of the tool when it is offered: a sentence or two,
    /// or nothing.
    fn instructions(&self) -> Option<Cow<'static, str>> {
        None
    }

    /// The tool's section of the server's guide (a prompt), if the server has one.
    fn guide(&self) -> Option<Cow<'static, str>> {
        None
    }

    /// The tool's MCP Apps view, if it has one ([`crate::view`]): the tool is listed with its
    /// `ui://` URI and the server serves its HTML. The data it shows goes in the results with
    /// [`ToolOutput::with_view`].
    fn view(&self) -> Option<&'static crate::view::View> {
        None
    }

    /// Whether the tool is a core tool a host should load up front, never defer behind a tool
    /// search: listed with `_meta["anthropic/alwaysLoad"]: true` (Claude Code reads it).
    fn always_load(&self) -> bool {
        false
    }

    /// Runs the tool. A failure is an `Err` (an `isError` result with its code); a panic is
    /// still caught by the server and becomes `INTERNAL_ERROR`.
    fn run(&self, params: Self::Params, ctx: ToolContext) -> impl Future<Output = ToolResult> + Send;
}

/// Runs `work` on the blocking pool (file-system work, off the runtime's threads). A panic in it
/// is logged with what was being done and is an `INTERNAL_ERROR` that says `what` failed.
pub async fn blocking<T, F>(what: &str, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(work).await.map_err(|error| {
        tracing::error!(%error, what, "blocking work failed");
        ToolError::new(ErrorCode::InternalError, format!("{what} failed unexpectedly; the server logged the details."))
    })
}

/// The default argument parsing of [`Tool::parse`]: serde with the failing field's path, then garde.
pub fn parse_params<P>(tool: &str, arguments: Option<JsonObject>) -> Result<P, ToolError>
where
    P: DeserializeOwned + garde::Validate<Context = ()>,
{
    let value = serde_json::Value::Object(arguments.unwrap_or_default());
    let params: P = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let at_root = path == "." || path.is_empty();
        // serde reports a missing field at its parent (`args`: missing field `y`); name the
        // field itself (`args.y`), which is what a model has to add.
        let missing = inner.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`'));
        let message = match (missing, at_root) {
            (Some(field), true) => format!("field `{field}` is missing"),
            (Some(field), false) => format!("field `{path}.{field}` is missing"),
            (None, true) => inner,
            (None, false) => format!("field `{path}`: {inner}"),
        };
        ToolError::invalid_args(format!(
            "Invalid arguments for `{tool}`: {message}. Check the tool's input schema and call it again."
        ))
    })?;
    params.validate().map_err(|report| {
        let details: Vec<String> = report
            .iter()
            .map(|(path, error)| {
                let path = path.to_string();
                if path.is_empty() { error.to_string() } else { format!("field `{path}`: {error}") }
            })
            .collect();
        ToolError::invalid_args(format!("Invalid arguments for `{tool}`: {}.", details.join("; ")))
    })?;
    Ok(params)
}

/// A `deserialize_with` for a nested struct field that must be a JSON object:
/// `#[serde(deserialize_with = "mcp_shared::registry::object")]`.
///
/// serde's derived `Deserialize` of a struct also takes an array of its fields in order
/// (`[1, 2]` as `{x: 1, y: 2}`), which the schema does not allow and a model should be told
/// about; this refuses anything but an object, and a field inside it is still named in the
/// error (`args.x`). Set the struct's `#[serde(expecting = "..")]` to word the refusal.
pub fn object<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    /// Routes every request of `T`'s `Deserialize` to `deserialize_map`.
    struct ObjectOnly<D>(D);

    impl<'de, D: serde::Deserializer<'de>> serde::Deserializer<'de> for ObjectOnly<D> {
        type Error = D::Error;

        fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.deserialize_map(visitor)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
            unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
        }
    }

    T::deserialize(ObjectOnly(deserializer))
}

/// What a running tool can see of its call: cancellation, progress reporting, the client.
#[derive(Clone)]
pub struct ToolContext {
    cancellation: CancellationToken,
    progress_token: Option<ProgressToken>,
    peer: Option<Peer<RoleServer>>,
    roots: CallRoots,
    session: Option<Arc<str>>,
}

impl ToolContext {
    /// A context for a call made by `peer`, reporting progress under `progress_token`.
    pub fn new(
        cancellation: CancellationToken,
        progress_token: Option<ProgressToken>,
        peer: Option<Peer<RoleServer>>,
    ) -> Self {
        ToolContext { cancellation, progress_token, peer, roots: CallRoots::None, session: None }
    }

    /// Where the call's client roots come from (set by the server for each call).
    pub fn with_roots(mut self, roots: CallRoots) -> Self {
        self.roots = roots;
        self
    }

    /// The HTTP session the call belongs to (set by the server for each call).
    pub fn with_session(mut self, session: Option<Arc<str>>) -> Self {
        self.session = session;
        self
    }

    /// The `Mcp-Session-Id` of the HTTP session the call came in; `None` over stdio and for
    /// sessionless requests (`--stateless`, 2026-07-28), where the process is the session.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The client's MCP roots for this call ([`crate::client_roots`]): asked for once per
    /// session, or carried by a 2026-07-28 retry. `None` when the client declares none or did
    /// not answer: the server's configured places apply.
    #[allow(deprecated)] // MCP roots: deprecated by 2026-07-28, still part of it
    pub async fn client_roots(&self) -> Option<Arc<[rmcp::model::Root]>> {
        self.roots.get().await
    }

    /// A context with no client attached (unit tests, in-process use).
    pub fn detached() -> Self {
        ToolContext::new(CancellationToken::new(), None, None)
    }

    /// The token cancelled when the client cancels the call or the call times out.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether the call has been cancelled (by the client or the timeout).
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// The client, when the call came over MCP.
    pub fn peer(&self) -> Option<&Peer<RoleServer>> {
        self.peer.as_ref()
    }

    /// Sends a `notifications/progress` if the client asked for them; a no-op otherwise.
    /// A failure to send is logged, never fatal: progress is advisory.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let (Some(token), Some(peer)) = (&self.progress_token, &self.peer) else {
            return;
        };
        let mut param = ProgressNotificationParam::new(token.clone(), progress);
        param.total = total;
        param.message = message;
        if let Err(error) = peer.notify_progress(param).await {
            tracing::debug!(%error, "could not send a progress notification");
        }
    }
}

/// A tool with its parameter type erased, as the registry holds it.
trait DynTool: Send + Sync {
    fn call(self: Arc<Self>, arguments: Option<JsonObject>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput>;
    fn descriptor(&self) -> rmcp::model::Tool;
    fn call_writes(&self, arguments: Option<&JsonObject>) -> bool;
    fn instructions(&self) -> Option<Cow<'static, str>>;
    fn guide(&self) -> Option<Cow<'static, str>>;
    fn view(&self) -> Option<&'static crate::view::View>;
}

struct Typed<T>(T);

impl<T: Tool> DynTool for Typed<T> {
    fn call_writes(&self, arguments: Option<&JsonObject>) -> bool {
        self.0.call_writes(arguments)
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        self.0.instructions()
    }

    fn guide(&self) -> Option<Cow<'static, str>> {
        self.0.guide()
    }

    fn view(&self) -> Option<&'static crate::view::View> {
        self.0.view()
    }

    fn descriptor(&self) -> rmcp::model::Tool {
        let tool = &self.0;
        // Every schema goes through the shared rules here, whoever wrote it: a tool cannot list
        // a `$ref`, a non-standard format, or an output schema its own error results break.
        let input = schema::standardise(Value::Object(Arc::unwrap_or_clone(tool.input_schema())));
        let annotations = tool.annotations();
        let title = annotations.title.clone();
        let mut descriptor =
            rmcp::model::Tool::new(tool.name(), tool.description(), Arc::new(input)).with_annotations(annotations);
        descriptor.title = title;
        if let Some(view) = tool.view() {
            crate::view::tool_meta(descriptor.meta.get_or_insert_default(), view);
        }
        if tool.always_load() {
            descriptor.meta.get_or_insert_default().insert("anthropic/alwaysLoad".to_owned(), Value::Bool(true));
        }
        if let Some(output) = tool.output_schema() {
            let output = schema::with_error_branch(Arc::unwrap_or_clone(output));
            descriptor = descriptor.with_raw_output_schema(Arc::new(output));
        }
        descriptor
    }

    fn call(self: Arc<Self>, arguments: Option<JsonObject>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let result = match self.0.parse(arguments) {
                Ok(params) => self.0.run(params, ctx).await,
                Err(error) => Err(error),
            };
            result.unwrap_or_else(ToolError::into_output)
        })
    }
}

/// A registered tool: its MCP descriptor and a way to call it.
#[derive(Clone)]
pub struct RegisteredTool {
    name: Arc<str>,
    /// Built on first use (`tools/list`, a call over HTTP), not at start: generating and
    /// standardising the schemas is work a cold start does not need before its first answer.
    descriptor: Arc<OnceLock<rmcp::model::Tool>>,
    tool: Arc<dyn DynTool>,
}

impl RegisteredTool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The MCP descriptor (`tools/list` entry).
    pub fn descriptor(&self) -> &rmcp::model::Tool {
        self.descriptor.get_or_init(|| self.tool.descriptor())
    }

    /// Whether a call with `arguments` can change something ([`Tool::call_writes`]).
    pub fn call_writes(&self, arguments: Option<&JsonObject>) -> bool {
        self.tool.call_writes(arguments)
    }

    /// Whether the tool is annotated read-only: it is offered by a `--read-only` server.
    pub fn read_only(&self) -> bool {
        self.descriptor().annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
    }

    /// Its view ([`Tool::view`]).
    pub fn view(&self) -> Option<&'static crate::view::View> {
        self.tool.view()
    }

    /// What the server's instructions say of it ([`Tool::instructions`]).
    pub fn instructions(&self) -> Option<Cow<'static, str>> {
        self.tool.instructions()
    }

    /// Its section of the server's guide ([`Tool::guide`]).
    pub fn guide(&self) -> Option<Cow<'static, str>> {
        self.tool.guide()
    }

    /// Parses `arguments` and runs the tool. Timeouts, cancellation and panics are the caller's
    /// business (the server handles them, see [`crate::server`]).
    pub fn call(&self, arguments: Option<JsonObject>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        self.tool.clone().call(arguments, ctx)
    }
}

/// Why a registration was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    /// A tool of that name is already registered.
    #[error("a tool named `{0}` is already registered")]
    DuplicateName(String),
    /// The name is empty or has characters MCP clients reject.
    #[error("invalid tool name `{0}`: use 1-128 characters of A-Z a-z 0-9 _ - .")]
    InvalidName(String),
}

/// The tools of one server, in registration order.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<RegisteredTool>,
    index: HashMap<String, usize>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `tool`. A duplicate name is refused, never silently replaced.
    pub fn register<T: Tool>(&mut self, tool: T) -> Result<&mut Self, RegistryError> {
        let name = tool.name();
        let valid = !name.is_empty()
            && name.len() <= 128
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !valid {
            return Err(RegistryError::InvalidName(name.into_owned()));
        }
        if self.index.contains_key(name.as_ref()) {
            return Err(RegistryError::DuplicateName(name.into_owned()));
        }
        self.index.insert(name.clone().into_owned(), self.tools.len());
        self.tools.push(RegisteredTool {
            name: Arc::from(name.as_ref()),
            descriptor: Arc::new(OnceLock::new()),
            tool: Arc::new(Typed(tool)),
        });
        Ok(self)
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.index.get(name).and_then(|&i| self.tools.get(i))
    }

    /// Every tool's descriptor, in registration order.
    pub fn list(&self) -> Vec<rmcp::model::Tool> {
        self.tools.iter().map(|t| t.descriptor().clone()).collect()
    }

    /// Keeps the tools `keep` says yes to, in their order.
    pub fn retain(&mut self, mut keep: impl FnMut(&RegisteredTool) -> bool) {
        self.tools.retain(|tool| keep(tool));
        self.index = self.tools.iter().enumerate().map(|(i, tool)| (tool.name().to_owned(), i)).collect();
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &RegisteredTool> {
        self.tools.iter()
    }

    /// Every tool's name, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// Declares a server's tools, one line each (`module => how to make the tool`): the line is the
/// tool's registration, and its module is the tool's own file (`tools/module.rs`), named as the
/// tool is. It expands to the modules, [`NAMES`](#names) (the module names in order: what
/// `--tools` takes) and the function that registers the tools `offer` accepts, in that order:
///
/// ```ignore
/// mcp_shared::tools! {
///     pub fn registry(ctx: &Shared) {
///         hoge => hoge::Hoge,
///         countdown => countdown::Countdown::new(ctx),
///     }
/// }
/// ```
#[macro_export]
macro_rules! tools {
    ($(#[$attr:meta])* $vis:vis fn $name:ident($ctx:ident: $ty:ty) { $($module:ident => $make:expr),+ $(,)? }) => {
        $(pub mod $module;)+

        /// Every tool's module name (its default name), in registration order: what `--tools` takes.
        pub const NAMES: &[&str] = &[$(stringify!($module)),+];

        $(#[$attr])*
        $vis fn $name(
            $ctx: $ty,
            offer: impl Fn(&str) -> bool,
        ) -> ::std::result::Result<$crate::ToolRegistry, $crate::RegistryError> {
            let _ = &$ctx;
            let mut registry = $crate::ToolRegistry::new();
            $(if offer(stringify!($module)) {
                registry.register($make)?;
            })+
            Ok(registry)
        }
    };
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::output::ContentItem;

    #[derive(Deserialize, JsonSchema, garde::Validate)]
    struct EchoParams {
        /// The text to echo.
        #[garde(length(min = 1))]
        text: String,
        /// How many times.
        #[garde(range(min = 1, max = 3))]
        #[serde(default = "one")]
        times: u32,
    }
    fn one() -> u32 {
        1
    }

    struct Echo(&'static str);
    impl Tool for Echo {
        type Params = EchoParams;
        fn name(&self) -> Cow<'static, str> {
            self.0.into()
        }
        fn description(&self) -> Cow<'static, str> {
            "Echoes".into()
        }
        fn annotations(&self) -> ToolAnnotations {
            ToolAnnotations::with_title("Test tool").read_only(true)
        }
        async fn run(&self, params: EchoParams, _ctx: ToolContext) -> ToolResult {
            Ok(ToolOutput::text(params.text.repeat(params.times as usize)))
        }
    }

    fn args(v: serde_json::Value) -> Option<JsonObject> {
        v.as_object().cloned()
    }

    #[test]
    fn duplicate_names_are_refused() {
        let mut registry = ToolRegistry::new();
        registry.register(Echo("echo")).unwrap();
        assert_eq!(registry.register(Echo("echo")).err(), Some(RegistryError::DuplicateName("echo".into())));
        assert_eq!(registry.len(), 1);
        registry.register(Echo("echo2")).unwrap();
        assert_eq!(registry.names(), vec!["echo", "echo2"]);
        assert!(matches!(registry.register(Echo("bad name")), Err(RegistryError::InvalidName(_))));
        assert!(matches!(registry.register(Echo("")), Err(RegistryError::InvalidName(_))));
    }

    #[test]
    fn list_carries_schema_and_annotations() {
        let mut registry = ToolRegistry::new();
        registry.register(Echo("echo")).unwrap();
        let listed = serde_json::to_value(registry.list()).unwrap();
        assert_eq!(listed[0]["name"], "echo");
        assert_eq!(listed[0]["annotations"]["readOnlyHint"], true);
        assert_eq!(listed[0]["inputSchema"]["type"], "object");
        assert_eq!(listed[0]["inputSchema"]["properties"]["text"]["description"], "The text to echo.");
        assert!(registry.get("echo").is_some());
        assert!(registry.get("nope").is_none());
    }

    // The fields are only deserialised (and printed on failure).
    #[derive(Debug, Deserialize, garde::Validate)]
    #[allow(dead_code)]
    struct Outer {
        #[garde(skip)]
        #[serde(deserialize_with = "object")]
        inner: Inner,
    }
    #[derive(Debug, Deserialize)]
    #[serde(expecting = "an object with a number `n`")]
    #[allow(dead_code)]
    struct Inner {
        n: u8,
    }

    #[test]
    fn nested_fields_are_named_and_arrays_are_not_objects() {
        let message = |v: serde_json::Value| match parse_params::<Outer>("t", args(v)) {
            Ok(p) => panic!("accepted: {p:?}"),
            Err(error) => (error.code, error.message),
        };
        let (code, missing) = message(json!({"inner": {}}));
        assert_eq!(code, ErrorCode::InvalidArgs);
        assert!(missing.contains("field `inner.n` is missing"), "{missing}");
        let (_, array) = message(json!({"inner": [1]}));
        assert!(array.contains("field `inner`") && array.contains("an object with a number `n`"), "{array}");
        let (_, wrong) = message(json!({"inner": {"n": "x"}}));
        assert!(wrong.contains("field `inner.n`"), "{wrong}");
        let (_, top) = message(json!({}));
        assert!(top.contains("field `inner` is missing"), "{top}");
        assert!(parse_params::<Outer>("t", args(json!({"inner": {"n": 1}}))).is_ok());
    }

    #[tokio::test]
    async fn calls_parse_validate_and_run() {
        let mut registry = ToolRegistry::new();
        registry.register(Echo("echo")).unwrap();
        let tool = registry.get("echo").unwrap();
        let ok = tool.call(args(json!({"text": "ab", "times": 2})), ToolContext::detached()).await;
        assert_eq!(ok.content, vec![ContentItem::Text { text: "abab".into() }]);

        let missing = tool.call(None, ToolContext::detached()).await;
        let e = missing.error_item().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidArgs);
        assert!(e.message.contains("text"), "{}", e.message);

        let wrong_type = tool.call(args(json!({"text": 5})), ToolContext::detached()).await;
        let e = wrong_type.error_item().unwrap();
        assert!(e.message.contains("`text`") && e.message.contains("expected"), "{}", e.message);

        let invalid = tool.call(args(json!({"text": "a", "times": 9})), ToolContext::detached()).await;
        let e = invalid.error_item().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidArgs);
        assert!(e.message.contains("times"), "{}", e.message);
    }
}
