//! The authorization server's signing keys: its metadata found (RFC 8414, then OpenID
//! discovery), its JWKS fetched over HTTPS (plain HTTP only for a loopback issuer), cached, and
//! fetched again when a token names an unknown key, at most once every [`REFRESH_EVERY`].

use std::{
    collections::HashMap,
    sync::{Mutex, PoisonError},
    time::{Duration, Instant},
};

use axum::{
    body::Bytes,
    http::{StatusCode, Uri, header},
};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::{
    client::legacy::{Client, connect::HttpConnector},
    rt::TokioExecutor,
};
use jsonwebtoken::{Algorithm, DecodingKey, jwk::JwkSet};
use serde_json::Value;

use super::OAuthSetupError;

/// How long a fetch from the authorization server may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest metadata or JWKS document read.
const MAX_DOCUMENT: usize = 1024 * 1024;

/// A token naming an unknown key fetches the JWKS again at most this often.
pub const REFRESH_EVERY: Duration = Duration::from_secs(10);

type HttpsClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

struct Keys {
    /// By `kid` (`""` for a key without one).
    by_kid: HashMap<String, (DecodingKey, Option<Algorithm>)>,
    fetched: Option<Instant>,
}

/// The keys of one issuer, and how to fetch them.
pub struct KeySource {
    issuer: String,
    http: HttpsClient,
    jwks_uri: tokio::sync::Mutex<Option<String>>,
    keys: tokio::sync::RwLock<Keys>,
    refreshing: tokio::sync::Mutex<()>,
    last_refresh: Mutex<Option<Instant>>,
}

impl KeySource {
    /// The keys of `issuer` (checked by the caller), none fetched yet.
    pub fn new(issuer: String) -> KeySource {
        let https =
            hyper_rustls::HttpsConnectorBuilder::new().with_webpki_roots().https_or_http().enable_http1().build();
        KeySource {
            issuer,
            http: Client::builder(TokioExecutor::new()).build(https),
            jwks_uri: tokio::sync::Mutex::new(None),
            keys: tokio::sync::RwLock::new(Keys { by_kid: HashMap::new(), fetched: None }),
            refreshing: tokio::sync::Mutex::new(()),
            last_refresh: Mutex::new(None),
        }
    }

