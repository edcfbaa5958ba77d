//! The suites, and what they share: a fixture (a temporary repository and drafts folder), a
//! server started on it, and helpers to call the tools and compare directory trees.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use mcp_tests::{StdioClient, error_code, is_error, structured, text_of};
use serde_json::{Value, json};

mod concurrency;
mod crash;
mod dry_run;
mod errors;
mod http_replicas;
mod listing;
mod no_repo;
mod protocol;
mod remote;
mod safety;
mod saved_index;
mod sources;
mod tour;
mod upsert;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-server-draft-post");

/// A temporary workspace: `repo/` (the server's `--repo`) and `drafts/` (manuscripts, outside
/// the repository). The server runs with the workspace as its working directory.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("repo")).unwrap();
        std::fs::create_dir(dir.path().join("drafts")).unwrap();
        Fixture { dir }
    }

    /// The workspace (the server's working directory).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The repository.
    pub fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// A path inside the repository.
    pub fn at(&self, rel: &str) -> PathBuf {
        self.repo().join(rel)
    }

    /// Writes `drafts/<name>` and returns its absolute path as a string.
    pub fn draft(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join("drafts").join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    }

    /// Writes a file inside the repository (by hand, as a person would).
    pub fn put(&self, rel: &str, text: &str) {
        let path = self.at(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Reads a file of the repository.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.at(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// A server on the repository, initialised.
    pub fn server(&self) -> StdioClient {
        self.server_with(&[])
    }

    /// A server on the repository with extra flags, initialised.
    pub fn server_with(&self, extra: &[&str]) -> StdioClient {
        let mut client = self.spawn(extra);
        client.initialize().expect("initialize");
        client
    }

    /// A server on the repository logging its debug messages (to read in `stderr_text`),
    /// initialised.
    pub fn builder_with_log(&self) -> StdioClient {
        let mut client = StdioClient::builder(BIN)
            .arg("--repo")
            .arg(self.repo())
            .current_dir(self.dir.path())
            .env("TZ", "UTC")
            .env("RUST_LOG", "mcp_server_draft_post=debug,mcp_shared::client_roots=debug")
            .spawn()
            .expect("spawn the server");
        client.initialize().expect("initialize");
        client
    }

    /// A server on the repository, not initialised.
    pub fn spawn(&self, extra: &[&str]) -> StdioClient {
        StdioClient::builder(BIN)
            .arg("--repo")
            .arg(self.repo())
            .args(extra)
            .current_dir(self.dir.path())
            .env("TZ", "UTC")
            .spawn()
            .expect("spawn the server")
    }

    /// Every file and directory under the repository, with file contents.
    pub fn tree(&self) -> BTreeMap<String, Option<Vec<u8>>> {
        tree(&self.repo())
    }

    /// The numbered directories of a project, sorted.
    pub fn dirs(&self, project: &str) -> Vec<String> {
        let mut names: Vec<String> = match std::fs::read_dir(self.at(&format!("projects/{project}"))) {
            Ok(entries) => {
                entries.map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| !n.starts_with('.')).collect()
            }
            Err(_) => Vec::new(),
        };
        names.sort();
        names
    }
}

/// Every entry under `root` (relative paths; `None` for directories), the server's own lock and
/// index files left out.
pub fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel.starts_with("projects/.draft-post") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(rel, None);
                walk(root, &path, out);
            } else if meta.file_type().is_symlink() {
                out.insert(rel, Some(format!("-> {}", std::fs::read_link(&path).unwrap().display()).into_bytes()));
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    walk(root, root, &mut out);
    out
}

/// Calls `draft_post`; returns the result.
pub fn draft_post(client: &mut StdioClient, args: Value) -> Value {
    client.call_tool("draft_post", args).expect("tools/call draft_post")
}

/// Calls `draft_post` and expects success; returns the structured content.
pub fn posted(client: &mut StdioClient, args: Value) -> Value {
    let result = draft_post(client, args.clone());
    assert!(!is_error(&result), "draft_post {args} failed: {result}");
    structured(&result).unwrap_or_else(|| panic!("no structured content: {result}"))
}

/// Calls `draft_post` and expects an error; returns (code, message).
pub fn refused(client: &mut StdioClient, args: Value) -> (String, String) {
    let result = draft_post(client, args.clone());
    assert!(is_error(&result), "draft_post {args} should have failed: {result}");
    let code = error_code(&result).unwrap_or_else(|| panic!("no error code: {result}"));
    (code, text_of(&result))
}

/// The `source_id` the server must give the manuscript at `path`, computed here from the rule
/// (not with the server's code): the first 16 hex digits of SHA-256 over the canonical path.
pub fn id_of(path: &str) -> String {
    use sha2::Digest;
    let canonical = std::fs::canonicalize(path).unwrap();
    let digest = sha2::Sha256::digest(canonical.to_str().unwrap().as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// [`id_of`] as the server writes it in front matter: plain, or double-quoted when YAML would
/// read the plain digits as a number (`1234567890123456`, `4e13621707320927`).
pub fn scalar_of(path: &str) -> String {
    let id = id_of(path);
    let (mantissa, exponent) = id.split_once(['e', 'E']).unwrap_or((&id, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(mantissa) && digits(exponent) { format!("\"{id}\"") } else { id }
}

/// `{"source": path, ...}`.
pub fn src(path: &str) -> Value {
    json!({ "source": path, "project": "2026-01" })
}

/// Calls `tool` as a client that declares MCP roots, answering the server's `roots/list` with
/// `roots`.
pub fn call_with_roots(c: &mut StdioClient, roots: &[&Path], tool: &str, args: Value) -> Value {
    let id = c.send_request("tools/call", json!({"name": tool, "arguments": args})).unwrap();
    loop {
        let msg = c.read_message().unwrap();
        if msg.get("method").and_then(Value::as_str) == Some("roots/list") {
            let list: Vec<Value> =
                roots.iter().map(|r| json!({"uri": format!("file://{}", r.display()), "name": "r"})).collect();
            c.send_message(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": list}})).unwrap();
            continue;
        }
        if msg.get("id") == Some(&json!(id)) {
            return msg["result"].clone();
        }
    }
}
