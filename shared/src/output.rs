//! The suite's tool result type and its one mapping to MCP's `CallToolResult`.
//!
//! A tool returns `{ content: [ text | json | error ] }`. MCP has no `json` or `error` block, so
//! the mapping is fixed here, once (docs/architecture.md, "One call"):
//!
//! - `Text` → a text block;
//! - `Json` → `structuredContent` (an object; a non-object value is wrapped as `{"value": v}`)
//!   plus the same JSON as a text block for clients that ignore structured output;
//! - `Error` → `isError: true`, the message as a text block, and
//!   `structuredContent: {"error": {"code", "message"}}`.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{error::ErrorCode, sandbox::SandboxError};

/// What a tool returns: an ordered list of content items (the suite's result shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ToolOutput {
    /// The items, in the order the tool produced them.
    pub content: Vec<ContentItem>,
}

/// THE failure type of every tool of every server: a code and a message a model can act on.
///
/// It is the payload of [`ContentItem::Error`] (`{ message, code }`), so a tool's
/// internals can return `Result<_, ToolError>` all the way up and `?` a [`SandboxError`] (see the
/// `From` impl below) without a second failure struct per crate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// What went wrong, written for a model that will retry: the thing, the value, the next step.
    pub message: String,
    /// The machine-readable code.
    pub code: ErrorCode,
}

impl ToolError {
    /// A failure with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError { message: message.into(), code }
    }

    /// An `INVALID_ARGS` failure (the message should name the field and what it takes).
    pub fn invalid_args(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::InvalidArgs, message)
    }

    /// The failure as a tool result.
    pub fn into_output(self) -> ToolOutput {
        ToolOutput { content: vec![ContentItem::Error { error: self }] }
    }
}

impl From<ToolError> for ToolOutput {
    fn from(error: ToolError) -> Self {
        error.into_output()
    }
}

/// A sandbox failure as a tool failure: the typed code of [`SandboxError::code`] and the
/// sandbox's own message, which names only the path the caller sent (never where a symlink
/// points nor a root the caller did not name; an I/O error's OS text goes to the log only).
///
/// A tool that can say more (what it was doing, what to try next) builds its own message and
/// takes just the code: `ToolError::new(error.code(), ...)`.
impl From<SandboxError> for ToolError {
    fn from(error: SandboxError) -> Self {
        if let SandboxError::Io { path, kind, source } = &error {
            tracing::warn!(path, %kind, error = %source, "sandboxed file operation failed");
        }
        ToolError::new(error.code(), error.public_message())
    }
}

/// One item of a [`ToolOutput`], serialised in the suite's result shape
/// (`{"type":"text","text":..}`, `{"type":"json","json":..}`, `{"type":"error","error":{..}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ContentItem {
    /// Plain text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// Structured data.
    Json {
        /// The value.
        json: Value,
    },
    /// A failure the model can act on.
    Error {
        /// The message and code.
        error: ToolError,
    },
    /// What the tool's view shows ([`crate::view`]): the result's `_meta`, which the model
    /// does not read.
    View {
        /// The data.
        view: Value,
    },
}

