//! MCP client roots: when the client declares the capability, its roots narrow the configured
//! ones (never widen them); they are asked for once and again after `roots/list_changed`.

use std::path::Path;

use mcp_tests::StdioClient;
use serde_json::{Value, json};

use super::{BIN, TOOL};

/// A client that declares roots and answers `roots/list` with `roots` (or an error).
pub(super) struct RootsClient {
    pub(super) client: StdioClient,
    pub(super) roots: Result<Vec<String>, ()>,
    pub(super) asked: usize,
}

impl RootsClient {
    fn start(configured: &[&Path], roots: Result<Vec<String>, ()>) -> RootsClient {
        let mut args = Vec::new();
        for root in configured {
            args.push("--root".to_owned());
            args.push(root.display().to_string());
        }
        RootsClient::spawn(StdioClient::builder(BIN).args(args), roots)
    }

    /// Spawns `builder`'s server and initialises it as a client that declares roots.
    pub(super) fn spawn(builder: mcp_tests::ClientBuilder, roots: Result<Vec<String>, ()>) -> RootsClient {
        let mut client = builder.spawn().unwrap();
        let mut params = StdioClient::default_initialize_params();
        params["capabilities"] = json!({"roots": {"listChanged": true}});
        client.initialize_with(params).unwrap();
        RootsClient { client, roots, asked: 0 }
    }

    /// Calls the tool, answering the server's `roots/list` requests meanwhile.
    pub(super) fn call(&mut self, args: Value) -> Value {
        let id = self.client.send_request("tools/call", json!({"name": TOOL, "arguments": args})).unwrap();
        loop {
            let msg = self.client.read_message().unwrap();
            if msg.get("method").and_then(Value::as_str) == Some("roots/list") {
                self.asked += 1;
                let reply = match &self.roots {
                    Ok(uris) => {
                        let roots: Vec<Value> = uris.iter().map(|u| json!({"uri": u, "name": "r"})).collect();
                        json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": roots}})
                    }
                    Err(()) => {
                        json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": "no roots"}})
                    }
                };
                self.client.send_message(&reply).unwrap();
                continue;
            }
            if msg.get("id") == Some(&json!(id)) {
                return msg["result"].clone();
            }
        }
    }
}

pub(super) fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

struct Tree {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("root");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        std::fs::write(root.join(sub).join("f.txt"), format!("{sub}\n")).unwrap();
    }
    std::fs::create_dir_all(root.parent().unwrap().join("elsewhere")).unwrap();
    Tree { _dir: dir, root }
}

fn view(c: &mut RootsClient, path: &Path) -> Value {
    c.call(json!({"command": "view", "path": path}))
}

#[test]
fn client_roots_narrow_the_configured_roots() {
    let t = tree();
    let mut c = RootsClient::start(&[&t.root], Ok(vec![uri(&t.root.join("a"))]));
    assert!(!mcp_tests::is_error(&view(&mut c, &t.root.join("a/f.txt"))));
    let outside = view(&mut c, &t.root.join("b/f.txt"));
    assert_eq!(mcp_tests::error_code(&outside).as_deref(), Some("OUTSIDE_ROOT"), "{outside}");
    // relative paths resolve against the (narrowed) first root
    let r = c.call(json!({"command": "view", "path": "f.txt"}));
    assert!(mcp_tests::text_of(&r).contains("\ta\n"), "{r}");
    // asked once, then cached
    assert_eq!(c.asked, 1);
}

#[test]
fn client_roots_never_widen() {
    let t = tree();
    let elsewhere = t.root.parent().unwrap().join("elsewhere");
    std::fs::write(elsewhere.join("g.txt"), "g\n").unwrap();
    let mut c = RootsClient::start(&[&t.root.join("a")], Ok(vec![uri(&t.root), uri(&elsewhere)]));
    // the client's wider root does not open b/ or elsewhere/
    assert_eq!(mcp_tests::error_code(&view(&mut c, &t.root.join("b/f.txt"))).as_deref(), Some("OUTSIDE_ROOT"));
    assert_eq!(mcp_tests::error_code(&view(&mut c, &elsewhere.join("g.txt"))).as_deref(), Some("OUTSIDE_ROOT"));
    assert!(!mcp_tests::is_error(&view(&mut c, &t.root.join("a/f.txt"))));

    // client roots only outside: nothing is accessible
    let mut c = RootsClient::start(&[&t.root], Ok(vec![uri(&elsewhere)]));
    let r = view(&mut c, &t.root.join("a/f.txt"));
    assert_eq!(mcp_tests::error_code(&r).as_deref(), Some("OUTSIDE_ROOT"), "{r}");
}

#[test]
fn roots_are_fetched_again_after_list_changed() {
    let t = tree();
    let mut c = RootsClient::start(&[&t.root], Ok(vec![uri(&t.root.join("a"))]));
    assert_eq!(mcp_tests::error_code(&view(&mut c, &t.root.join("b/f.txt"))).as_deref(), Some("OUTSIDE_ROOT"));
    c.roots = Ok(vec![uri(&t.root.join("b"))]);
    c.client.notify("notifications/roots/list_changed", Value::Null).unwrap();
    c.client.request("ping", json!({})).unwrap();
    assert!(!mcp_tests::is_error(&view(&mut c, &t.root.join("b/f.txt"))));
    assert_eq!(mcp_tests::error_code(&view(&mut c, &t.root.join("a/f.txt"))).as_deref(), Some("OUTSIDE_ROOT"));
    assert_eq!(c.asked, 2);
}

#[test]
fn a_client_without_usable_roots_gets_the_configured_ones() {
    let t = tree();
    for roots in [Err(()), Ok(vec![])] {
        let mut c = RootsClient::start(&[&t.root], roots);
        assert!(!mcp_tests::is_error(&view(&mut c, &t.root.join("b/f.txt"))));
    }
    // no roots capability: never asked
    let mut client = super::spawn_on(&t.root, &[]);
    let r = client.call_tool(TOOL, json!({"command": "view", "path": t.root.join("b/f.txt")})).unwrap();
    assert!(!mcp_tests::is_error(&r));
    assert!(client.server_requests().is_empty());
}
