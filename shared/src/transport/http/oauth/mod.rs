//! The OAuth 2.1 resource server of `--http` (MCP authorization, 2025-06-18 and 2025-11-25):
//! `--auth-issuer URL` names the authorization server, `--public-url URL` this server's canonical
//! MCP URL (the audience its tokens must be issued for, RFC 8707).
//!
//! - **Protected Resource Metadata** (RFC 9728) at `/.well-known/oauth-protected-resource` and at
//!   the path-aware `/.well-known/oauth-protected-resource<public path>`: the resource, its
//!   authorization server, the scopes, `bearer_methods_supported: ["header"]`.
//! - **401** without a token or with a bad one: `WWW-Authenticate: Bearer resource_metadata="…",
//!   scope="<read scope>"` (and `error="invalid_token"` for a bad one), an OAuth-shaped JSON body.
//! - **Tokens** are JWTs checked for signature (ES256, RS256 or EdDSA, with a key from the
//!   authorization server's JWKS), `iss` (the issuer), `aud` (the public URL), `exp` and `nbf`
//!   (60 s leeway). The JWKS is found through the authorization server's metadata (RFC 8414, then
//!   OpenID discovery), cached, and fetched again when a token names an unknown key (at most once
//!   every [`keys::REFRESH_EVERY`]).
//! - **Scopes**: every request needs the read scope (`mcp:read`); a `tools/call` of a tool that
//!   can change something (not annotated read-only) needs the write scope (`mcp:write`) too, else
//!   **403** `insufficient_scope` with `scope="<read> <write>"`, before anything runs.
//! - The token is taken from the `Authorization` header only: one in the URL (`access_token=`) is
//!   refused (400).
//!
//! The authorization server's metadata and keys are fetched over HTTPS (rustls, Mozilla's roots);
//! plain HTTP only for a loopback issuer (a test or a sidecar).

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex, PoisonError},
};

use axum::{
    body::Body,
    extract::{Request, State},
    http::{HeaderValue, Method, StatusCode, Uri, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde_json::{Value, json};

mod keys;

use keys::{KeySource, check_url, origin_and_path};

use super::auth::bearer_token;
use crate::server::Caller;

/// The clock skew allowed on `exp` and `nbf`.
const LEEWAY_SECS: u64 = 60;

/// Tokens whose check is remembered (until each one's `exp`): a client sends the same token on
/// every request, and an ES256 signature check costs far more than the call it guards.
const MAX_REMEMBERED: usize = 4096;

/// The signature algorithms accepted.
const ALGORITHMS: [Algorithm; 3] = [Algorithm::ES256, Algorithm::RS256, Algorithm::EdDSA];

/// What `--auth-*` configure.
#[derive(Debug, Clone)]
pub struct OAuthOptions {
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// This server's canonical MCP URL: the audience of its tokens.
    pub public_url: String,
    /// The scope every request needs.
    pub read_scope: String,
    /// The scope a tool call that changes something needs.
    pub write_scope: String,
}

/// Why the options cannot work.
#[derive(Debug, thiserror::Error)]
pub enum OAuthSetupError {
    /// A URL that does not parse or has the wrong scheme.
    #[error("{flag} {url}: {reason}")]
    Url {
        /// The flag.
        flag: &'static str,
        /// The value.
        url: String,
        /// What is wrong.
        reason: String,
    },
}

/// The resource server: its metadata, the authorization server's keys, the checks.
pub struct ResourceServer {
    options: OAuthOptions,
    /// The URL of this server's Protected Resource Metadata (in `WWW-Authenticate`).
    metadata_url: String,
    /// The paths the metadata is served at.
    metadata_paths: Vec<String>,
    /// Tools whose call needs the write scope.
    writes: CallWrites,
    /// The largest body read to find a tool call's name.
    max_body: usize,
    /// The authorization server's keys.
    keys: KeySource,
    /// Valid tokens already checked, by the SHA-256 of the token: the principal and `exp`.
    remembered: Mutex<HashMap<[u8; 32], (Principal, u64)>>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer").field("options", &self.options).finish_non_exhaustive()
    }
}

/// Whether a call (tool name, arguments) can change something, so that it needs the write scope.
pub type CallWrites = Arc<dyn Fn(&str, Option<&serde_json::Map<String, Value>>) -> bool + Send + Sync>;

/// Who a valid token speaks for, and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// `sub`, else `client_id`, else `unknown`.
    pub subject: String,
    /// `client_id`, else `azp`: the client the token was issued to.
    pub client: Option<String>,
    /// The token's scopes.
    pub scopes: HashSet<String>,
}