impl ToolOutput {
    /// A result of one text item.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput { content: vec![ContentItem::Text { text: text.into() }] }
    }

    /// A result of one JSON item.
    pub fn json(json: Value) -> Self {
        ToolOutput { content: vec![ContentItem::Json { json }] }
    }

    /// A result of one JSON item: `value` serialised, the type whose schema the tool declares
    /// with [`crate::schema::output`]. A value serde cannot write is an `INTERNAL_ERROR`.
    pub fn structured<T: Serialize>(value: &T) -> Self {
        match serde_json::to_value(value) {
            Ok(json) => ToolOutput::json(json),
            Err(error) => {
                tracing::error!(%error, "a tool result could not be serialised");
                ToolOutput::error(
                    ErrorCode::InternalError,
                    "Internal error: the result could not be written; the server logged the details.",
                )
            }
        }
    }

    /// A result of one text item followed by one JSON item (text for the model, JSON for programs).
    pub fn text_and_json(text: impl Into<String>, json: Value) -> Self {
        ToolOutput { content: vec![ContentItem::Text { text: text.into() }, ContentItem::Json { json }] }
    }

    /// The result with `data` for the tool's view ([`crate::view`]); the content the model
    /// reads is unchanged.
    pub fn with_view(mut self, data: Value) -> Self {
        self.content.push(ContentItem::View { view: data });
        self
    }

    /// The result without its view's data (`--no-views`).
    pub fn without_view(mut self) -> Self {
        self.content.retain(|item| !matches!(item, ContentItem::View { .. }));
        self
    }

    /// A failed result with `code` and `message`.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError::new(code, message).into_output()
    }

    /// The first error item, if the result is a failure.
    pub fn error_item(&self) -> Option<&ToolError> {
        self.content.iter().find_map(|item| match item {
            ContentItem::Error { error } => Some(error),
            _ => None,
        })
    }

    /// Whether the result carries an error item.
    pub fn is_error(&self) -> bool {
        self.error_item().is_some()
    }

    /// The one mapping to MCP's `CallToolResult` (see the module documentation).
    ///
    /// Several `Json` items are merged into `structuredContent` in order (a later key wins);
    /// with an error, the error alone is the structured content.
    pub fn into_call_tool_result(self) -> CallToolResult {
        let mut blocks = Vec::with_capacity(self.content.len());
        let mut structured: Option<serde_json::Map<String, Value>> = None;
        let mut error: Option<ToolError> = None;
        let mut view: Option<Value> = None;
        for item in self.content {
            match item {
                ContentItem::Text { text } => blocks.push(ContentBlock::text(text)),
                ContentItem::Json { json } => {
                    // Straight into the string (`Display` goes through a formatter per token);
                    // serializing a `Value` cannot fail (its keys are strings).
                    let text = serde_json::to_string(&json).unwrap_or_default();
                    blocks.push(ContentBlock::text(text));
                    let object = match json {
                        Value::Object(map) => map,
                        other => {
                            let mut map = serde_json::Map::new();
                            map.insert("value".into(), other);
                            map
                        }
                    };
                    match &mut structured {
                        Some(merged) => merged.extend(object),
                        None => structured = Some(object),
                    }
                }
                ContentItem::Error { error: e } => {
                    blocks.push(ContentBlock::text(e.message.clone()));
                    if error.is_none() {
                        error = Some(e);
                    }
                }
                ContentItem::View { view: data } => view = Some(data),
            }
        }
        let mut result = match error {
            Some(e) => {
                let mut result = CallToolResult::error(blocks);
                result.structured_content = Some(json!({"error": {"code": e.code, "message": e.message}}));
                result
            }
            None => {
                let mut result = CallToolResult::success(blocks);
                result.structured_content = structured.map(Value::Object);
                result
            }
        };
        if let Some(data) = view {
            let mut meta = rmcp::model::MetaObject::new();
            meta.0.insert(crate::view::DATA_KEY.to_owned(), data);
            result.meta = Some(meta);
        }
        result
    }
}

