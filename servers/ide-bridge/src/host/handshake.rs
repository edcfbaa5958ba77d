//! The checks on the WebSocket upgrade request, before any session exists.
//!
//! In this order: `Host` must name the loopback address (and the listening port, if it has one)
//! → else 403, so a DNS-rebinding page cannot reach us under a name of its own; an `Origin`
//! header must be on the explicit allow-list (empty by default) → else 403, so no web page can;
//! `Authorization: Bearer <token>` must carry the token (compared in constant time) → else 401.

use mcp_shared::transport::http::{bearer_token, constant_time_eq};
use tokio_tungstenite::tungstenite::http::{HeaderMap, StatusCode, header};

/// Why an upgrade was refused: the status and a short reason (sent as the body, and logged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// 401 or 403.
    pub status: StatusCode,
    /// What was wrong, for the peer and the log.
    pub reason: &'static str,
}

impl Refusal {
    fn forbidden(reason: &'static str) -> Self {
        Refusal { status: StatusCode::FORBIDDEN, reason }
    }

    fn unauthorized(reason: &'static str) -> Self {
        Refusal { status: StatusCode::UNAUTHORIZED, reason }
    }
}

/// What the host accepts.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The port the host listens on (a `Host` header's port must be this one).
    pub port: u16,
    /// The bearer token.
    pub token: String,
    /// The `Origin` values accepted (exact match, ASCII case-insensitive).
    pub allowed_origins: Vec<String>,
}

impl Policy {
    /// Checks an upgrade request's headers.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let mut hosts = headers.get_all(header::HOST).iter();
        match (hosts.next(), hosts.next()) {
            (Some(value), None) => {
                let value = value.to_str().map_err(|_| Refusal::forbidden("the Host header is not ASCII"))?;
                if !is_loopback_host(value, self.port) {
                    return Err(Refusal::forbidden(
                        "the Host header must be 127.0.0.1, localhost or [::1] with the host's port",
                    ));
                }
            }
            (None, _) => return Err(Refusal::forbidden("the Host header is missing")),
            (Some(_), Some(_)) => return Err(Refusal::forbidden("more than one Host header")),
        }

        let mut origins = headers.get_all(header::ORIGIN).iter();
        match (origins.next(), origins.next()) {
            (None, _) => {}
            (Some(origin), None) => {
                let allowed = origin.to_str().is_ok_and(|origin| {
                    self.allowed_origins.iter().any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin))
                });
                if !allowed {
                    return Err(Refusal::forbidden(
                        "this Origin is not allowed (start the host with --allow-origin to allow it)",
                    ));
                }
            }
            (Some(_), Some(_)) => return Err(Refusal::forbidden("more than one Origin header")),
        }

        let mut auths = headers.get_all(header::AUTHORIZATION).iter();
        let value = match (auths.next(), auths.next()) {
            (Some(value), None) => value,
            (None, _) => return Err(Refusal::unauthorized("missing Authorization: Bearer <token>")),
            (Some(_), Some(_)) => return Err(Refusal::unauthorized("more than one Authorization header")),
        };
        let token = value.to_str().ok().and_then(bearer_token);
        match token {
            Some(token) if constant_time_eq(token.as_bytes(), self.token.as_bytes()) => Ok(()),
            Some(_) => Err(Refusal::unauthorized("wrong token")),
            None => Err(Refusal::unauthorized("the Authorization header is not `Bearer <token>`")),
        }
    }
}

/// Whether a `Host` header value names the loopback address, with `port` or no port.
pub fn is_loopback_host(value: &str, port: u16) -> bool {
    let value = value.trim();
    let (name, port_part, bracketed) = match value.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, rest)) => (addr, rest, true),
            None => return false,
        },
        None => match value.split_once(':') {
            Some((name, _)) => (name, &value[name.len()..], false),
            None => (value, "", false),
        },
    };
    let port_ok = port_part.is_empty() || port_part.strip_prefix(':').and_then(|p| p.parse::<u16>().ok()) == Some(port);
    let name_ok = if bracketed { name == "::1" } else { name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost") };
    port_ok && name_ok
}

#[cfg(test)]
mod tests {
    use tokio_tungstenite::tungstenite::http::HeaderValue;

    use super::*;

    fn policy() -> Policy {
        Policy { port: 8123, token: "s3cret".into(), allowed_origins: vec!["vscode-webview://abc".into()] }
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(header::HeaderName::from_bytes(k.as_bytes()).unwrap(), HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn loopback_hosts() {
        for ok in ["127.0.0.1:8123", "127.0.0.1", "localhost:8123", "LOCALHOST", "[::1]:8123", "[::1]"] {
            assert!(is_loopback_host(ok, 8123), "{ok}");
        }
        for bad in [
            "evil.com:8123",
            "127.0.0.1:80",
            "127.0.0.1:",
            "localhost.evil.com",
            "127.0.0.1.evil.com:8123",
            "[::2]:8123",
            "[::1",
            "0.0.0.0:8123",
            "",
        ] {
            assert!(!is_loopback_host(bad, 8123), "{bad}");
        }
    }

    #[test]
    fn the_right_token_passes() {
        let h = headers(&[("host", "127.0.0.1:8123"), ("authorization", "Bearer s3cret")]);
        assert_eq!(policy().check(&h), Ok(()));
        let h = headers(&[("host", "localhost"), ("authorization", "bearer  s3cret ")]);
        assert_eq!(policy().check(&h), Ok(()));
    }

    #[test]
    fn a_missing_or_wrong_token_is_401() {
        for auth in
            [None, Some("Bearer nope"), Some("Basic s3cret"), Some("s3cret"), Some("Bearer s3cre"), Some("Bearer ")]
        {
            let mut pairs = vec![("host", "127.0.0.1:8123")];
            if let Some(a) = auth {
                pairs.push(("authorization", a));
            }
            let refusal = policy().check(&headers(&pairs)).unwrap_err();
            assert_eq!(refusal.status, StatusCode::UNAUTHORIZED, "{auth:?}");
        }
    }

    #[test]
    fn foreign_origins_and_hosts_are_403_even_with_the_token() {
        let with = |extra: (&str, &str)| {
            let mut pairs = vec![("authorization", "Bearer s3cret"), extra];
            if extra.0 != "host" {
                pairs.push(("host", "127.0.0.1:8123"));
            }
            policy().check(&headers(&pairs))
        };
        assert_eq!(with(("origin", "https://evil.example")).unwrap_err().status, StatusCode::FORBIDDEN);
        assert_eq!(with(("origin", "null")).unwrap_err().status, StatusCode::FORBIDDEN);
        assert_eq!(with(("origin", "vscode-webview://abc")), Ok(()));
        assert_eq!(with(("host", "evil.example:8123")).unwrap_err().status, StatusCode::FORBIDDEN);
        let no_host = headers(&[("authorization", "Bearer s3cret")]);
        assert_eq!(policy().check(&no_host).unwrap_err().status, StatusCode::FORBIDDEN);
        let origin_and_no_token = headers(&[("host", "127.0.0.1:8123"), ("origin", "https://evil.example")]);
        assert_eq!(policy().check(&origin_and_no_token).unwrap_err().status, StatusCode::FORBIDDEN);
    }
}