    async fn get_json(&self, url: &str) -> Result<Value, String> {
        let uri = check_url("the authorization server's URL", url).map_err(|e| e.to_string())?;
        let request = axum::http::Request::get(uri)
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|e| e.to_string())?;
        let response = tokio::time::timeout(FETCH_TIMEOUT, self.http.request(request))
            .await
            .map_err(|_| format!("{url}: no answer within {FETCH_TIMEOUT:?}"))?
            .map_err(|e| format!("{url}: {e}"))?;
        if response.status() != StatusCode::OK {
            return Err(format!("{url}: HTTP {}", response.status()));
        }
        let body = tokio::time::timeout(FETCH_TIMEOUT, Limited::new(response.into_body(), MAX_DOCUMENT).collect())
            .await
            .map_err(|_| format!("{url}: the body did not arrive within {FETCH_TIMEOUT:?}"))?
            .map_err(|e| format!("{url}: {e}"))?
            .to_bytes();
        serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON: {e}"))
    }

    /// The JWKS URL, from the authorization server's metadata (found once).
    async fn jwks_uri(&self) -> Result<String, String> {
        let mut known = self.jwks_uri.lock().await;
        if let Some(uri) = known.as_ref() {
            return Ok(uri.clone());
        }
        let issuer: Uri = self.issuer.parse().map_err(|_| "the issuer is not a URL".to_owned())?;
        let mut failures = Vec::new();
        for url in metadata_urls(&issuer) {
            match self.get_json(&url).await {
                Ok(metadata) => {
                    // RFC 8414 §3.3: the metadata must name the issuer we asked about.
                    if metadata["issuer"].as_str() != Some(self.issuer.as_str()) {
                        failures.push(format!("{url}: its issuer is {}, not {}", metadata["issuer"], self.issuer));
                        continue;
                    }
                    let Some(jwks) = metadata["jwks_uri"].as_str() else {
                        failures.push(format!("{url}: no jwks_uri"));
                        continue;
                    };
                    *known = Some(jwks.to_owned());
                    return Ok(jwks.to_owned());
                }
                Err(e) => failures.push(e),
            }
        }
        Err(format!("no usable authorization server metadata for {}: {}", self.issuer, failures.join("; ")))
    }

    /// Fetches the JWKS again unless that was done less than [`REFRESH_EVERY`] ago.
    pub async fn refresh(&self) {
        let _one_at_a_time = self.refreshing.lock().await;
        {
            let mut last = self.last_refresh.lock().unwrap_or_else(PoisonError::into_inner);
            if last.is_some_and(|t| t.elapsed() < REFRESH_EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        let fetched = async {
            let uri = self.jwks_uri().await?;
            let document = self.get_json(&uri).await?;
            serde_json::from_value::<JwkSet>(document).map_err(|e| format!("{uri}: not a JWK set: {e}"))
        };
        match fetched.await {
            Ok(set) => {
                let mut by_kid = HashMap::new();
                for jwk in &set.keys {
                    let Ok(key) = DecodingKey::from_jwk(jwk) else { continue };
                    let alg = jwk.common.key_algorithm.and_then(|a| Algorithm::try_from(a).ok());
                    by_kid.insert(jwk.common.key_id.clone().unwrap_or_default(), (key, alg));
                }
                tracing::info!(keys = by_kid.len(), "fetched the authorization server's keys");
                *self.keys.write().await = Keys { by_kid, fetched: Some(Instant::now()) };
            }
            Err(error) => tracing::warn!(%error, "cannot fetch the authorization server's keys"),
        }
    }

    pub async fn key_for(&self, kid: &str) -> Option<(DecodingKey, Option<Algorithm>)> {
        let keys = self.keys.read().await;
        let found = keys.by_kid.get(kid).or_else(|| {
            // A token without `kid` may use the only key there is.
            (kid.is_empty() && keys.by_kid.len() == 1).then(|| keys.by_kid.values().next()).flatten()
        });
        found.cloned()
    }

    /// Fetches the keys unless they were (a failure is logged; the next token tries again). (a failure is logged; the next token tries again).
    pub async fn prefetch(&self) {
        if self.keys.read().await.fetched.is_none() {
            self.refresh().await;
        }
    }
}

/// Whether `uri` may be fetched or named: `https`, or `http` to a loopback host.
pub fn check_url(flag: &'static str, url: &str) -> Result<Uri, OAuthSetupError> {
    let bad = |reason: &str| OAuthSetupError::Url { flag, url: url.to_owned(), reason: reason.to_owned() };
    let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
    let host = uri.host().ok_or_else(|| bad("no host"))?;
    match uri.scheme_str() {
        Some("https") => Ok(uri),
        Some("http") if is_loopback(host) => Ok(uri),
        Some("http") => Err(bad("must be https (plain http only for a loopback address)")),
        _ => Err(bad("must be an https:// URL")),
    }
}

pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The origin (`scheme://authority`) and path of `uri`, the path without a trailing `/`.
pub fn origin_and_path(uri: &Uri) -> (String, String) {
    let origin = format!("{}://{}", uri.scheme_str().unwrap_or("https"), uri.authority().map_or("", |a| a.as_str()));
    let path = uri.path().trim_end_matches('/').to_owned();
    (origin, path)
}

/// The authorization server metadata URLs to try for `issuer`, in order: RFC 8414 (path-aware),
/// OpenID Connect discovery (appended, then path-aware).
pub fn metadata_urls(issuer: &Uri) -> Vec<String> {
    let (origin, path) = origin_and_path(issuer);
    let mut urls = vec![format!("{origin}/.well-known/oauth-authorization-server{path}")];
    urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/openid-configuration{path}"));
    }
    urls
}
