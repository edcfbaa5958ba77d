//! The answers to requests rmcp could not parse: a known method with params that do not match
//! its schema, and a `tools/call` whose `name` or `arguments` are wrong
//! ([`ServerHandler::on_custom_request`](rmcp::ServerHandler::on_custom_request)).

use rmcp::ErrorData as McpError;
use serde_json::json;

use super::McpServer;
use crate::{error::ErrorCode, output::ToolOutput};

/// The MCP methods this server knows; a request of one of them that reaches
/// [`ServerHandler::on_custom_request`] had params that do not parse.
pub(super) const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "logging/setLevel",
    "completion/complete",
    "server/discover",
    "subscriptions/listen",
];

impl McpServer {
    /// Answers a `tools/call` whose params rmcp could not parse: a missing or non-string `name`
    /// is a JSON-RPC error; an unknown tool is the usual -32602; `arguments` that are not an
    /// object are the tool's `INVALID_INPUT` result (the template's contract: "input not an object").
    pub(super) fn malformed_tool_call(
        &self,
        params: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value, McpError> {
        let params = params.and_then(serde_json::Value::as_object);
        let Some(name) = params.and_then(|p| p.get("name")).and_then(serde_json::Value::as_str) else {
            return Err(McpError::invalid_params(
                format!(
                    "Invalid params for `tools/call`: `name` must be a string naming one of the tools ({}), and `arguments` an object.",
                    self.registry.names().join(", ")
                ),
                None,
            ));
        };
        if self.registry.get(name).is_none() {
            let known = self.registry.names().join(", ");
            return Err(McpError::invalid_params(
                format!("Unknown tool `{}`. Known tools: {known}.", crate::call_log::bounded(name)),
                Some(json!({"knownTools": self.registry.names()})),
            ));
        }
        let kind = match params.and_then(|p| p.get("arguments")) {
            Some(serde_json::Value::Object(_)) | Some(serde_json::Value::Null) | None => None,
            Some(serde_json::Value::Bool(_)) => Some("a boolean"),
            Some(serde_json::Value::Number(_)) => Some("a number"),
            Some(serde_json::Value::String(_)) => Some("a string"),
            Some(serde_json::Value::Array(_)) => Some("an array"),
        };
        let output = match kind {
            Some(kind) => ToolOutput::error(
                ErrorCode::InvalidInput,
                format!(
                    "Invalid input for `{name}`: `arguments` must be a JSON object of the tool's parameters, got {kind}. Check the tool's input schema and call it again."
                ),
            ),
            None => {
                return Err(McpError::invalid_params(
                    format!(
                        "Invalid params for `tools/call` of `{name}`: they do not match the MCP schema (`name`: string, `arguments`: object, `_meta`: object)."
                    ),
                    None,
                ));
            }
        };
        serde_json::to_value(output.into_call_tool_result())
            .map_err(|e| McpError::internal_error(format!("could not encode a result: {e}"), None))
    }
}
