//! The bridge against a scripted IDE of the Claude Code IDE protocol, for what a real one never
//! shows on demand: hostile answers (paths outside the workspace, malformed text, floods), an
//! IDE that never answers, VS Code's single-client extension (left alone unless asked for), and
//! an IDE restarted on a new port (found again through its new lock file, `tools/list_changed`).

use std::{
    path::Path,
    sync::{Arc, Mutex},
    thread::JoinHandle,
    time::{Duration, Instant},
};

use futures::{SinkExt, StreamExt};
use mcp_tests::{is_error, structured, text_of};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::{
    Message,
    handshake::server::{ErrorResponse, Request, Response},
    http::{HeaderValue, StatusCode},
};

use super::{Env, WAIT, code};

const IDE_TOKEN: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";

/// What the scripted IDE answers to `tools/call` of `name` with `arguments`: the response's
/// `result` or `error` member, or `Null` for no answer at all.
type Script = fn(&str, &Value) -> Value;

/// A scripted IDE on 127.0.0.1 with its lock file; stopped (and its lock file removed) on drop.
struct FakeIde {
    port: u16,
    lock: std::path::PathBuf,
    connections: Arc<Mutex<usize>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FakeIde {
    fn start(env: &Env, folder: &Path, ide_name: &str, tools: &'static [&'static str], script: Script) -> FakeIde {
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let connections = Arc::new(Mutex::new(0));
        let seen = Arc::clone(&connections);
        // VS Code's extension takes the upgrade and then closes a connection with a wrong token
        // (1008); the others refuse the upgrade.
        let closes_unauthorized = ide_name.contains("Code");
        let thread = std::thread::spawn(move || {
            super::rt().block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                port_tx.send(listener.local_addr().unwrap().port()).unwrap();
                let serve = async {
                    loop {
                        let (tcp, _) = listener.accept().await.unwrap();
                        let seen = Arc::clone(&seen);
                        tokio::spawn(async move {
                            let authorized = Arc::new(std::sync::atomic::AtomicBool::new(false));
                            let flag = Arc::clone(&authorized);
                            #[allow(clippy::result_large_err, reason = "tungstenite's callback type")]
                            let check = move |request: &Request, mut response: Response| -> Result<Response, ErrorResponse> {
                                let token = request.headers().get("x-claude-code-ide-authorization");
                                let ok = token.and_then(|t| t.to_str().ok()) == Some(IDE_TOKEN);
                                flag.store(ok, std::sync::atomic::Ordering::Relaxed);
                                if !ok && !closes_unauthorized {
                                    let mut refusal = ErrorResponse::new(Some("Invalid authentication token".into()));
                                    *refusal.status_mut() = StatusCode::BAD_REQUEST;
                                    return Err(refusal);
                                }
                                if request.headers().get("sec-websocket-protocol").is_some() {
                                    response.headers_mut().insert("sec-websocket-protocol", HeaderValue::from_static("mcp"));
                                }
                                Ok(response)
                            };
                            let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(tcp, check).await else { return };
                            if !authorized.load(std::sync::atomic::Ordering::Relaxed) {
                                let frame = tokio_tungstenite::tungstenite::protocol::CloseFrame {
                                    code: tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode::Policy,
                                    reason: "Unauthorized".into(),
                                };
                                let _ = ws.close(Some(frame)).await;
                                return;
                            }
                            *seen.lock().unwrap() += 1;
                            while let Some(Ok(message)) = ws.next().await {
                                let Message::Text(text) = message else { continue };
                                let request: Value = serde_json::from_str(text.as_str()).unwrap();
                                let Some(id) = request.get("id").cloned() else { continue };
                                let body = match request["method"].as_str().unwrap_or("") {
                                    "initialize" => json!({"result": {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake-ide", "version": "9.9"}}}),
                                    "tools/list" => json!({"result": {"tools": tools.iter().map(|t| json!({"name": t, "inputSchema": {"type": "object"}})).collect::<Vec<_>>()}}),
                                    "tools/call" => script(request["params"]["name"].as_str().unwrap_or(""), &request["params"]["arguments"]),
                                    _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
                                };
                                if body.is_null() {
                                    continue;
                                }
                                let mut response = json!({"jsonrpc": "2.0", "id": id});
                                for (key, value) in body.as_object().unwrap() {
                                    response[key] = value.clone();
                                }
                                if ws.send(Message::Text(response.to_string().into())).await.is_err() {
                                    return;
                                }
                            }
                        });
                    }
                };
                tokio::select! {
                    () = serve => {}
                    _ = stopped => {}
                }
            });
        });
        let port = port_rx.recv().unwrap();
        let dir = env.claude_dir().join("ide");
        std::fs::create_dir_all(&dir).unwrap();
        let lock = dir.join(format!("{port}.lock"));
        let record = json!({"pid": std::process::id(), "workspaceFolders": [folder], "ideName": ide_name, "transport": "ws", "authToken": IDE_TOKEN});
        std::fs::write(&lock, record.to_string()).unwrap();
        FakeIde { port, lock, connections, stop: Some(stop), thread: Some(thread) }
    }

    fn connections(&self) -> usize {
        *self.connections.lock().unwrap()
    }
}

impl Drop for FakeIde {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.lock);
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn text(value: Value) -> Value {
    json!({"result": {"content": [{"type": "text", "text": value.to_string()}]}})
}

fn hostile(name: &str, _arguments: &Value) -> Value {
    match name {
        "getOpenEditors" => {
            let mut tabs = vec![
                json!({"uri": "file:///etc/passwd", "isActive": false}),
                json!({"fileName": "/w/../../etc/shadow", "isActive": false}),
                json!({"uri": "file:///", "isActive": false}),
                json!({"uri": 42}),
            ];
            tabs.extend((0..20_000).map(|i| json!({"uri": format!("file:///nowhere/{i}")})));
            text(json!({ "tabs": tabs }))
        }
        "getDiagnostics" => json!({"result": {"content": [{"type": "text", "text": "this is not JSON"}]}}),
        "getCurrentSelection" => {
            json!({"error": {"code": -32001, "message": "File not open", "data": "\u{202e}evil\nline"}})
        }
        "openFile" => Value::Null,
        _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
    }
}

#[test]
fn an_ide_of_the_claude_code_protocol_lists_what_it_serves_and_is_trusted_for_nothing() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "a\n")]);
    let ide = FakeIde::start(
        &env,
        &ws,
        "Fake\nIDE",
        &["getOpenEditors", "getDiagnostics", "getCurrentSelection", "openFile"],
        hostile,
    );
    let mut bridge = env.bridge(&ws, &["--request-timeout", "1"]);
    let names: Vec<String> =
        bridge.list_tools().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(
        names,
        [
            "list_files",
            "read_file",
            "write_file",
            "get_diagnostics",
            "get_open_editors",
            "get_selection",
            "open_file",
            "ide_status"
        ]
    );
    assert_eq!(ide.connections(), 1);
    // The name is shown escaped: no forged line.
    let status = bridge.call_tool("ide_status", json!({})).unwrap();
    assert!(!text_of(&status).contains("Fake\nIDE") && text_of(&status).contains("Fake\\nIDE"), "{status}");
    // Nothing outside the workspace is shown; a flood is counted, not listed.
    let editors = structured(&bridge.call_tool("get_open_editors", json!({})).unwrap()).unwrap();
    assert_eq!(editors["editors"], json!([]), "{editors}");
    assert!(editors["outside"].as_u64().unwrap() >= 10_000, "{editors}");
    // A malformed answer is a clear error.
    let diagnostics = bridge.call_tool("get_diagnostics", json!({})).unwrap();
    assert_eq!(code(&diagnostics), "INTERNAL_ERROR", "{diagnostics}");
    assert!(text_of(&diagnostics).contains("not JSON"), "{diagnostics}");
    // The IDE's own error codes are not the bridge's (-32001 is ACCESS_DENIED on its own wire);
    // its message is shown escaped.
    let selection = bridge.call_tool("get_selection", json!({})).unwrap();
    assert_eq!(code(&selection), "INTERNAL_ERROR", "{selection}");
    let said = text_of(&selection);
    assert!(!said.contains('\u{202e}') && !said.contains("evil\nline"), "{said}");
    // An IDE that never answers: a quick timeout (--request-timeout 1), and the bridge serves on.
    let started = Instant::now();
    let open = bridge.call_tool("open_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(code(&open), "TIMEOUT", "{open}");
    assert!(started.elapsed() < WAIT, "{:?}", started.elapsed());
    // A tool the IDE lacks says so, and what would serve it.
    let diff = bridge.call_tool("open_diff", json!({"path": "a.txt", "new_text": "b\n"})).unwrap();
    assert_eq!(code(&diff), "UNAVAILABLE", "{diff}");
    assert!(text_of(&diff).contains("has no openDiff") && text_of(&diff).contains("ide-bridge extension"), "{diff}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "a\n");
    // Files stay confined to the workspace.
    let outside = bridge.call_tool("write_file", json!({"path": "../x.txt", "content": "x"})).unwrap();
    assert!(is_error(&outside), "{outside}");
    assert!(!env.tmp.path().join("x.txt").exists());
}

fn editors(name: &str, _arguments: &Value) -> Value {
    match name {
        "getOpenEditors" => text(json!({"tabs": [{"uri": "file:///PLACEHOLDER"}]})),
        _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
    }
}

#[test]
fn vs_code_s_single_client_extension_is_left_alone_unless_asked_for() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let ide = FakeIde::start(&env, &ws, "Visual Studio Code", &["getOpenEditors"], editors);
    let mut auto = env.bridge(&ws, &[]);
    let call = auto.call_tool("get_open_editors", json!({})).unwrap();
    assert_eq!(code(&call), "UNAVAILABLE", "{call}");
    let said = text_of(&call);
    assert!(
        said.contains("Visual Studio Code")
            && said.contains("one client at a time")
            && said.contains("--ide claude-code"),
        "{said}"
    );
    assert_eq!(ide.connections(), 0, "auto never connects to it");
    let mut asked = env.bridge(&ws, &["--ide", "claude-code"]);
    let call = asked.call_tool("get_open_editors", json!({})).unwrap();
    assert!(!is_error(&call), "{call}");
    assert_eq!(ide.connections(), 1);
    // Its refusal of a wrong token (the upgrade taken, then closed with 1008) is a refused token.
    let mut wrong = env.bridge(&ws, &["--ide", "claude-code", "--token", "0000"]);
    let call = wrong.call_tool("get_open_editors", json!({})).unwrap();
    assert_eq!(code(&call), "ACCESS_DENIED", "{call}");
    assert!(text_of(&call).contains("refused the bridge's token"), "{call}");
    // --ide mcp-suite never looks at lock files.
    let mut ours = env.bridge(&ws, &["--ide", "mcp-suite"]);
    let call = ours.call_tool("get_open_editors", json!({})).unwrap();
    assert!(text_of(&call).contains("ide-bridge extension"), "{call}");
    assert_eq!(ide.connections(), 1);
}

