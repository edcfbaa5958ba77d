//! The bridge against a Gemini CLI IDE companion written from its specification
//! (google-gemini/gemini-cli `docs/ide-integration/ide-companion-spec.md`): the discovery file
//! `<tmp>/gemini/ide/gemini-ide-server-<pid>-<port>.json`, MCP over Streamable HTTP at `/mcp` with
//! `Authorization: Bearer`, a session, `ide/contextUpdate` on the session's event stream, the
//! `openDiff` tool answered at once and the user's decision as `ide/diffAccepted` or
//! `ide/diffRejected`, and `closeDiff`.

use std::{
    convert::Infallible,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    thread::JoinHandle,
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response, Sse, sse::Event},
    routing::post,
};
use mcp_tests::{StdioClient, is_error, structured, text_of};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::{Env, WAIT, code};

const TOKEN: &str = "gemini-companion-token";
const SESSION: &str = "session-1";

#[derive(Clone)]
struct Companion {
    notes: broadcast::Sender<Value>,
    calls: Arc<Mutex<Vec<(String, Value)>>>,
    context: Value,
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
        && headers.get("origin").is_none()
}

async fn on_post(State(state): State<Companion>, headers: HeaderMap, body: Bytes) -> Response {
    if !authorized(&headers) {
        return (StatusCode::UNAUTHORIZED, "Unauthorized").into_response();
    }
    let message: Value = serde_json::from_slice(&body).unwrap();
    let Some(id) = message.get("id").cloned() else { return StatusCode::ACCEPTED.into_response() };
    let method = message["method"].as_str().unwrap_or("");
    if method == "initialize" {
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "gemini-cli-companion-mcp-server", "version": "1.0.0"}}});
        return ([("content-type", "application/json"), ("mcp-session-id", SESSION)], answer.to_string())
            .into_response();
    }
    if headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) != Some(SESSION) {
        return (StatusCode::NOT_FOUND, "Invalid or missing session ID").into_response();
    }
    let result = match method {
        "tools/list" => json!({"tools": [
            {"name": "openDiff", "inputSchema": {"type": "object"}},
            {"name": "closeDiff", "inputSchema": {"type": "object"}}
        ]}),
        "tools/call" => {
            let name = message["params"]["name"].as_str().unwrap_or("").to_owned();
            state.calls.lock().unwrap().push((name.clone(), message["params"]["arguments"].clone()));
            match name.as_str() {
                "openDiff" => json!({"content": []}),
                "closeDiff" => json!({"content": [{"type": "text", "text": "the final content"}]}),
                _ => json!({"isError": true, "content": [{"type": "text", "text": "unknown tool"}]}),
            }
        }
        _ => {
            return (
                [("content-type", "application/json")],
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
                    .to_string(),
            )
                .into_response();
        }
    };
    // As the TypeScript SDK's transport answers: an event stream with the one message.
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
    ([("content-type", "text/event-stream")], format!("event: message\ndata: {answer}\n\n")).into_response()
}

async fn on_get(State(state): State<Companion>, headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return (StatusCode::UNAUTHORIZED, "Unauthorized").into_response();
    }
    if headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) != Some(SESSION) {
        return (StatusCode::BAD_REQUEST, "Invalid or missing session ID").into_response();
    }
    let first = json!({"jsonrpc": "2.0", "method": "ide/contextUpdate", "params": state.context});
    let rx = state.notes.subscribe();
    let stream = futures::stream::once(async move { first }).chain(futures::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(note) => return Some((note, rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }));
    Sse::new(futures::StreamExt::map(stream, |note| {
        Ok::<_, Infallible>(Event::default().event("message").data(note.to_string()))
    }))
    .into_response()
}

use futures::StreamExt as _;