impl From<ToolOutput> for CallToolResult {
    fn from(output: ToolOutput) -> Self {
        output.into_call_tool_result()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_views_data_goes_in_meta_and_the_model_reads_the_same() {
        let plain = ToolOutput::text("Edited.");
        let viewed = ToolOutput::text("Edited.").with_view(json!({"path": "a.txt"}));
        let (plain, viewed) = (wire(plain.into_call_tool_result()), wire(viewed.clone().into_call_tool_result()));
        assert_eq!(plain["content"], viewed["content"]);
        assert_eq!(viewed["_meta"][crate::view::DATA_KEY], json!({"path": "a.txt"}));
        assert!(plain.get("_meta").is_none());
        let stripped = ToolOutput::text("Edited.").with_view(json!({})).without_view();
        assert_eq!(wire(stripped.into_call_tool_result()), plain);
    }

    fn wire(result: CallToolResult) -> Value {
        serde_json::to_value(result).unwrap()
    }

    #[test]
    fn sandbox_errors_map_to_typed_codes_without_host_paths() {
        let cases = [
            (
                SandboxError::OutsideRoot { path: "../x".into(), roots: "/srv/secret-root".into() },
                ErrorCode::OutsideRoot,
            ),
            (SandboxError::NotFound { path: "a.txt".into() }, ErrorCode::NotFound),
            (SandboxError::AlreadyExists { path: "a.txt".into() }, ErrorCode::AlreadyExists),
            (SandboxError::IsADirectory { path: "a.txt".into() }, ErrorCode::InvalidArgs),
            (SandboxError::NotADirectory { path: "a.txt".into() }, ErrorCode::InvalidArgs),
            (SandboxError::InvalidPath { path: "a.txt".into(), reason: "empty".into() }, ErrorCode::InvalidArgs),
            (SandboxError::PermissionDenied { path: "a.txt".into() }, ErrorCode::AccessDenied),
            (
                SandboxError::Io {
                    path: "a.txt".into(),
                    kind: std::io::ErrorKind::StorageFull,
                    source: std::io::Error::other("/host/disk/device full"),
                },
                ErrorCode::InternalError,
            ),
        ];
        for (sandbox, code) in cases {
            assert_eq!(sandbox.code(), code);
            let path = sandbox.path().to_owned();
            let error = ToolError::from(sandbox);
            assert_eq!(error.code, code);
            assert!(error.message.contains(&path), "{}", error.message);
            assert!(!error.message.contains("/srv") && !error.message.contains("/host"), "{}", error.message);
        }
    }

    #[test]
    fn a_tool_error_is_a_failed_output() {
        let output: ToolOutput = ToolError::invalid_args("field `x`: expected a number").into();
        assert_eq!(output, ToolOutput::error(ErrorCode::InvalidArgs, "field `x`: expected a number"));
        assert_eq!(ToolError::new(ErrorCode::NotFound, "gone").to_string(), "gone");
    }

    #[test]
    fn serialises_in_spec_004_shape() {
        let output = ToolOutput {
            content: vec![
                ContentItem::Text { text: "hi".into() },
                ContentItem::Json { json: json!({"value": 3}) },
                ContentItem::Error { error: ToolError { message: "bad".into(), code: ErrorCode::InvalidArgs } },
            ],
        };
        assert_eq!(
            serde_json::to_value(&output).unwrap(),
            json!({"content": [
                {"type": "text", "text": "hi"},
                {"type": "json", "json": {"value": 3}},
                {"type": "error", "error": {"message": "bad", "code": "INVALID_ARGS"}}
            ]})
        );
        let back: ToolOutput = serde_json::from_value(serde_json::to_value(&output).unwrap()).unwrap();
        assert_eq!(back, output);
    }

    #[test]
    fn json_maps_to_structured_content_and_a_text_copy() {
        let v = wire(ToolOutput::json(json!({"value": 3})).into());
        assert_eq!(v["structuredContent"], json!({"value": 3}));
        assert_eq!(v["content"], json!([{"type": "text", "text": "{\"value\":3}"}]));
        assert!(v.get("isError").is_none() || v["isError"] == json!(false));
    }

    #[test]
    fn several_json_items_merge_in_order_and_each_keeps_its_text_copy() {
        let output = ToolOutput {
            content: vec![
                ContentItem::Json { json: json!({"b": 1, "a": 1}) },
                ContentItem::Json { json: json!({"a": 2, "c": "x"}) },
                ContentItem::Json { json: json!(7) },
            ],
        };
        let v = wire(output.into());
        assert_eq!(serde_json::to_string(&v["structuredContent"]).unwrap(), r#"{"b":1,"a":2,"c":"x","value":7}"#);
        let texts: Vec<&str> = v["content"].as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap()).collect();
        assert_eq!(texts, [r#"{"b":1,"a":1}"#, r#"{"a":2,"c":"x"}"#, "7"]);
    }

    #[test]
    fn non_object_json_is_wrapped() {
        let v = wire(ToolOutput::json(json!([1, 2])).into());
        assert_eq!(v["structuredContent"], json!({"value": [1, 2]}));
    }

    #[test]
    fn error_maps_to_is_error_text_and_structured_error() {
        let v = wire(ToolOutput::error(ErrorCode::NotFound, "no such file: a.txt").into());
        assert_eq!(v["isError"], json!(true));
        assert_eq!(v["content"], json!([{"type": "text", "text": "no such file: a.txt"}]));
        assert_eq!(v["structuredContent"], json!({"error": {"code": "NOT_FOUND", "message": "no such file: a.txt"}}));
    }

    #[test]
    fn text_maps_to_text_without_structured_content() {
        let v = wire(ToolOutput::text("done").into());
        assert_eq!(v["content"], json!([{"type": "text", "text": "done"}]));
        assert!(v.get("structuredContent").is_none());
    }
}
