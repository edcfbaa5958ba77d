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

/// Constant-time comparison of a presented token `a` with the secret `b`.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    // The time depends on `a`'s length only (the presented token, which the caller knows): every
    // byte of `a` is compared with `b`, cycled, and a length mismatch is folded into the result
    // instead of returning early, so neither `b`'s content nor its length leaks.
    if b.is_empty() {
        return a.is_empty();
    }
    let length_differs = u8::from(a.len() != b.len());
    let diff = a.iter().zip(b.iter().cycle()).fold(length_differs, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
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
