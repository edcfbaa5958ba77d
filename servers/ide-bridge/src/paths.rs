//! Paths as the bridge receives them (tool arguments, `file:///` URIs) and as the host takes them.
//!
//! The host takes paths relative to the workspace root. A model may pass an absolute path inside
//! the workspace (as an IDE's `file:///path/to/project/src/main.ts` is); it is made relative
//! here, lexically, and the host's sandbox still decides what is inside. Everything else is passed
//! on unchanged, so the host's refusal names the path the caller sent.

use std::path::{Component, Path};

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

/// The URI scheme prefix of workspace resources.
pub const FILE_PREFIX: &str = "file:///";

/// The URI template of workspace resources.
pub const FILE_TEMPLATE: &str = "file:///{path}";

/// Characters percent-encoded in a resource URI's path (`/` stays as it is).
const PATH_SET: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'[')
    .add(b']')
    .add(b'^')
    .add(b'|')
    .add(b'\\');

/// `path` as the host takes it: an absolute path inside a workspace folder becomes relative to
/// it (`.` for the folder itself); in a multi-root workspace (more than one folder), a folder
/// after the first is addressed by its name (`names[i]/rest`, protocol §4 "Paths"). Anything
/// else is returned unchanged.
pub fn to_host_path(folders: &[String], names: &[String], path: &str) -> String {
    let given = Path::new(path);
    if !given.is_absolute() {
        return path.to_owned();
    }
    // The deepest folder containing the path (component-wise).
    let found = folders
        .iter()
        .enumerate()
        .filter(|(_, root)| Path::new(root.as_str()).is_absolute())
        .filter_map(|(i, root)| given.strip_prefix(root).ok().map(|rest| (i, root.len(), rest)))
        .max_by_key(|(_, len, _)| *len);
    let Some((index, _, rest)) = found else {
        return path.to_owned();
    };
    let mut parts: Vec<String> = rest
        .components()
        .map(|c| match c {
            Component::ParentDir => "..".to_owned(),
            other => other.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    if index > 0 {
        match names.get(index) {
            Some(name) => parts.insert(0, name.clone()),
            None => return path.to_owned(),
        }
    }
    if parts.is_empty() { ".".to_owned() } else { parts.join("/") }
}

/// The names a multi-root workspace addresses its folders by: the host's `folderNames`, or each
/// folder's last path component.
pub fn folder_names(folders: &[String], reported: &[String]) -> Vec<String> {
    if reported.len() == folders.len() {
        return reported.to_vec();
    }
    folders
        .iter()
        .map(|f| Path::new(f).file_name().map_or_else(|| f.clone(), |n| n.to_string_lossy().into_owned()))
        .collect()
}

/// The resource URI of a workspace-relative path.
pub fn file_uri(rel: &str) -> String {
    format!("{FILE_PREFIX}{}", utf8_percent_encode(rel, PATH_SET))
}

/// Why a URI is not a workspace resource.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    /// Not `file:///…`.
    #[error("`{0}` is not a workspace resource: use file:///<path relative to the workspace root>")]
    NotFile(String),
    /// `file:///` alone.
    #[error("`{0}` names no file: use file:///<path relative to the workspace root>")]
    Empty(String),
    /// The percent-decoded path is not UTF-8.
    #[error("`{0}` does not decode to a UTF-8 path")]
    NotUtf8(String),
}

/// The top-level directories of the file systems the suite runs on (Linux, macOS, WSL): a
/// `file:///` URI starting with one of them, and naming no file of the workspace, is taken as the
/// absolute path it spells. Decided on the name alone: nothing outside the workspace is looked at.
const TOP_LEVEL: &[&str] = &[
    "tmp",
    "home",
    "etc",
    "usr",
    "var",
    "opt",
    "root",
    "srv",
    "mnt",
    "media",
    "proc",
    "sys",
    "dev",
    "boot",
    "run",
    "bin",
    "sbin",
    "lib",
    "lib64",
    "nix",
    "snap",
    "Users",
    "private",
    "Volumes",
    "Applications",
    "Library",
    "System",
    "cygdrive",
];

/// The absolute reading of a `file:///` URI that is not inside a workspace folder
/// (`file:///tmp/x` → `/tmp/x`), when its first component is a file system's top-level directory
/// ([`TOP_LEVEL`]): such a URI is read as workspace-relative (the template's meaning), and when
/// the workspace has no such file this is what the caller meant, a path outside the workspace.
/// `None` for anything else (`file:///missing.txt` stays a missing workspace file).
pub fn outside_reading(uri: &str, folders: &[String]) -> Option<String> {
    let decoded = parse_file_uri(uri, folders).ok()?;
    if Path::new(&decoded).is_absolute() {
        return None;
    }
    let first = decoded.split('/').next()?;
    TOP_LEVEL.contains(&first).then(|| format!("/{decoded}"))
}

/// The path of a `file:///{path}` URI, percent-decoded (so `/` may be written raw or as `%2F`).
/// `file://localhost/…` is accepted too. The result is what the caller wrote: relative to the
/// workspace root, or absolute (`file:///home/me/project/src/a.rs` → `/home/me/project/src/a.rs`)
/// when the decoded path starts with a workspace folder.
pub fn parse_file_uri(uri: &str, folders: &[String]) -> Result<String, UriError> {
    let rest = uri
        .strip_prefix(FILE_PREFIX)
        .or_else(|| uri.strip_prefix("file://localhost/"))
        .or_else(|| uri.strip_prefix("FILE:///"))
        .ok_or_else(|| UriError::NotFile(uri.to_owned()))?;
    let decoded = percent_decode_str(rest).decode_utf8().map_err(|_| UriError::NotUtf8(uri.to_owned()))?.into_owned();
    let decoded = decoded.trim_start_matches('/').to_owned();
    if decoded.is_empty() {
        return Err(UriError::Empty(uri.to_owned()));
    }
    let absolute = format!("/{decoded}");
    let inside = folders.iter().any(|root| Path::new(&absolute).starts_with(root));
    Ok(if inside { absolute } else { decoded })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders() -> Vec<String> {
        vec!["/home/me/project".to_owned()]
    }

    #[test]
    fn absolute_paths_inside_the_workspace_become_relative() {
        let names = folder_names(&folders(), &[]);
        assert_eq!(names, ["project"]);
        assert_eq!(to_host_path(&folders(), &names, "/home/me/project/src/a.rs"), "src/a.rs");
        assert_eq!(to_host_path(&folders(), &names, "/home/me/project"), ".");
        assert_eq!(to_host_path(&folders(), &names, "/home/me/project/../secret"), "../secret");
        assert_eq!(to_host_path(&folders(), &names, "/home/me/projectx/a"), "/home/me/projectx/a");
        assert_eq!(to_host_path(&folders(), &names, "/etc/passwd"), "/etc/passwd");
        assert_eq!(to_host_path(&folders(), &names, "src/a.rs"), "src/a.rs");
        assert_eq!(to_host_path(&[], &[], "/x"), "/x");
    }

    #[test]
    fn a_multi_root_workspace_addresses_later_folders_by_name() {
        let folders = vec!["/w/app".to_owned(), "/w/lib".to_owned(), "/w/app/nested".to_owned()];
        let names = folder_names(&folders, &["app".into(), "Library".into(), "nested".into()]);
        assert_eq!(to_host_path(&folders, &names, "/w/app/src/a.ts"), "src/a.ts");
        assert_eq!(to_host_path(&folders, &names, "/w/lib/src/b.ts"), "Library/src/b.ts");
        assert_eq!(to_host_path(&folders, &names, "/w/lib"), "Library");
        // The deepest folder wins.
        assert_eq!(to_host_path(&folders, &names, "/w/app/nested/c.ts"), "nested/c.ts");
        assert_eq!(folder_names(&folders, &["only-one".into()]), ["app", "lib", "nested"]);
        assert_eq!(parse_file_uri("file:///w/lib/x", &folders).unwrap(), "/w/lib/x");
    }

    #[test]
    fn uris_round_trip_with_raw_or_encoded_slashes() {
        assert_eq!(file_uri("src/main.rs"), "file:///src/main.rs");
        assert_eq!(file_uri("a b/c#d?.txt"), "file:///a%20b/c%23d%3F.txt");
        assert_eq!(file_uri("ü.txt"), "file:///%C3%BC.txt");
        for uri in
            ["file:///src/main.rs", "file:///src%2Fmain.rs", "file:///src%2fmain.rs", "file://localhost/src/main.rs"]
        {
            assert_eq!(parse_file_uri(uri, &folders()).unwrap(), "src/main.rs", "{uri}");
        }
        assert_eq!(parse_file_uri(&file_uri("a b/c#d?.txt"), &[]).unwrap(), "a b/c#d?.txt");
        assert_eq!(
            parse_file_uri("file:///home/me/project/src/a.rs", &folders()).unwrap(),
            "/home/me/project/src/a.rs"
        );
        assert_eq!(parse_file_uri("file:///home%2Fme%2Fproject%2Fa", &folders()).unwrap(), "/home/me/project/a");
        assert!(matches!(parse_file_uri("file:///", &[]), Err(UriError::Empty(_))));
        assert!(matches!(parse_file_uri("https://x/a", &[]), Err(UriError::NotFile(_))));
        assert!(matches!(parse_file_uri("file:///%FF", &[]), Err(UriError::NotUtf8(_))));
        assert_eq!(parse_file_uri("file:///../etc/passwd", &folders()).unwrap(), "../etc/passwd");
    }

    #[test]
    fn a_uri_reads_as_an_outside_path_only_under_a_top_level_directory() {
        let folders = vec!["/home/me/project".to_owned()];
        assert_eq!(outside_reading("file:///tmp/x.txt", &folders).as_deref(), Some("/tmp/x.txt"));
        assert_eq!(outside_reading("file:///etc%2Fpasswd", &folders).as_deref(), Some("/etc/passwd"));
        assert_eq!(outside_reading("file:///missing.txt", &folders), None);
        assert_eq!(outside_reading("file:///src/main.rs", &folders), None);
        assert_eq!(outside_reading("file:///home/me/project/a.rs", &folders), None, "inside: read as it is");
        assert_eq!(outside_reading("/tmp/x.txt", &folders), None, "not a URI");
    }
}
