//! The direct answer to a sessionless `tools/call` over HTTP.
//!
//! rmcp serves every sessionless request (`--stateless`, and every 2026-07-28 request) by
//! building a whole service for it: a one-message transport, a serve loop spawned as a task,
//! channels between them, and the handler spawned as one more task. For a `tools/call` that is
//! most of the request's cost (a profile of `bench/floor.sh` put it at more than half the CPU
//! time: allocations, moves of large futures, task wake-ups), and none of it does anything for a
//! call whose answer is one JSON body.
//!
//! [`try_answer`] runs in the body check ([`super::body::check_body`]), the innermost of the
//! checks in front of rmcp's service, on the body just read. It takes a request only when it
//! can tell, without doubt, that rmcp would accept it and route it to that stateless path as a
//! plain `tools/call`; then it calls the same handler (`McpServer` through rmcp's own
//! `Service::handle_request`, so the dispatch is rmcp's) with the context rmcp would build, and
//! answers with the JSON body and status rmcp would. Anything else goes to rmcp unchanged, so
//! every refusal keeps rmcp's status and text. The request is taken only when:
//!
//! - it is a `POST` (its body read whole, within `--max-message-bytes`);
//! - there is exactly one `Host` header and it is, letter for letter (case aside), one of the
//!   allowed hosts, and no `Origin` or exactly one that is one of the allowed origins (rmcp
//!   normalises and accepts more; those go to rmcp, which checks them);
//! - `Accept` names `application/json` and `text/event-stream` without parameters or quotes,
//!   `Content-Type` is `application/json` (parameters allowed, as rmcp does);
//! - no `Mcp-Session-Id`; `MCP-Protocol-Version` is present and a version rmcp knows;
//! - the body is a JSON-RPC request of `tools/call` for a tool the registry has, without a
//!   progress token (progress notifications would precede the answer: rmcp streams those);
//! - either it is of a revision before 2026-07-28 on a `--stateless` server (no per-request
//!   version in `_meta`), or it is 2026-07-28: `_meta` has every key that revision requires and
//!   names the header's version, and the SEP-2243 headers are plain and agree with the body
//!   (one `Mcp-Method: tools/call`, one `Mcp-Name` equal to the tool's name, no `Mcp-Param-*`,
//!   and the tool's schema asks for none).
//!
//! No check is skipped: Host/Origin (above), the token or OAuth, the session cap and the body
//! limit all run before it, and the call itself runs through the same
//! `call_tool` with its timeout, call log and metrics. A client that goes away cancels the call,
//! as with rmcp; so does the server's shutdown.
//!
//! The handler's `RequestContext` needs a `Peer`, which rmcp only makes inside a service: one
//! idle service per protocol version (made on first use, a transport that never sends a message
//! and drops whatever it is given) lends its peer, whose client information is what rmcp gives a
//! stateless request (the header's version, default capabilities). A `tools/call` on this path
//! never sends through the peer (no progress token; roots come with a 2026-07-28 call, and a
//! stateless 2025 client declares none).

use std::sync::{Mutex, OnceLock, PoisonError};

use axum::{
    body::{Body, Bytes},
    http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header, request::Parts},
    response::{IntoResponse, Response},
};
use rmcp::{
    RoleServer, Service as _,
    model::{
        CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientRequest, ErrorCode, Extensions, GetMeta as _,
        Implementation, InitializeRequestParams, JsonObject, JsonRpcVersion2_0, ProtocolVersion, RequestId,
        RequestMetaObject, RequestParamsMeta as _, ServerJsonRpcMessage,
    },
    service::{Peer, RequestContext, RunningService},
};
use tokio_util::sync::CancellationToken;

use crate::server::McpServer;

/// The MCP headers the direct paths read (a name given as text is parsed at every lookup).
pub(super) static MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
pub(super) static MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(super) static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
pub(super) static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// What [`try_answer`] needs: the server, the checks it repeats, the lent peers.
pub struct FastCalls {
    server: McpServer,
    /// `--stateless`: requests of the revisions before 2026-07-28 are sessionless too.
    stateless: bool,
    /// The accepted `Host` values, lower-cased.
    hosts: Vec<String>,
    /// The accepted `Origin` values.
    origins: Vec<String>,
    /// Cancelled when the server shuts down (rmcp's `cancellation_token`).
    shutdown: CancellationToken,
    /// One peer per entry of [`ProtocolVersion::KNOWN_VERSIONS`], made on first use.
    peers: Vec<OnceLock<Peer<RoleServer>>>,
    /// The idle services behind the peers, kept running.
    services: Mutex<Vec<RunningService<RoleServer, McpServer>>>,
}