fn selections(name: &str, _arguments: &Value) -> Value {
    match name {
        "getCurrentSelection" => text(json!({"success": false, "message": "No active editor found"})),
        _ => editors(name, _arguments),
    }
}

#[test]
fn a_restarted_ide_is_found_again_through_its_new_lock_file() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let first = FakeIde::start(&env, &ws, "IntelliJ IDEA", &["getOpenEditors"], editors);
    let mut bridge = env.bridge(&ws, &[]);
    assert!(!is_error(&bridge.call_tool("get_open_editors", json!({})).unwrap()));
    let before: Vec<Value> = bridge.list_tools().unwrap();
    assert!(!before.iter().any(|t| t["name"] == "get_selection"));
    let old_port = first.port;
    drop(first);
    // The IDE comes back on another port, now with a selection tool.
    let second = FakeIde::start(&env, &ws, "IntelliJ IDEA", &["getOpenEditors", "getCurrentSelection"], selections);
    assert_ne!(second.port, old_port);
    let deadline = Instant::now() + WAIT;
    loop {
        let call = bridge.call_tool("get_selection", json!({})).unwrap();
        if !is_error(&call) {
            assert_eq!(structured(&call).unwrap()["active"], false, "{call}");
            break;
        }
        assert!(Instant::now() < deadline, "never reconnected: {call}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(bridge.list_tools().unwrap().iter().any(|t| t["name"] == "get_selection"));
    assert!(
        bridge.notifications().iter().any(|n| n["method"] == "notifications/tools/list_changed"),
        "the client was told the tools changed: {:?}",
        bridge.notifications()
    );
}