/// The fake companion on 127.0.0.1 with its discovery file; stopped (and the file removed) on drop.
struct FakeCompanion {
    notes: broadcast::Sender<Value>,
    calls: Arc<Mutex<Vec<(String, Value)>>>,
    file: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FakeCompanion {
    fn start(env: &Env, folder: &Path) -> FakeCompanion {
        let (notes, _) = broadcast::channel(64);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let context = json!({"workspaceState": {"openFiles": [
            {"path": folder.join("b.txt"), "timestamp": 1},
            {"path": folder.join("a.txt"), "timestamp": 2, "isActive": true, "cursor": {"line": 2, "character": 3}, "selectedText": "lpha"},
            {"path": "/etc/hosts", "timestamp": 0}
        ]}, "isTrusted": true});
        let state = Companion { notes: notes.clone(), calls: Arc::clone(&calls), context };
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            super::rt().block_on(async move {
                let app = Router::new().route("/mcp", post(on_post).get(on_get)).with_state(state);
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                port_tx.send(listener.local_addr().unwrap().port()).unwrap();
                let serve = axum::serve(listener, app);
                tokio::select! {
                    _ = serve => {}
                    _ = stopped => {}
                }
            });
        });
        let port = port_rx.recv().unwrap();
        let dir = env.tmp.path().join("gemini/ide");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("gemini-ide-server-{}-{port}.json", std::process::id()));
        let record = json!({"port": port, "workspacePath": folder, "authToken": TOKEN, "ideInfo": {"name": "vscode", "displayName": "VS Code"}});
        std::fs::write(&file, record.to_string()).unwrap();
        FakeCompanion { notes, calls, file, stop: Some(stop), thread: Some(thread) }
    }

    fn notify(&self, method: &str, params: Value) {
        self.notes.send(json!({"jsonrpc": "2.0", "method": method, "params": params})).unwrap();
    }

    /// Waits for the `n`th call of the companion's tool `name`; its arguments.
    fn wait_call(&self, name: &str, n: usize) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let calls = self.calls.lock().unwrap().clone();
            if let Some((_, args)) = calls.iter().filter(|(t, _)| t == name).nth(n - 1) {
                return args.clone();
            }
            assert!(Instant::now() < deadline, "{name} was never called: {calls:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for FakeCompanion {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.file);
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn bridge(env: &Env, ws: &Path, args: &[&str]) -> StdioClient {
    let mut client = env.bridge_builder(ws, args).env("TMPDIR", env.tmp.path()).spawn().unwrap();
    client.initialize().unwrap();
    client
}

fn diff(bridge: &mut StdioClient, path: &str, new_text: &str) -> u64 {
    bridge
        .send_request(
            "tools/call",
            json!({"name": "open_diff", "arguments": {"path": path, "new_text": new_text, "wait_ms": 60000}}),
        )
        .unwrap()
}

#[test]
fn a_gemini_companion_is_found_and_serves_diffs_and_its_context() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "alpha\nbeta\n"), ("b.txt", "keep\n")]);
    let companion = FakeCompanion::start(&env, &ws);
    let mut bridge = bridge(&env, &ws, &[]);
    let names: Vec<String> =
        bridge.list_tools().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(
        names,
        [
            "list_files",
            "read_file",
            "write_file",
            "get_open_editors",
            "get_selection",
            "open_diff",
            "close_diffs",
            "ide_status"
        ]
    );
    let status = structured(&bridge.call_tool("ide_status", json!({})).unwrap()).unwrap();
    assert_eq!(status["protocol"], "gemini", "{status}");
    assert!(status["ide"].as_str().unwrap().starts_with("VS Code"), "{status}");

    // The context updates: open files (nothing outside the workspace), the active one's cursor
    // and selected text.
    let editors = structured(&bridge.call_tool("get_open_editors", json!({})).unwrap()).unwrap();
    assert_eq!(
        editors,
        json!({"editors": [{"path": "b.txt", "active": false, "dirty": false}, {"path": "a.txt", "active": true, "dirty": false}], "outside": 1})
    );
    let selection = structured(&bridge.call_tool("get_selection", json!({})).unwrap()).unwrap();
    assert_eq!(selection["selection"]["path"], "a.txt");
    assert_eq!(selection["selection"]["start"], json!({"line": 2, "column": 3}));
    assert_eq!(selection["selection"]["text"], "lpha");
    companion.notify("ide/contextUpdate", json!({"workspaceState": {"openFiles": [{"path": ws.join("b.txt"), "timestamp": 9, "isActive": true, "cursor": {"line": 1, "character": 1}}]}}));
    let deadline = Instant::now() + WAIT;
    while structured(&bridge.call_tool("get_selection", json!({})).unwrap()).unwrap()["selection"]["path"] != "b.txt" {
        assert!(Instant::now() < deadline, "the context update never reached the bridge");
        std::thread::sleep(Duration::from_millis(20));
    }

    // A diff accepted with the user's own edit: the bridge writes the final text.
    let id = diff(&mut bridge, "a.txt", "alpha\nBETA\n");
    let opened = companion.wait_call("openDiff", 1);
    assert_eq!(opened, json!({"filePath": ws.join("a.txt"), "newContent": "alpha\nBETA\n"}));
    companion.notify("ide/diffAccepted", json!({"filePath": ws.join("a.txt"), "content": "alpha\nBETA!\n"}));
    let result = bridge.wait_response(id).unwrap()["result"].clone();
    let s = structured(&result).unwrap();
    assert_eq!((s["status"].as_str(), s["user_edited"].as_bool()), (Some("accepted"), Some(true)), "{result}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "alpha\nBETA!\n");

    // Rejected: nothing written.
    let id = diff(&mut bridge, "b.txt", "changed\n");
    companion.wait_call("openDiff", 2);
    companion.notify("ide/diffRejected", json!({"filePath": ws.join("b.txt"), "content": "changed\n"}));
    let s = structured(&bridge.wait_response(id).unwrap()["result"]).unwrap();
    assert_eq!(s["status"], "rejected");
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "keep\n");

    // A decision for a file outside the workspace is ignored; close_diffs withdraws the open one.
    let id = diff(&mut bridge, "b.txt", "again\n");
    companion.wait_call("openDiff", 3);
    companion.notify("ide/diffAccepted", json!({"filePath": "/etc/hosts", "content": "evil"}));
    let mut other = bridge_for_close(&env, &ws);
    let closed = structured(&other.call_tool("close_diffs", json!({})).unwrap()).unwrap();
    assert_eq!(closed["closed"], json!([]), "another bridge's session has its own diffs: {closed}");
    drop(other);
    let s = structured(
        &bridge.call_tool("open_diff", json!({"path": "b.txt", "new_text": "again\n", "wait_ms": 100})).unwrap(),
    )
    .unwrap();
    assert_eq!((s["status"].as_str(), s["reused"].as_bool()), (Some("pending"), Some(true)), "{s}");
    let closed = structured(&bridge.call_tool("close_diffs", json!({})).unwrap()).unwrap();
    assert_eq!(closed["closed"], json!(["b.txt"]));
    assert_eq!(companion.wait_call("closeDiff", 1), json!({"filePath": ws.join("b.txt")}));
    let s = structured(&bridge.wait_response(id).unwrap()["result"]).unwrap();
    assert_eq!(s["status"], "rejected");
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "keep\n");
}

fn bridge_for_close(env: &Env, ws: &Path) -> StdioClient {
    bridge(env, ws, &["--ide", "gemini"])
}

#[test]
fn a_wrong_bearer_token_is_refused_and_a_companion_quitting_answers_waiting_diffs() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "one\n")]);
    let companion = FakeCompanion::start(&env, &ws);
    let mut wrong = bridge(&env, &ws, &["--ide", "gemini", "--token", "not-the-token"]);
    let call = wrong.call_tool("get_open_editors", json!({})).unwrap();
    assert_eq!(code(&call), "ACCESS_DENIED", "{call}");

    let mut bridge = bridge(&env, &ws, &["--ide", "gemini"]);
    let id = diff(&mut bridge, "a.txt", "two\n");
    companion.wait_call("openDiff", 1);
    drop(companion);
    let response = bridge.wait_response(id).unwrap();
    let result = &response["result"];
    assert!(is_error(result), "{response}");
    assert_eq!(code(result), "UNAVAILABLE", "{response}");
    assert!(text_of(result).contains("nothing was written"), "{response}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
}
