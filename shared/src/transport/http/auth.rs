//! Bearer tokens: the one parser of an `Authorization` header (the HTTP transport and the IDE
//! bridge's WebSocket host both use it, so they accept exactly the same headers) and the
//! constant-time comparison of a presented token with the secret.

/// The token of an `Authorization: Bearer <token>` header value, or `None` when the value is not
/// a bearer credential.
///
/// RFC 7235 §2.1: the scheme is case-insensitive (`Bearer`, `bearer`, `BEARER`), separated from
/// the credential by one or more spaces; surrounding whitespace is not part of the token. An empty
/// token is no token.
pub fn bearer_token(value: &str) -> Option<&str> {
    let value = value.trim();
    let (scheme, rest) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = rest.trim();
    (!token.is_empty()).then_some(token)
}

/// Constant-time comparison of a presented token `a` with the secret `b`: their SHA-256 digests
/// compared with `subtle`, so that neither the secret's content nor its length leaks through the
/// time taken (`subtle` compares slices of equal length only in constant time).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    use sha2::{Digest as _, Sha256};
    use subtle::ConstantTimeEq as _;
    Sha256::digest(a).ct_eq(&Sha256::digest(b)).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_is_case_insensitive_and_the_token_trimmed() {
        for value in ["Bearer abc", "bearer abc", "BEARER abc", "BeArEr   abc  ", "  Bearer abc"] {
            assert_eq!(bearer_token(value), Some("abc"), "{value:?}");
        }
        for value in ["Basic abc", "Bearer", "Bearer ", "Bearerabc", "abc", "", "Token abc"] {
            assert_eq!(bearer_token(value), None, "{value:?}");
        }
    }

    #[test]
    fn token_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"abcabc", b"abc"), "a repeated secret is not the secret");
        assert!(!constant_time_eq(b"", b"abc"));
        assert!(!constant_time_eq(b"abc", b""));
        assert!(constant_time_eq(b"", b""));
    }
}