#[derive(Debug, Deserialize)]
struct Claims {
    exp: u64,
    /// Issued at (a NumericDate: an integer or not).
    #[serde(default)]
    iat: Option<Value>,
    sub: Option<String>,
    client_id: Option<String>,
    azp: Option<String>,
    #[serde(default)]
    scope: Option<Value>,
    #[serde(default)]
    scp: Option<Value>,
}

/// Scopes as a space-separated string or an array of strings.
fn scopes_of(value: Option<&Value>) -> impl Iterator<Item = String> + '_ {
    let (text, list) = match value {
        Some(Value::String(s)) => (Some(s.as_str()), None),
        Some(Value::Array(a)) => (None, Some(a)),
        _ => (None, None),
    };
    let from_text = text.into_iter().flat_map(|s| s.split(' ')).filter(|s| !s.is_empty()).map(str::to_owned);
    let from_list = list.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned);
    from_text.chain(from_list)
}

/// Why a token was refused (the `error_description`: what a client author needs, nothing of the
/// keys).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Rejected(pub String);

impl ResourceServer {
    /// The resource server for `options`; `writes` says which calls need the write scope (by
    /// tool name and arguments); `max_body` bounds the request body read to find a call's tool.
    pub fn new(options: OAuthOptions, writes: CallWrites, max_body: usize) -> Result<ResourceServer, OAuthSetupError> {
        check_url("--auth-issuer", &options.issuer)?;
        let public = check_public_url(&options.public_url)?;
        let (origin, path) = origin_and_path(&public);
        let metadata_url = format!("{origin}/.well-known/oauth-protected-resource{path}");
        let mut metadata_paths = vec!["/.well-known/oauth-protected-resource".to_owned()];
        if !path.is_empty() {
            metadata_paths.push(format!("/.well-known/oauth-protected-resource{path}"));
        }
        let keys = KeySource::new(options.issuer.clone());
        Ok(ResourceServer {
            options,
            metadata_url,
            metadata_paths,
            writes,
            max_body,
            keys,
            remembered: Mutex::new(HashMap::new()),
        })
    }

    /// The paths that serve the Protected Resource Metadata.
    pub fn metadata_paths(&self) -> &[String] {
        &self.metadata_paths
    }

    /// The Protected Resource Metadata document (RFC 9728).
    pub fn metadata(&self, resource_name: &str) -> Value {
        json!({
            "resource": self.options.public_url,
            "authorization_servers": [self.options.issuer],
            "scopes_supported": [self.options.read_scope, self.options.write_scope],
            "bearer_methods_supported": ["header"],
            "resource_name": resource_name,
        })
    }

    /// Fetches the keys at start-up (a failure is logged; the next token tries again).
    pub async fn prefetch(&self) {
        self.keys.prefetch().await;
    }

    /// The principal of a valid `token` (a token checked before is trusted until its `exp`).
    pub async fn validate(&self, token: &str) -> Result<Principal, Rejected> {
        use sha2::{Digest, Sha256};
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let now = jsonwebtoken::get_current_timestamp();
        {
            let remembered = self.remembered.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((principal, exp)) = remembered.get(&digest) {
                if now <= exp.saturating_add(LEEWAY_SECS) {
                    return Ok(principal.clone());
                }
                return Err(Rejected("the token has expired".into()));
            }
        }
        let (principal, exp) = self.check(token).await?;
        let mut remembered = self.remembered.lock().unwrap_or_else(PoisonError::into_inner);
        if remembered.len() >= MAX_REMEMBERED {
            remembered.retain(|_, (_, exp)| now <= exp.saturating_add(LEEWAY_SECS));
            if remembered.len() >= MAX_REMEMBERED {
                remembered.clear();
            }
        }
        remembered.insert(digest, (principal.clone(), exp));
        Ok(principal)
    }

