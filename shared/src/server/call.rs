//! The tool call: the timeout, cancellation and panic handling of every call
//! ([`McpServer::call`]), the client roots it gets, and its observation: the span of its trace
//! context, the metrics and the call log.

use std::{sync::Arc, time::Duration};

use futures::FutureExt;
use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{CallToolRequestParams, CallToolResponse, JsonObject},
    service::RequestContext,
};
use serde_json::json;

use super::{Caller, McpServer, PeerAddr, is_stateless};
use crate::{
    call_log::CallRecord,
    client_roots::{self, CallRoots, ROOTS_INPUT_KEY},
    error::ErrorCode,
    output::ToolOutput,
    registry::ToolContext,
};

impl McpServer {
    /// Calls tool `name` with the timeout, cancellation and panic handling of `tools/call`.
    /// `None` when no tool has that name.
    pub async fn call(&self, name: &str, arguments: Option<JsonObject>, ctx: ToolContext) -> Option<ToolOutput> {
        let tool = self.registry.get(name)?.clone();
        let cancellation = ctx.cancellation().clone();
        let timeout = self.settings.tool_timeout;
        // The tool runs inside this task (rmcp's task for the request): a panic is caught here, and dropping the future on timeout or
        // cancellation stops its work.
        let run = std::panic::AssertUnwindSafe(tool.call(arguments, ctx)).catch_unwind();
        let output = tokio::select! {
            joined = run => match joined {
                Ok(output) => output,
                Err(_panic) => {
                    tracing::error!(tool = name, "tool panicked; the server keeps serving");
                    ToolOutput::error(
                        ErrorCode::InternalError,
                        format!("Internal error in tool `{name}`: it failed unexpectedly. The server logged the details and keeps serving; retry, or report it if it happens again."),
                    )
                }
            },
            () = tokio::time::sleep(timeout) => {
                cancellation.cancel();
                tracing::warn!(tool = name, ?timeout, "tool call timed out");
                ToolOutput::error(
                    ErrorCode::Timeout,
                    format!(
                        "The call to `{name}` timed out after {} and was stopped. Try a smaller request, or start the server with a larger --tool-timeout.",
                        format_duration(timeout)
                    ),
                )
            }
            () = cancellation.cancelled() => {
                tracing::info!(tool = name, "tool call cancelled by the client");
                ToolOutput::error(ErrorCode::Cancelled, format!("The call to `{name}` was cancelled by the client."))
            }
        };
        Some(output)
    }

    /// `tools/call`: the call ([`Self::call_tool_observed`]) in the span of its trace context,
    /// then its outcome and duration in the metrics and the call log.
    pub(super) async fn call_tool_logged(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let started = std::time::Instant::now();
        let known = self.registry.get(&request.name).is_some();
        // Only what the call log needs is kept (the arguments' text, for their digest).
        let logged = self.settings.call_log.as_ref().map(|log| {
            let arguments = request.arguments.as_ref().map(|a| serde_json::to_string(a).unwrap_or_default());
            (Arc::clone(log), request.name.clone(), arguments.unwrap_or_default())
        });
        // W3C trace context from `_meta` (2026-07-28 documents it there): in the call log line and
        // on every log line of the call (a span), when well formed.
        let traceparent = context
            .meta
            .get("traceparent")
            .and_then(|v| v.as_str())
            .filter(|t| crate::call_log::is_traceparent(t))
            .map(str::to_owned);
        let span = match &traceparent {
            Some(tp) => tracing::info_span!("tools/call", tool = %request.name, traceparent = %tp),
            None => tracing::Span::none(),
        };
        // Who called, from where: for the call log only (the address's text is not free).
        let who = logged.as_ref().map(|_| {
            let http = context.extensions.get::<axum::http::request::Parts>();
            let caller = match http {
                None => "stdio",
                Some(parts) => parts.extensions.get::<Caller>().map_or("anonymous", |c| c.0.as_str()),
            }
            .to_owned();
            (caller, http.and_then(|parts| parts.extensions.get::<PeerAddr>()).map(|p| p.0.to_string()))
        });
        let tool = crate::metrics::global()
            .map(|_| if known { request.name.to_string() } else { crate::metrics::UNKNOWN_TOOL.to_owned() });
        let (response, outcome) =
            tracing::Instrument::instrument(self.call_tool_observed(request, context), span).await;
        let elapsed = started.elapsed();
        if let (Some(metrics), Some(tool)) = (crate::metrics::global(), tool) {
            metrics.record_call(&tool, outcome, elapsed.as_secs_f64());
        }
        if let (Some((log, name, arguments)), Some((caller, peer))) = (logged, who) {
            log.record(&CallRecord {
                tool: &name,
                arguments: &arguments,
                caller: &caller,
                peer,
                outcome,
                duration: elapsed,
                traceparent: traceparent.as_deref(),
            });
        }
        response
    }
}

/// The tool call behind [`ServerHandler::call_tool`], with its outcome for the call log and the
/// metrics (`OK`, the result's error code, or what the protocol answered instead).
impl McpServer {
    async fn call_tool_observed(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> (Result<CallToolResponse, McpError>, &'static str) {
        use rmcp::model::RequestParamsMeta;
        let progress_token = context.meta.get_progress_token().or_else(|| request.progress_token());
        let roots = if self.registry.get(&request.name).is_none() || !self.extension.uses_client_roots() {
            CallRoots::None
        } else if is_stateless(&context) {
            // 2026-07-28: the roots come with the call, asked for with an InputRequiredResult.
            let declared = context.client_capabilities().is_some_and(|caps| caps.roots.is_some());
            match request.input_responses.as_ref().and_then(|answers| answers.get(ROOTS_INPUT_KEY)) {
                Some(answer) if declared => match client_roots::roots_from_input(answer) {
                    Ok(roots) => CallRoots::Given(roots),
                    Err(error) => return (Err(error), "INVALID_PARAMS"),
                },
                None if declared => {
                    let mut asked = client_roots::roots_input_required();
                    self.stamp(&mut asked.meta, &context);
                    return (Ok(CallToolResponse::InputRequired(asked)), "INPUT_REQUIRED");
                }
                _ => CallRoots::None,
            }
        } else {
            CallRoots::Session(Arc::clone(&self.roots), context.peer.clone())
        };
        let session = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get("mcp-session-id"))
            .and_then(|value| value.to_str().ok())
            .map(Arc::from);
        let ctx = ToolContext::new(context.ct.clone(), progress_token, Some(context.peer.clone()))
            .with_roots(roots)
            .with_session(session);
        match self.call(&request.name, request.arguments, ctx).await {
            Some(output) => {
                let outcome = output.error_item().map_or("OK", |e| e.code.as_str());
                let output = if self.settings.views { output } else { output.without_view() };
                let mut result = output.into_call_tool_result();
                self.stamp(&mut result.meta, &context);
                (Ok(CallToolResponse::from(result)), outcome)
            }
            None => {
                let known = self.registry.names().join(", ");
                let error = McpError::invalid_params(
                    // A name is echoed cut: a client's 20 MB name is not sent back whole.
                    format!("Unknown tool `{}`. Known tools: {known}.", crate::call_log::bounded(&request.name)),
                    Some(json!({"knownTools": self.registry.names()})),
                );
                (Err(error), "UNKNOWN_TOOL")
            }
        }
    }
}

fn format_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs.fract() == 0.0 { format!("{secs:.0} s") } else { format!("{secs} s") }
}