impl FastCalls {
    /// For a router with these allow-lists (the same as rmcp's configuration).
    pub fn new(
        server: McpServer,
        stateless: bool,
        hosts: &[String],
        origins: &[String],
        shutdown: CancellationToken,
    ) -> Self {
        Self {
            server,
            stateless,
            // Only values that are an authority as they stand: a `Host` equal to one (case
            // aside) then is one too, as rmcp requires, without parsing it per request.
            hosts: hosts
                .iter()
                .filter(|h| axum::http::uri::Authority::try_from(h.as_str()).is_ok())
                .map(|h| h.to_ascii_lowercase())
                .collect(),
            origins: origins.to_vec(),
            shutdown,
            peers: ProtocolVersion::KNOWN_VERSIONS.iter().map(|_| OnceLock::new()).collect(),
            services: Mutex::new(Vec::new()),
        }
    }

    /// The peer rmcp's stateless path would give a request of `version` (index into
    /// [`ProtocolVersion::KNOWN_VERSIONS`]).
    fn peer(&self, index: usize) -> Option<Peer<RoleServer>> {
        let version = ProtocolVersion::KNOWN_VERSIONS.get(index)?.clone();
        let cell = self.peers.get(index)?;
        let peer = cell.get_or_init(|| {
            let info = InitializeRequestParams::new(ClientCapabilities::default(), Implementation::default())
                .with_protocol_version(version);
            let transport = (
                futures::sink::drain::<rmcp::service::TxJsonRpcMessage<RoleServer>>(),
                futures::stream::pending::<rmcp::service::RxJsonRpcMessage<RoleServer>>(),
            );
            let running = rmcp::service::serve_directly(self.server.clone(), transport, Some(info));
            let peer = running.peer().clone();
            self.services.lock().unwrap_or_else(PoisonError::into_inner).push(running);
            peer
        });
        Some(peer.clone())
    }

    /// Whether the headers alone allow this path; the index of the header's version if so.
    fn headers_qualify(&self, headers: &HeaderMap) -> Option<usize> {
        if headers.contains_key(&MCP_SESSION_ID) {
            return None;
        }
        self.headers_allow(headers)
    }

    /// `Host`, `Origin`, `Accept`, `Content-Type` as rmcp would accept them, and a known
    /// `MCP-Protocol-Version`, whose index is returned.
    fn headers_allow(&self, headers: &HeaderMap) -> Option<usize> {
        let host = single(headers, &header::HOST)?;
        if !self.hosts.iter().any(|allowed| !allowed.contains('*') && allowed.eq_ignore_ascii_case(host)) {
            return None;
        }
        if headers.contains_key(header::ORIGIN) {
            let origin = single(headers, &header::ORIGIN)?;
            if !self.origins.iter().any(|allowed| !allowed.contains('*') && allowed == origin) {
                return None;
            }
        }
        if !accepts_json_and_sse(headers) || !is_json(headers) {
            return None;
        }
        let version = single(headers, &MCP_PROTOCOL_VERSION)?;
        ProtocolVersion::KNOWN_VERSIONS.iter().position(|known| known.as_str() == version)
    }
}

/// Answers `request` (its head, and the body the body check read) directly when it qualifies
/// (see the module docs); gives the head back otherwise, for rmcp.
pub async fn try_answer(calls: &FastCalls, parts: Parts, body: &Bytes) -> Result<Response, Parts> {
    if parts.method != Method::POST {
        return Err(parts);
    }
    let Some(index) = calls.headers_qualify(&parts.headers) else {
        return Err(parts);
    };
    let Some((id, call_request)) = parse(body) else {
        return Err(parts);
    };
    let call_request = ClientRequest::CallToolRequest(call_request);
    if !qualifies(calls, index, &parts.headers, &call_request) {
        return Err(parts);
    }
    let Some(peer) = calls.peer(index) else {
        return Err(parts);
    };
    if let ClientRequest::CallToolRequest(call) = &call_request {
        tracing::debug!(tool = %call.params.name, "tools/call answered directly");
    }
    Ok(call(calls, id, call_request, parts, peer).await)
}

