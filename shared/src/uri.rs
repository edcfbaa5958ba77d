//! `file://` URIs of MCP client roots (`roots/list`) as local paths: one parser for every server
//! that reads client roots (text-editor's workspace, draft-post's repository and sources).
//!
//! (The IDE bridge's `file:///{path}` *resource* URIs are another contract, workspace-relative
//! paths; they are parsed in `servers/ide-bridge/src/paths.rs`.)

use std::path::PathBuf;

/// The local path of a `file://` URI (`file:///p` or `file://localhost/p`, percent-decoded;
/// on Windows `file:///C:/p` is `C:\p`), or `None` for another scheme, another host, a relative
/// path, a path that is not UTF-8 once decoded, or one with a NUL byte.
pub fn file_uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?;
    if decoded.contains('\0') {
        return None;
    }
    crate::platform::path_of_file_uri(&decoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(windows)]
    fn windows_file_uris_name_a_drive() {
        assert_eq!(file_uri_to_path("file:///C:/Users/a%20b"), Some(PathBuf::from(r"C:\Users\a b")));
        assert_eq!(file_uri_to_path("file:///c%3A/x/y"), Some(PathBuf::from(r"c:\x\y")));
        assert_eq!(file_uri_to_path("file:///D:"), Some(PathBuf::from(r"D:\")));
        assert_eq!(file_uri_to_path("file:///home/a"), None, "no drive: no local path");
    }

    #[test]
    #[cfg(unix)]
    fn file_uris_become_paths() {
        assert_eq!(file_uri_to_path("file:///home/a%20b/p"), Some(PathBuf::from("/home/a b/p")));
        assert_eq!(file_uri_to_path("file://localhost/x"), Some(PathBuf::from("/x")));
        assert_eq!(file_uri_to_path("file:///caf%C3%A9"), Some(PathBuf::from("/café")));
        assert_eq!(file_uri_to_path("https://example.com/x"), None);
        assert_eq!(file_uri_to_path("file://host/x"), None);
        assert_eq!(file_uri_to_path("file:///a%00b"), None);
        assert_eq!(file_uri_to_path("file:///%FF"), None);
        assert_eq!(file_uri_to_path("file://relative"), None);
    }
}