    /// The full check of `token`: its principal and `exp`.
    async fn check(&self, token: &str) -> Result<(Principal, u64), Rejected> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| Rejected("the access token is not a JWT".into()))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(Rejected(format!(
                "the token's algorithm {:?} is not accepted (ES256, RS256, EdDSA)",
                header.alg
            )));
        }
        // RFC 7515 §4.1.11: a `crit` header names extensions the recipient must understand, or
        // reject the token; this server understands none.
        if header.crit.is_some() {
            return Err(Rejected(
                "the token's header marks extensions as critical (crit), which this server does not understand".into(),
            ));
        }
        let kid = header.kid.unwrap_or_default();
        let key = match self.keys.key_for(&kid).await {
            Some(key) => key,
            None => {
                self.keys.refresh().await;
                self.keys
                    .key_for(&kid)
                    .await
                    .ok_or_else(|| Rejected("the token is not signed by a key of the authorization server".into()))?
            }
        };
        if key.1.is_some_and(|alg| alg != header.alg) {
            return Err(Rejected("the token's algorithm is not its key's".into()));
        }
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.options.issuer]);
        validation.set_audience(&[&self.options.public_url]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = LEEWAY_SECS;
        validation.validate_nbf = true;
        let data = jsonwebtoken::decode::<Claims>(token, &key.0, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            Rejected(
                match e.kind() {
                    ErrorKind::ExpiredSignature => "the token has expired",
                    ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)",
                    ErrorKind::InvalidAudience => {
                        "the token was not issued for this server (aud is not its --public-url)"
                    }
                    ErrorKind::InvalidIssuer => "the token was not issued by this server's authorization server",
                    ErrorKind::MissingRequiredClaim(_) => "the token lacks exp, iss or aud",
                    ErrorKind::InvalidSignature => "the token's signature does not verify",
                    _ => "the token is malformed",
                }
                .to_owned(),
            )
        })?;
        let claims = data.claims;
        let now = jsonwebtoken::get_current_timestamp();
        if let Some(iat) = &claims.iat {
            let Some(issued) = iat.as_f64() else {
                return Err(Rejected("the token's iat is not a number".into()));
            };
            // u64 → f64: seconds since 1970 are exact in an f64 for the next few million years.
            #[allow(clippy::cast_precision_loss)]
            if issued > now.saturating_add(LEEWAY_SECS) as f64 {
                return Err(Rejected("the token is issued in the future (iat); check the clocks".into()));
            }
        }
        let client = claims.client_id.clone().or_else(|| claims.azp.clone());
        let subject = claims.sub.or(claims.client_id).or(claims.azp).unwrap_or_else(|| "unknown".to_owned());
        let scopes = scopes_of(claims.scope.as_ref()).chain(scopes_of(claims.scp.as_ref())).collect();
        Ok((Principal { subject, client, scopes }, claims.exp))
    }

    fn challenge(&self, error: Option<&str>, scope: &str) -> HeaderValue {
        let quoted = |s: &str| s.replace(['"', '\\'], "");
        let mut value = String::from("Bearer");
        if let Some(error) = error {
            value.push_str(&format!(" error=\"{}\",", quoted(error)));
        }
        value.push_str(&format!(" resource_metadata=\"{}\", scope=\"{}\"", quoted(&self.metadata_url), quoted(scope)));
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    fn refusal(&self, status: StatusCode, error: &str, description: &str, scope: &str) -> Response {
        if status == StatusCode::UNAUTHORIZED
            && let Some(metrics) = crate::metrics::global()
        {
            metrics.unauthorized();
        }
        let body = json!({"error": error, "error_description": description});
        let challenge_error = (error != "invalid_request" || status != StatusCode::UNAUTHORIZED).then_some(error);
        let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
        response.headers_mut().insert(header::WWW_AUTHENTICATE, self.challenge(challenge_error, scope));
        response
    }

    /// Whether the JSON-RPC body (one message or a batch) calls a tool that needs the write scope.
    fn needs_write(&self, body: &[u8]) -> bool {
        let Ok(value) = serde_json::from_slice::<Value>(body) else { return false };
        let messages = match &value {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        messages.into_iter().any(|m| {
            m["method"] == "tools/call"
                && m["params"]["name"].as_str().is_some_and(|n| (self.writes)(n, m["params"]["arguments"].as_object()))
        })
    }
}

/// Checks `--public-url`: an absolute http(s) URL (it is the audience; plain http is allowed,
/// since TLS may end at a proxy in front).
fn check_public_url(url: &str) -> Result<Uri, OAuthSetupError> {
    let bad =
        |reason: &str| OAuthSetupError::Url { flag: "--public-url", url: url.to_owned(), reason: reason.to_owned() };
    let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
    match (uri.scheme_str(), uri.host()) {
        (Some("https" | "http"), Some(_)) => Ok(uri),
        _ => Err(bad("must be the absolute http(s) URL clients use, e.g. https://mcp.example.com/mcp")),
    }
}

/// [`gate`] as a layer of its own (`/metrics` with `--protect-metrics`).
pub async fn gate_layer(State(rs): State<Arc<ResourceServer>>, request: Request, next: Next) -> Response {
    gate(&rs, request, |request| next.run(request)).await
}

/// The check in front of the MCP endpoint (one of the HTTP endpoint's checks).
pub async fn gate<F: super::wire::Onward>(rs: &ResourceServer, request: Request, next: F) -> Response {
    let read = rs.options.read_scope.clone();
    let both = format!("{} {}", rs.options.read_scope, rs.options.write_scope);
    if request.uri().query().is_some_and(|q| q.split('&').any(|p| p.starts_with("access_token="))) {
        return rs.refusal(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "send the access token in the Authorization header, never in the URL",
            &read,
        );
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token)
        .map(str::to_owned);
    let Some(token) = presented else {
        return rs.refusal(
            StatusCode::UNAUTHORIZED,
            "invalid_request",
            "this server needs an OAuth access token: Authorization: Bearer <token>, from the authorization server its resource metadata names",
            &read,
        );
    };
    let principal = match rs.validate(&token).await {
        Ok(principal) => principal,
        Err(Rejected(why)) => return rs.refusal(StatusCode::UNAUTHORIZED, "invalid_token", &why, &read),
    };
    if !principal.scopes.contains(&rs.options.read_scope) {
        return rs.refusal(
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            &format!("this server needs the scope {}", rs.options.read_scope),
            &read,
        );
    }
    let (mut parts, body) = request.into_parts();
    parts.extensions.insert(Caller(principal.subject.clone()));
    // A session belongs to the subject and client that opened it (`session_gate::sessions`).
    let owner = format!("{}\u{0}{}", principal.subject, principal.client.as_deref().unwrap_or_default());
    parts.extensions.insert(super::wire::SessionOwner(owner.into()));
    if parts.method != Method::POST || principal.scopes.contains(&rs.options.write_scope) {
        return next(Request::from_parts(parts, body)).await;
    }
    // A call that may change something needs the write scope: read the body to see.
    let bytes = match axum::body::to_bytes(body, rs.max_body).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "the request body is too large or did not arrive"}});
            return (StatusCode::PAYLOAD_TOO_LARGE, [(header::CONTENT_TYPE, "application/json")], body.to_string())
                .into_response();
        }
    };
    if rs.needs_write(&bytes) {
        return rs.refusal(
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            &format!(
                "this tool can change files: its call needs the scope {}; nothing was done",
                rs.options.write_scope
            ),
            &both,
        );
    }
    next(Request::from_parts(parts, Body::from(bytes))).await
}