/// A JSON-RPC request object with these four members and no other (so that rmcp reads it as a
/// request too: a stray `result` or `error` makes it something else, left to rmcp).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[allow(dead_code, reason = "checked by its type: \"2.0\" only")]
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    method: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a serde_json::value::RawValue>,
}

/// The params of a plain `tools/call`: its name, arguments and `_meta`, each at most once, and
/// no other member. rmcp's own type reads them through a buffered copy (its `_meta` is split
/// off by a flattened struct), which cost a tenth of a call's CPU time; a body of this shape
/// reads to the same request without it. Any other shape (`inputResponses`, `requestState`, a
/// member rmcp ignores, a repeated one) is read by rmcp's type, so what rmcp accepts or refuses
/// stays its own decision.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainCall {
    #[serde(rename = "_meta")]
    meta: Option<JsonObject>,
    name: String,
    arguments: Option<JsonObject>,
}

impl PlainCall {
    /// The request rmcp's `CallToolRequest` deserializer builds of the same params.
    fn into_request(self) -> CallToolRequest {
        let mut params = CallToolRequestParams::new(self.name);
        if let Some(arguments) = self.arguments {
            params = params.with_arguments(arguments);
        }
        let mut request = CallToolRequest::new(params);
        if let Some(meta) = self.meta {
            request.extensions.insert(RequestMetaObject::from(meta));
        }
        request
    }
}

