//! What a refused escape tells the model, server by server, held to the one policy of
//! `docs/architecture.md` ("A `SandboxError` a model reads"): the code is `OUTSIDE_ROOT` (the IDE
//! bridge's wire protocol says `ACCESS_DENIED`), the message names the path as sent, never where
//! a symlink points; the configured root appears only in the text editor's message (its paths
//! are absolute host paths, and its instructions name the roots already).

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use mcp_tests::{StdioClient, error_code, find_server_binary, is_error, text_of};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

/// A workspace `<dir>/root-of-the-server` holding `link` → `<dir>/secret-target-dir`, and the
/// two names a message must not reveal when they are not its own.
struct Layout {
    dir: tempfile::TempDir,
}

impl Layout {
    fn new() -> Layout {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root-of-the-server");
        let secret = dir.path().join("secret-target-dir");
        std::fs::create_dir_all(root.join("drafts")).unwrap();
        std::fs::create_dir_all(root.join("repo")).unwrap();
        std::fs::create_dir_all(&secret).unwrap();
        std::fs::write(secret.join("x.md"), "---\ntitle: Secret\n---\nbody\n").unwrap();
        std::fs::write(dir.path().join("beside.md"), "---\ntitle: Beside\n---\nbody\n").unwrap();
        mcp_tests::os::symlink(&secret, root.join("link")).unwrap();
        Layout { dir }
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("root-of-the-server")
    }

    fn root_text(&self) -> String {
        self.root().to_str().unwrap().to_owned()
    }

    fn secret_text(&self) -> String {
        self.dir.path().join("secret-target-dir").to_str().unwrap().to_owned()
    }

    fn spawn(&self, name: &str, args: &[&str]) -> StdioClient {
        let mut client = StdioClient::builder(find_server_binary(name).unwrap())
            .args(args)
            .current_dir(self.root())
            .env("XDG_RUNTIME_DIR", self.dir.path().join("xdg"))
            .env_remove("IDE_BRIDGE_TOKEN")
            .spawn()
            .unwrap();
        client.initialize().unwrap();
        client
    }

    /// Asserts `result` is a refusal with `code` naming `sent`, and never the symlink's target;
    /// the root only when `root_shown`.
    fn check(&self, what: &str, result: &Value, code: &str, sent: &str, root_shown: bool) {
        assert!(is_error(result), "{what}: not refused: {result}");
        assert_eq!(error_code(result).as_deref(), Some(code), "{what}: {result}");
        let message = text_of(result);
        assert!(message.contains(sent), "{what}: the message does not name the path sent ({sent}): {message}");
        assert!(!message.contains(&self.secret_text()), "{what}: the message reveals the link's target: {message}");
        assert!(!message.contains("secret-target-dir"), "{what}: the message names the link's target: {message}");
        let root = self.root_text();
        let without_sent = message.replace(sent, "");
        assert_eq!(
            without_sent.contains(&root),
            root_shown,
            "{what}: the root {root} should {}appear beyond the path sent: {message}",
            if root_shown { "" } else { "not " }
        );
    }
}

#[test]
fn the_text_editor_names_its_roots_and_the_path_never_the_link_target() {
    let l = Layout::new();
    let root = l.root_text();
    let mut c = l.spawn("mcp-server-text-editor", &["--no-fsync", "--root", &root]);
    let out = l.dir.path().join("beside.md");
    let out = out.to_str().unwrap();
    let r = c.call_tool("text_editor", json!({"command": "view", "path": out})).unwrap();
    l.check("view outside", &r, "OUTSIDE_ROOT", out, true);
    let through = format!("{root}/link/x.md");
    let r = c.call_tool("text_editor", json!({"command": "view", "path": through})).unwrap();
    l.check("view through a link out", &r, "OUTSIDE_ROOT", &through, true);
    let r = c
        .call_tool("text_editor", json!({"command": "create", "path": format!("{root}/link/new.md"), "file_text": "x"}))
        .unwrap();
    l.check("create through a link out", &r, "OUTSIDE_ROOT", &format!("{root}/link/new.md"), true);
    assert!(!l.dir.path().join("secret-target-dir/new.md").exists());
}

#[test]
fn draft_post_names_neither_its_repository_nor_the_link_target() {
    let l = Layout::new();
    let repo = format!("{}/repo", l.root_text());
    let root = l.root_text();
    let mut c = l.spawn("mcp-server-draft-post", &["--no-fsync", "--repo", &repo, "--source-root", &root]);
    for source in ["link/x.md", "../beside.md"] {
        let r = c.call_tool("draft_post", json!({"source": source, "project": "2026-01"})).unwrap();
        l.check(&format!("draft_post {source}"), &r, "OUTSIDE_ROOT", source, false);
    }
    assert!(!l.root().join("repo/projects").exists(), "nothing was filed");
}

/// The headless IDE host on the layout's root, killed on drop.
struct Host(Child);

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_ide_bridge_names_neither_the_workspace_nor_the_link_target() {
    let l = Layout::new();
    let xdg = l.dir.path().join("xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    let host = Command::new(find_server_binary("ide-bridge-host").unwrap())
        .arg("--root")
        .arg(l.root())
        .args(["--port", "0"])
        .env("XDG_RUNTIME_DIR", &xdg)
        .env_remove("IDE_BRIDGE_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _host = Host(host);
    let deadline = Instant::now() + WAIT;
    // The discovery file itself (`<port>.json`), not the temporary file it is written through.
    let published = || {
        std::fs::read_dir(xdg.join("ide-bridge"))
            .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().ends_with(".json")))
            .unwrap_or(false)
    };
    while !published() {
        assert!(Instant::now() < deadline, "the host published no discovery file");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut c = l.spawn("mcp-server-ide-bridge", &[]);
    for path in ["link/x.md", "../beside.md"] {
        let r = c.call_tool("read_file", json!({"path": path})).unwrap();
        l.check(&format!("read_file {path}"), &r, "ACCESS_DENIED", path, false);
        let r = c.call_tool("write_file", json!({"path": path, "content": "x"})).unwrap();
        l.check(&format!("write_file {path}"), &r, "ACCESS_DENIED", path, false);
    }
    assert_eq!(std::fs::read_to_string(l.dir.path().join("beside.md")).unwrap(), "---\ntitle: Beside\n---\nbody\n");
}

#[test]
fn a_path_under_the_root_as_sent_is_not_counted_as_revealing_it() {
    // The check above must fail when a message names the root beyond the path sent.
    let l = Layout::new();
    let root = l.root_text();
    let leaky = json!({"isError": true, "content": [{"type": "text", "text": format!("x.md is outside {root}")}],
        "structuredContent": {"error": {"code": "OUTSIDE_ROOT", "message": format!("x.md is outside {root}")}}});
    let caught = std::panic::catch_unwind(|| l.check("leaky", &leaky, "OUTSIDE_ROOT", "x.md", false));
    assert!(caught.is_err(), "a message naming the root must fail the check");
}