/// `GET` of the Protected Resource Metadata.
pub async fn metadata(State((rs, name)): State<(Arc<ResourceServer>, Arc<str>)>) -> Response {
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], rs.metadata(&name).to_string()).into_response()
}

#[cfg(test)]
mod tests {
    use super::keys::metadata_urls;
    use super::*;

    fn options() -> OAuthOptions {
        OAuthOptions {
            issuer: "https://auth.example.com/tenant".into(),
            public_url: "https://mcp.example.com/mcp".into(),
            read_scope: "mcp:read".into(),
            write_scope: "mcp:write".into(),
        }
    }

    #[test]
    fn metadata_is_found_path_aware_then_openid() {
        let issuer: Uri = "https://auth.example.com/tenant".parse().unwrap();
        assert_eq!(
            metadata_urls(&issuer),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
                "https://auth.example.com/tenant/.well-known/openid-configuration",
                "https://auth.example.com/.well-known/openid-configuration/tenant",
            ]
        );
        let root: Uri = "https://auth.example.com/".parse().unwrap();
        assert_eq!(
            metadata_urls(&root),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn an_issuer_must_be_https_unless_loopback() {
        assert!(check_url("--auth-issuer", "https://a.example").is_ok());
        assert!(check_url("--auth-issuer", "http://127.0.0.1:3000").is_ok());
        assert!(check_url("--auth-issuer", "http://localhost:3000/x").is_ok());
        assert!(check_url("--auth-issuer", "http://[::1]:3000").is_ok());
        assert!(check_url("--auth-issuer", "http://auth.example").is_err());
        assert!(check_url("--auth-issuer", "ftp://auth.example").is_err());
        assert!(check_url("--auth-issuer", "not a url").is_err());
        assert!(check_public_url("mcp.example.com").is_err());
    }

    #[tokio::test]
    async fn the_metadata_names_the_resource_and_its_server() {
        let rs =
            ResourceServer::new(options(), Arc::new(|_: &str, _: Option<&serde_json::Map<String, Value>>| false), 1024)
                .unwrap();
        assert_eq!(
            rs.metadata_paths(),
            ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
        );
        let doc = rs.metadata("srv");
        assert_eq!(doc["resource"], "https://mcp.example.com/mcp");
        assert_eq!(doc["authorization_servers"], json!(["https://auth.example.com/tenant"]));
        assert_eq!(doc["scopes_supported"], json!(["mcp:read", "mcp:write"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert_eq!(
            rs.challenge(Some("invalid_token"), "mcp:read"),
            "Bearer error=\"invalid_token\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:read\""
        );
    }

    #[tokio::test]
    async fn a_call_needs_write_only_for_a_tool_that_changes_something() {
        let writes: CallWrites = Arc::new(|name, arguments| {
            name == "write_file" || (name == "editor" && arguments.is_none_or(|a| a["command"] != "view"))
        });
        let rs = ResourceServer::new(options(), writes, 1024).unwrap();
        let call =
            |name: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}"}}}}"#);
        assert!(rs.needs_write(call("write_file").as_bytes()));
        assert!(!rs.needs_write(call("read_file").as_bytes()));
        assert!(rs.needs_write(format!("[{},{}]", call("read_file"), call("write_file")).as_bytes()));
        assert!(!rs.needs_write(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#));
        assert!(!rs.needs_write(b"not json"));
        // Decided per call: a tool whose `view` changes nothing.
        let editor = |command: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"editor","arguments":{{"command":"{command}"}}}}}}"#
            )
        };
        assert!(!rs.needs_write(editor("view").as_bytes()));
        assert!(rs.needs_write(editor("create").as_bytes()));
    }

    #[tokio::test]
    async fn a_token_that_is_not_a_jwt_or_uses_another_algorithm_is_rejected() {
        let rs =
            ResourceServer::new(options(), Arc::new(|_: &str, _: Option<&serde_json::Map<String, Value>>| false), 1024)
                .unwrap();
        assert_eq!(rs.validate("abc").await, Err(Rejected("the access token is not a JWT".into())));
        // {"alg":"HS256","typ":"JWT"}.{}.sig: a shared-secret token is never accepted.
        let hs = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln";
        assert!(rs.validate(hs).await.unwrap_err().0.contains("not accepted"));
        // {"alg":"none"}
        let none = "eyJhbGciOiJub25lIn0.e30.";
        assert!(rs.validate(none).await.is_err());
    }
}