/// The id and the `tools/call` request of `body`, read as rmcp reads them (its `CallToolRequest`
/// type, `_meta` taken out of the params the same way), but without its generic message
/// parsing, which buffers the whole message three times over (a tenth of the CPU time of a
/// call). `None` for anything else.
pub(super) fn parse(body: &[u8]) -> Option<(RequestId, CallToolRequest)> {
    let envelope: Envelope<'_> = serde_json::from_slice(body).ok()?;
    if envelope.method != "tools/call" {
        return None;
    }
    let params = envelope.params?.get();
    if let Ok(plain) = serde_json::from_str::<PlainCall>(params) {
        return Some((envelope.id, plain.into_request()));
    }
    let mut request = String::with_capacity(params.len() + 32);
    request.push_str(r#"{"method":"tools/call","params":"#);
    request.push_str(params);
    request.push('}');
    let call = serde_json::from_str::<CallToolRequest>(&request).ok()?;
    Some((envelope.id, call))
}

/// The checks that need the body (the headers passed [`FastCalls::headers_qualify`]).
fn qualifies(calls: &FastCalls, index: usize, headers: &HeaderMap, request: &ClientRequest) -> bool {
    let ClientRequest::CallToolRequest(call) = request else {
        return false;
    };
    let name = call.params.name.as_ref();
    let Some(tool) = calls.server.tool_descriptor(name) else {
        return false;
    };
    let meta = request.get_meta();
    if meta.get_progress_token().is_some() || call.params.progress_token().is_some() {
        return false;
    }
    let header_version = &ProtocolVersion::KNOWN_VERSIONS[index];
    let has_mcp_headers = headers.keys().any(|key| key.as_str().starts_with("mcp-param-"));
    match meta.protocol_version() {
        // The revisions with sessions, served statelessly by a --stateless server.
        None => {
            calls.stateless
                && *header_version < ProtocolVersion::STANDARD_HEADERS
                && !has_mcp_headers
                && !headers.contains_key(&MCP_METHOD)
                && !headers.contains_key(&MCP_NAME)
        }
        Some(version) => {
            version == ProtocolVersion::V_2026_07_28
                && *header_version == version
                && meta.missing_required_keys(&version).is_empty()
                && !has_mcp_headers
                && single(headers, &MCP_METHOD) == Some("tools/call")
                && single(headers, &MCP_NAME) == Some(name)
                && is_plain_name(name)
                && !asks_for_param_headers(&tool.input_schema)
        }
    }
}

/// Calls the tool as rmcp's serve loop would, and answers as its stateless JSON path does.
async fn call(
    calls: &FastCalls,
    id: RequestId,
    mut request: ClientRequest,
    parts: Parts,
    peer: Peer<RoleServer>,
) -> Response {
    let negotiated = request.get_meta().protocol_version().is_some();
    let request_ct = CancellationToken::new();
    let mut context = RequestContext::new(id.clone(), peer);
    context.ct = request_ct.child_token();
    context.meta = std::mem::take(request.get_meta_mut());
    let mut extensions = Extensions::new();
    extensions.insert(parts);
    context.extensions = extensions;
    // A client that goes away drops this future: the call is cancelled (rmcp's #857).
    let guard = request_ct.clone().drop_guard();
    let result = tokio::select! {
        result = calls.server.handle_request(request, context) => result,
        () = calls.shutdown.cancelled() => {
            drop(guard);
            return internal_error("no response message received from handler");
        }
    };
    guard.disarm();
    let message = match result {
        Ok(result) => ServerJsonRpcMessage::response(result, id),
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    };
    // rmcp: errors of the negotiated (2026-07-28) path map to HTTP statuses; legacy ones are 200.
    let status = if negotiated { negotiated_status(&message) } else { StatusCode::OK };
    match serde_json::to_vec(&message) {
        Ok(body) => {
            let mut response = (status, Body::from(body)).into_response();
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        Err(error) => internal_error(&error.to_string()),
    }
}

/// rmcp's `jsonrpc_http_status` for a request whose `_meta` was complete.
fn negotiated_status(message: &ServerJsonRpcMessage) -> StatusCode {
    let ServerJsonRpcMessage::Error(error) = message else {
        return StatusCode::OK;
    };
    match error.error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// rmcp's 500 when the handler gave nothing (the server is shutting down).
fn internal_error(why: &str) -> Response {
    tracing::error!("Internal server error when empty response: {why}");
    (StatusCode::INTERNAL_SERVER_ERROR, format!("Encounter an error when empty response: {why}")).into_response()
}

/// The header's only value, as text; `None` when absent, repeated or not text.
pub(super) fn single<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// `Accept` lists both media types, every entry a bare type (no parameter, no quote).
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        if value.contains([';', '"']) {
            return false;
        }
        for entry in value.split(',') {
            let entry = entry.trim();
            json |= entry.eq_ignore_ascii_case("application/json");
            sse |= entry.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// `Content-Type` is `application/json` (rmcp's test: the essence before any `;`).
fn is_json(headers: &HeaderMap) -> bool {
    single(headers, &header::CONTENT_TYPE).is_some_and(|value| {
        let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
        essence.trim().eq_ignore_ascii_case("application/json")
    })
}

/// A name that is its own `Mcp-Name` header value (no Base64 form, nothing to decode).
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/'))
}

/// Whether a tool's input schema names `Mcp-Param-*` headers (SEP-2243's `x-mcp-header`).
fn asks_for_param_headers(schema: &rmcp::model::JsonObject) -> bool {
    fn walk(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(map) => map.contains_key("x-mcp-header") || map.values().any(walk),
            serde_json::Value::Array(items) => items.iter().any(walk),
            _ => false,
        }
    }
    schema.values().any(walk) || schema.contains_key("x-mcp-header")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    /// What rmcp's own type reads of `params`, serialized (with its `_meta`).
    fn by_rmcp(params: &str) -> Option<serde_json::Value> {
        let request = format!(r#"{{"method":"tools/call","params":{params}}}"#);
        let call = serde_json::from_str::<CallToolRequest>(&request).ok()?;
        Some(serde_json::to_value(ClientRequest::CallToolRequest(call)).unwrap())
    }

    #[test]
    fn a_plain_call_reads_as_rmcp_reads_it_and_anything_else_is_left_to_rmcps_type() {
        let plain = [
            r#"{"name":"hoge","arguments":{"action":"calc","args":{"x":1,"y":2}}}"#,
            r#"{"arguments":{"z":[1,2.5,-0,1e300,18446744073709551615,-9223372036854775808],"a":"\u00e9\n"},"name":"h\u006fge"}"#,
            r#"{"name":"hoge"}"#,
            r#"{"name":"hoge","arguments":null,"_meta":null}"#,
            r#"{"name":"hoge","arguments":{"b":1,"a":2,"b":3},"_meta":{"progressToken":7,"x":{"y":null}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"hoge","arguments":{}}"#,
            r#" { "name" : "hoge" , "arguments" : { } } "#,
        ];
        for params in plain {
            let fast = serde_json::from_str::<PlainCall>(params).unwrap_or_else(|e| panic!("{params}: {e}"));
            let fast = serde_json::to_value(ClientRequest::CallToolRequest(fast.into_request())).unwrap();
            assert_eq!(Some(fast), by_rmcp(params), "{params}");
        }
        // Not plain: rmcp's type decides (and `parse` still reads what it accepts).
        let other = [
            r#"{"name":"hoge","arguments":{},"requestState":"s"}"#,
            r#"{"name":"hoge","extra":1}"#,
            r#"{"name":"hoge","name":"other"}"#,
            r#"{"name":1}"#,
            r#"{"arguments":{}}"#,
            r#"{"name":"hoge","arguments":[1]}"#,
            r#"{"name":"hoge","_meta":[]}"#,
        ];
        for params in other {
            assert!(serde_json::from_str::<PlainCall>(params).is_err(), "{params}");
            let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
            let parsed = parse(body.as_bytes())
                .map(|(_, call)| serde_json::to_value(ClientRequest::CallToolRequest(call)).unwrap());
            assert_eq!(parsed, by_rmcp(params), "{params}");
        }
    }

    #[test]
    fn only_a_host_that_is_an_authority_and_allowed_passes() {
        let identity = crate::server::ServerIdentity {
            name: "t".into(),
            version: "0".into(),
            title: None,
            website_url: None,
            instructions: "i".into(),
        };
        let server = McpServer::new(identity, crate::registry::ToolRegistry::new());
        // `--allow-hosts` may name a value that is no authority; rmcp refuses such a `Host`.
        let allowed = ["127.0.0.1:8080".to_owned(), "bad host".to_owned()];
        let calls = FastCalls::new(server, true, &allowed, &[], CancellationToken::new());
        let with_host = |host: &str| {
            headers(&[
                ("host", host),
                ("accept", "application/json, text/event-stream"),
                ("content-type", "application/json"),
                ("mcp-protocol-version", "2025-11-25"),
            ])
        };
        assert!(calls.headers_allow(&with_host("127.0.0.1:8080")).is_some());
        assert!(calls.headers_allow(&with_host("127.0.0.1:8081")).is_none());
        assert!(calls.headers_allow(&with_host("bad host")).is_none());
    }

    #[test]
    fn accept_must_name_both_types_plainly() {
        assert!(accepts_json_and_sse(&headers(&[("accept", "application/json, text/event-stream")])));
        assert!(accepts_json_and_sse(&headers(&[("accept", "text/event-stream"), ("accept", "application/json")])));
        assert!(!accepts_json_and_sse(&headers(&[("accept", "application/json")])));
        // q=0 refuses a type: left to rmcp, which reads weights.
        assert!(!accepts_json_and_sse(&headers(&[("accept", "application/json;q=0, text/event-stream")])));
        assert!(!accepts_json_and_sse(&headers(&[("accept", "*/*")])));
    }

    #[test]
    fn content_type_is_json_with_or_without_parameters() {
        assert!(is_json(&headers(&[("content-type", "application/json")])));
        assert!(is_json(&headers(&[("content-type", "Application/JSON; charset=utf-8")])));
        assert!(!is_json(&headers(&[("content-type", "text/plain")])));
        assert!(!is_json(&headers(&[("content-type", "application/json"), ("content-type", "application/json")])));
        assert!(!is_json(&headers(&[])));
    }

    #[test]
    fn only_plain_names_and_schemas_without_header_params() {
        assert!(is_plain_name("hoge") && is_plain_name("str_replace-2.x"));
        assert!(!is_plain_name("=?base64?aG9nZQ==?=") && !is_plain_name("") && !is_plain_name("a b"));
        let plain = serde_json::json!({"type": "object", "properties": {"x": {"type": "integer"}}});
        let with_header =
            serde_json::json!({"type": "object", "properties": {"x": {"type": "string", "x-mcp-header": "X"}}});
        assert!(!asks_for_param_headers(plain.as_object().unwrap()));
        assert!(asks_for_param_headers(with_header.as_object().unwrap()));
    }

    #[test]
    fn status_of_negotiated_errors_is_rmcps() {
        let error = |code| {
            ServerJsonRpcMessage::error(
                rmcp::model::ErrorData::new(code, "x", None),
                Some(rmcp::model::RequestId::Number(1)),
            )
        };
        assert_eq!(negotiated_status(&error(ErrorCode::HEADER_MISMATCH)), StatusCode::BAD_REQUEST);
        assert_eq!(negotiated_status(&error(ErrorCode::METHOD_NOT_FOUND)), StatusCode::NOT_FOUND);
        assert_eq!(negotiated_status(&error(ErrorCode::INVALID_PARAMS)), StatusCode::OK);
    }
}
