//! The input rules of the tools, as garde validators: each is checked before a tool runs and
//! reported as `INVALID_ARGS` naming the field (`field `project`: ...`), and each field's schema
//! says the same (its description, length and pattern).

use crate::{
    repo::validate_project,
    slug::{MAX_SLUG_CHARS, slugify},
    source::strip_file_prefix,
};

/// `source`: a path, not empty once a `FILE:` prefix is stripped.
pub fn source(value: &str, _: &()) -> garde::Result {
    if strip_file_prefix(value).is_empty() {
        return Err(garde::Error::new(
            "`source` is empty; pass the path of the manuscript, e.g. \"FILE:drafts/seed.md\"",
        ));
    }
    Ok(())
}

/// `project`: one directory name (see [`validate_project`]).
pub fn project(value: &Option<String>, _: &()) -> garde::Result {
    match value {
        Some(project) => validate_project(project).map_err(garde::Error::new),
        None => Ok(()),
    }
}

/// `slug`: text with at least one ASCII letter or digit (it is turned into a slug; text is
/// never transliterated).
pub fn slug(value: &Option<String>, _: &()) -> garde::Result {
    match value {
        Some(given) if slugify(given).is_empty() => Err(garde::Error::new(format!(
            "{given:?} has no ASCII letter or digit (text is never transliterated). Pass lowercase a-z, 0-9 and \
             `-` (at most {MAX_SLUG_CHARS} characters), e.g. \"my-post\", or omit it"
        ))),
        _ => Ok(()),
    }
}

/// `if_source_sha256`, `if_result_sha256`: a SHA-256 in hex (64 characters 0-9, a-f).
pub fn sha256(value: &Option<String>, _: &()) -> garde::Result {
    match value {
        Some(hash) if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Err(garde::Error::new(format!(
                "must be a SHA-256 in hex (64 characters 0-9, a-f), not {:?}",
                mcp_shared::view::shown_briefly(hash)
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_accept_and_refuse() {
        assert!(source("FILE:a.md", &()).is_ok() && source("FILE:", &()).is_err() && source("", &()).is_err());
        assert!(project(&None, &()).is_ok() && project(&Some("2026-01".into()), &()).is_ok());
        assert!(project(&Some("../x".into()), &()).is_err());
        assert!(slug(&Some("My Post".into()), &()).is_ok() && slug(&Some("日本語".into()), &()).is_err());
        assert!(sha256(&None, &()).is_ok() && sha256(&Some("ab".repeat(32)), &()).is_ok());
        assert!(sha256(&Some("xyz".into()), &()).is_err() && sha256(&Some("g".repeat(64)), &()).is_err());
    }
}
