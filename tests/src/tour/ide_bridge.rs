//! Tour of the IDE bridge: starts an `ide-bridge-host` on a temporary workspace (port 0, a
//! private discovery directory), then an `mcp-server-ide-bridge` session that finds it through
//! the discovery file: listing (without .gitignored and hidden files), reading, writing, a
//! resource, two refused calls, and the host going away and coming back.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::Tour;
use crate::result::{is_error, text_of};

/// The MCP server's binary (and `serverInfo.name`).
pub const BINARY: &str = "mcp-server-ide-bridge";
/// The workspace host's binary.
pub const HOST: &str = "ide-bridge-host";

/// A temporary directory removed on drop (the tour has no tempfile crate).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir> {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("mcp-tour-ide-bridge-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running host, killed on drop.
struct Host {
    child: Child,
    port: u16,
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_host(t: &mut Tour, root: &Path, xdg: &Path) -> Result<Host> {
    let program = crate::locate::find_server_binary(HOST)?;
    t.note(&format!("$ XDG_RUNTIME_DIR={} {HOST} --root {} --port 0", xdg.display(), root.display()));
    let mut child = Command::new(program)
        .arg("--root")
        .arg(root)
        .args(["--port", "0"])
        .env("XDG_RUNTIME_DIR", xdg)
        .env_remove("IDE_BRIDGE_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {HOST}"))?;
    let stderr = child.stderr.take().context("no stderr pipe")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                // The tour stopped listening; keep draining so the host never blocks on stderr.
            }
        }
    });
    let mut host = Host { child, port: 0 };
    loop {
        let line = rx.recv_timeout(Duration::from_secs(20)).context("the host did not say it was listening")?;
        if let Some(port) = line.strip_prefix("ide-bridge-host: listening on ws://127.0.0.1:") {
            host.port = port.trim().parse().context("an unreadable port")?;
            t.note(&format!("the host listens on 127.0.0.1:{} and wrote its discovery file", host.port));
            return Ok(host);
        }
        if line.contains("token:") {
            t.note("the host generated a token and printed it once on stderr (it is in the discovery file too)");
        }
        if host.child.try_wait()?.is_some() {
            bail!("{HOST} exited: {line}");
        }
    }
}

/// Runs the ide-bridge section.
pub fn run(t: &mut Tour) -> Result<()> {
    let tmp = TempDir::new()?;
    let ws = tmp.0.join("workspace");
    let xdg = tmp.0.join("runtime");
    for (path, content) in [
        ("README.md", "# demo\n"),
        ("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n"),
        (".gitignore", "target/\n"),
        ("target/debug/app", "binary"),
        (".env", "SECRET=1\n"),
    ] {
        let p = ws.join(path);
        std::fs::create_dir_all(p.parent().context("a parent")?)?;
        std::fs::write(p, content)?;
    }
    std::fs::create_dir_all(&xdg)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&xdg, std::fs::Permissions::from_mode(0o700))?;
    }
    let ws = ws.canonicalize()?;

    let host = start_host(t, &ws, &xdg)?;
    t.note(&format!(
        "$ cd {} && XDG_RUNTIME_DIR={} {BINARY}   (finds the host through discovery)",
        ws.display(),
        xdg.display()
    ));
    let mut c = t
        .builder(BINARY)?
        .current_dir(&ws)
        .env("XDG_RUNTIME_DIR", &xdg)
        .env_remove("IDE_BRIDGE_TOKEN")
        .spawn()
        .with_context(|| format!("cannot start {BINARY}"))?;
    t.initialize(&mut c, BINARY)?;
    t.tools_list(&mut c, &["list_files", "read_file", "write_file"])?;

    let r = t.call(&mut c, "list_files: the whole tree", "list_files", json!({"recursive": true}))?;
    t.expect_structured(
        "target/ (.gitignore) and .env (hidden) are left out",
        &r,
        &json!({"files": ["README.md", "src/main.rs"], "truncated": false}),
    );

    let r = t.call(&mut c, "read_file: src/main.rs", "read_file", json!({"path": "src/main.rs"}))?;
    t.check(
        "the text comes back exactly",
        !is_error(&r) && text_of(&r) == "fn main() {\n    println!(\"hello\");\n}\n",
        &format!("the file's text; got {:?}", text_of(&r)),
    );

    let r = t.call(
        &mut c,
        "write_file: a new file in a new directory",
        "write_file",
        json!({"path": "notes/todo.md", "content": "- try the bridge\n"}),
    )?;
    t.expect_structured("created, 17 bytes", &r, &json!({"path": "notes/todo.md", "bytes": 17, "created": true}));
    let on_disk = std::fs::read_to_string(ws.join("notes/todo.md")).unwrap_or_default();
    t.check("the file is on disk", on_disk == "- try the bridge\n", &format!("the new content; got {on_disk:?}"));

    t.step("resources/read: file:///notes%2Ftodo.md (an encoded slash)");
    let response = t.request(&mut c, "resources/read", json!({"uri": "file:///notes%2Ftodo.md"}))?;
    let text = response.pointer("/result/contents/0/text").and_then(|v| v.as_str()).unwrap_or("");
    t.check("the resource is the file's text", text == "- try the bridge\n", &format!("got {text:?}"));

    let r = t.call(&mut c, "bad call: a path outside the workspace", "read_file", json!({"path": "../runtime"}))?;
    t.expect_error("`..` out of the workspace is ACCESS_DENIED", &r, "ACCESS_DENIED");
    let r = t.call(&mut c, "bad call: a file that does not exist", "read_file", json!({"path": "src/nope.rs"}))?;
    t.expect_error("a missing file is NOT_FOUND", &r, "NOT_FOUND");

    drop(host);
    t.note("the host was stopped");
    let r = t.call(&mut c, "read_file while the host is down", "read_file", json!({"path": "README.md"}))?;
    t.expect_error("the call fails fast with UNAVAILABLE", &r, "UNAVAILABLE");

    let host = start_host(t, &ws, &xdg)?;
    let r = t.call(
        &mut c,
        "read_file after the host came back (new port, new token)",
        "read_file",
        json!({"path": "README.md"}),
    )?;
    t.check(
        "the same bridge reconnected by itself",
        !is_error(&r) && text_of(&r) == "# demo\n",
        &format!("the README; got {:?}", text_of(&r)),
    );

    let status = c.wait()?;
    t.check("exits cleanly when stdin closes", status.success(), &format!("exit status 0; got {status}"));
    drop(host);
    Ok(())
}
