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

/// How a scripted IDE misbehaves beyond its script.
#[derive(Debug, Clone, Default)]
struct Quirks {
    /// `selection_changed` notifications sent right after `tools/list` is answered.
    flood: usize,
    /// The token its lock file announces instead of the one it checks.
    lock_token: Option<&'static str>,
}

impl FakeIde {
    fn start(env: &Env, folder: &Path, ide_name: &str, tools: &'static [&'static str], script: Script) -> FakeIde {
        FakeIde::start_with(env, folder, ide_name, tools, script, Quirks::default())
    }

    fn start_with(
        env: &Env,
        folder: &Path,
        ide_name: &str,
        tools: &'static [&'static str],
        script: Script,
        quirks: Quirks,
    ) -> FakeIde {
        let flood = quirks.flood;
        let selection_file = folder.join("a.txt");
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
                        let selection_file = selection_file.clone();
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
                            let (sink, mut stream) = ws.split();
                            let sink = Arc::new(tokio::sync::Mutex::new(sink));
                            let selection_file = selection_file.clone();
                            while let Some(Ok(message)) = stream.next().await {
                                let Message::Text(text) = message else { continue };
                                let request: Value = serde_json::from_str(text.as_str()).unwrap();
                                let Some(id) = request.get("id").cloned() else { continue };
                                let method = request["method"].as_str().unwrap_or("").to_owned();
                                let mut body = match method.as_str() {
                                    "initialize" => json!({"result": {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake-ide", "version": "9.9"}}}),
                                    "tools/list" => json!({"result": {"tools": tools.iter().map(|t| json!({"name": t, "inputSchema": {"type": "object"}})).collect::<Vec<_>>()}}),
                                    "tools/call" => script(request["params"]["name"].as_str().unwrap_or(""), &request["params"]["arguments"]),
                                    _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
                                };
                                if body.is_null() {
                                    continue;
                                }
                                // `_delay_ms`: answered that much later, while other requests are
                                // answered meanwhile (a diff waiting for the user).
                                let delay = body.as_object_mut().unwrap().remove("_delay_ms").and_then(|d| d.as_u64());
                                let mut response = json!({"jsonrpc": "2.0", "id": id});
                                for (key, value) in body.as_object().unwrap() {
                                    response[key] = value.clone();
                                }
                                let sink = Arc::clone(&sink);
                                let selection_file = selection_file.clone();
                                let send = async move {
                                    if let Some(ms) = delay {
                                        tokio::time::sleep(Duration::from_millis(ms)).await;
                                    }
                                    let mut sink = sink.lock().await;
                                    if sink.send(Message::Text(response.to_string().into())).await.is_err() {
                                        return;
                                    }
                                    if method == "tools/list" {
                                        for i in 0..flood {
                                            let note = json!({"jsonrpc": "2.0", "method": "selection_changed", "params": {
                                                "text": format!("selection {i} {}", "x".repeat(512)),
                                                "filePath": selection_file,
                                                "fileUrl": format!("file://{}", selection_file.display()),
                                                "selection": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}, "isEmpty": false},
                                            }});
                                            if sink.feed(Message::Text(note.to_string().into())).await.is_err() {
                                                return;
                                            }
                                        }
                                        let _ = sink.flush().await;
                                    }
                                };
                                if delay.is_some() {
                                    tokio::spawn(send);
                                } else {
                                    send.await;
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
        let token = quirks.lock_token.unwrap_or(IDE_TOKEN);
        let record = json!({"pid": std::process::id(), "workspaceFolders": [folder], "ideName": ide_name, "transport": "ws", "authToken": token});
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

// Hostile round 5: nothing the user typed or saved is lost, whatever the order of events.

/// A diff the user accepts 4 s after it was shown (with their own last edit), in an IDE whose
/// buffers are clean.
fn late_accept(name: &str, _arguments: &Value) -> Value {
    match name {
        "openDiff" => {
            json!({"_delay_ms": 4000, "result": {"content": [{"type": "text", "text": "FILE_SAVED"}, {"type": "text", "text": "accepted by the user\n"}]}})
        }
        "checkDocumentDirty" => text(json!({"success": true, "isDirty": false})),
        "close_tab" => json!({"result": {"content": [{"type": "text", "text": "TAB_CLOSED"}]}}),
        _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
    }
}

#[test]
fn a_diff_accepted_after_the_call_gave_up_is_never_written_over_a_newer_file() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "original\n"), ("b.txt", "original\n")]);
    let _ide = FakeIde::start(&env, &ws, "Neovim", &["openDiff", "checkDocumentDirty", "close_tab"], late_accept);
    let mut bridge = env.bridge(&ws, &["--ide", "claude-code"]);
    let pending =
        bridge.call_tool("open_diff", json!({"path": "a.txt", "new_text": "proposed\n", "wait_ms": 100})).unwrap();
    assert_eq!(structured(&pending).unwrap()["status"], "pending", "{pending}");
    // Meanwhile the file changes (the user, a formatter, the bridge's own write).
    let write = bridge.call_tool("write_file", json!({"path": "a.txt", "content": "newer\n"})).unwrap();
    assert!(!is_error(&write), "{write}");
    std::thread::sleep(Duration::from_millis(5500));
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "newer\n", "the newer file is kept");
    // Asked again, the same proposal answers what became of it: a conflict, the accepted text
    // given back, never "accepted as proposed".
    let again =
        bridge.call_tool("open_diff", json!({"path": "a.txt", "new_text": "proposed\n", "wait_ms": 100})).unwrap();
    assert_eq!(code(&again), "CONFLICT", "{again}");
    let said = text_of(&again);
    assert!(said.contains("changed after the diff was made") && said.contains("accepted by the user"), "{said}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "newer\n");
    // Unchanged meanwhile, the late accept is written.
    let pending =
        bridge.call_tool("open_diff", json!({"path": "b.txt", "new_text": "proposed\n", "wait_ms": 100})).unwrap();
    assert_eq!(structured(&pending).unwrap()["status"], "pending", "{pending}");
    let deadline = Instant::now() + WAIT;
    while std::fs::read_to_string(ws.join("b.txt")).unwrap() != "accepted by the user\n" {
        assert!(Instant::now() < deadline, "the late accept of an unchanged file was never written");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How many times the scripted IDE was asked whether a buffer is dirty.
static DIRTY_ASKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// An IDE where every open buffer has unsaved edits, except when first asked (the user starts
/// typing in the file once its diff is open); saving answers never.
fn dirty_buffers(name: &str, _arguments: &Value) -> Value {
    match name {
        "checkDocumentDirty" => {
            let first = DIRTY_ASKED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
            text(json!({"success": true, "isDirty": !first, "isUntitled": false}))
        }
        "openDiff" => {
            json!({"_delay_ms": 300, "result": {"content": [{"type": "text", "text": "FILE_SAVED"}, {"type": "text", "text": "accepted\n"}]}})
        }
        "close_tab" => json!({"result": {"content": [{"type": "text", "text": "TAB_CLOSED"}]}}),
        _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
    }
}

/// An IDE whose buffers are clean; `saveDocument` never answers (Neovim on its "file changed,
/// write anyway?" prompt).
fn clean_buffers(name: &str, _arguments: &Value) -> Value {
    match name {
        "checkDocumentDirty" => text(json!({"success": true, "isDirty": false, "isUntitled": false})),
        "saveDocument" => Value::Null,
        _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
    }
}

#[test]
fn unsaved_edits_are_never_written_over_and_a_clean_buffer_is_never_saved_onto_a_prompt() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "on disk\n")]);
    let ide = FakeIde::start(&env, &ws, "Neovim", &["checkDocumentDirty", "openDiff", "close_tab"], dirty_buffers);
    let mut bridge = env.bridge(&ws, &["--ide", "claude-code"]);
    // Clean when the diff is opened, dirty when the user accepts it.
    let diff = bridge.call_tool("open_diff", json!({"path": "a.txt", "new_text": "proposed\n"})).unwrap();
    assert_eq!(code(&diff), "CONFLICT", "{diff}");
    assert!(
        text_of(&diff).contains("unsaved edits") && text_of(&diff).contains("The text the user accepted:\naccepted"),
        "{diff}"
    );
    // Dirty from now on: write_file and a new diff are refused, naming the buffer.
    let write = bridge.call_tool("write_file", json!({"path": "a.txt", "content": "agent\n"})).unwrap();
    assert_eq!(code(&write), "CONFLICT", "{write}");
    assert!(text_of(&write).contains("unsaved edits") && text_of(&write).contains("Neovim"), "{write}");
    let diff = bridge.call_tool("open_diff", json!({"path": "a.txt", "new_text": "other\n"})).unwrap();
    assert_eq!(code(&diff), "CONFLICT", "{diff}");
    assert!(text_of(&diff).contains("no diff was opened"), "{diff}");
    let read = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(read["content"][0]["text"], "on disk\n");
    assert!(read["content"][1]["text"].as_str().unwrap().contains("unsaved edits in the IDE"), "{read}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "on disk\n", "nothing written");
    drop(bridge);
    drop(ide);

    let _ide = FakeIde::start(&env, &ws, "Neovim", &["checkDocumentDirty", "saveDocument"], clean_buffers);
    let mut bridge = env.bridge(&ws, &["--ide", "claude-code", "--request-timeout", "10"]);
    let write = bridge.call_tool("write_file", json!({"path": "a.txt", "content": "agent\n"})).unwrap();
    assert!(!is_error(&write), "{write}");
    let started = Instant::now();
    let save = bridge.call_tool("save_file", json!({"path": "a.txt"})).unwrap();
    assert!(!is_error(&save), "{save}");
    assert_eq!(structured(&save).unwrap()["saved"], false, "nothing unsaved: nothing to save: {save}");
    assert!(started.elapsed() < Duration::from_secs(5), "answered without waiting on a prompt");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "agent\n");
}

fn quiet(name: &str, _arguments: &Value) -> Value {
    match name {
        "getOpenEditors" => text(json!({"tabs": []})),
        _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
    }
}

/// The bridge's peak resident memory, in KiB (Linux).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .unwrap()
        .trim()
        .trim_end_matches(" kB")
        .trim()
        .parse()
        .unwrap()
}

#[test]
#[cfg(target_os = "linux")]
fn a_flood_of_selections_is_coalesced_not_queued() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "a\n")]);
    let quirks = Quirks { flood: 200_000, ..Quirks::default() };
    let _ide = FakeIde::start_with(&env, &ws, "Neovim", &["getOpenEditors"], quiet, quirks);
    let mut bridge = env.bridge(&ws, &["--ide", "claude-code", "--request-timeout", "300", "--tool-timeout", "300"]);
    // The first answer comes behind the flood (about 120 MB to read, slow in a debug build on a
    // loaded machine): a generous bound, nothing timed.
    bridge.set_timeout(Duration::from_secs(300));
    assert!(!is_error(&bridge.call_tool("get_open_editors", json!({})).unwrap()));
    // Once the flood is read, the selection is the latest one.
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let selection = bridge.call_tool("get_selection", json!({})).unwrap();
        if text_of(&selection).contains("selection 199999") {
            break;
        }
        assert!(Instant::now() < deadline, "the latest selection never arrived: {selection}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let peak = peak_rss_kib(bridge.pid());
    // 200,000 queued selections of half a kilobyte were 450-600 MB.
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB");
}

#[test]
fn a_lock_file_token_that_cannot_be_a_header_is_said_to_be_that() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let quirks = Quirks { lock_token: Some("0f1e2d3c\n4b5a6978"), ..Quirks::default() };
    let _ide = FakeIde::start_with(&env, &ws, "IntelliJ IDEA", &["getOpenEditors"], quiet, quirks);
    let mut bridge = env.bridge(&ws, &["--ide", "claude-code"]);
    let call = bridge.call_tool("get_open_editors", json!({})).unwrap();
    let said = text_of(&call);
    assert!(is_error(&call), "{call}");
    assert!(!said.contains("(HTTP 401)") && !said.contains("refused the bridge's token"), "{said}");
    assert!(said.contains("cannot be sent in an HTTP header"), "{said}");
}

#[test]
fn a_fixed_url_serves_only_the_workspace_and_never_a_start_in_the_root() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "a\n")]);
    let other = env.workspace("elsewhere", &[]);
    let ide = FakeIde::start(&env, &ws, "IntelliJ IDEA", &["getOpenEditors"], quiet);
    let url = format!("ws://127.0.0.1:{}", ide.port);
    // Started in / without --workspace: refused at once.
    let mut root = env.bridge_builder(Path::new("/"), &["--url", &url, "--ide", "claude-code"]).spawn().unwrap();
    let status = root.wait().unwrap();
    assert!(!status.success());
    assert!(root.stderr_text().contains("whole file system") && root.stderr_text().contains("--workspace"));
    // --url with --ide gemini: refused, never our own protocol.
    let mut gemini = env.bridge_builder(&ws, &["--url", &url, "--ide", "gemini"]).spawn().unwrap();
    assert!(!gemini.wait().unwrap().success());
    assert!(gemini.stderr_text().contains("--ide gemini"), "{}", gemini.stderr_text());
    // --workspace outside the IDE's folders: nothing is served.
    let ws_arg = other.display().to_string();
    let mut outside = env.bridge(&ws, &["--url", &url, "--ide", "claude-code", "--workspace", &ws_arg]);
    let call = outside.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert!(is_error(&call) && text_of(&call).contains("not inside a folder the IDE has open"), "{call}");
    // Inside: confined to it.
    let ws_arg = ws.display().to_string();
    let mut inside = env.bridge(&other, &["--url", &url, "--ide", "claude-code", "--workspace", &ws_arg]);
    let call = inside.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(text_of(&call), "a\n", "{call}");
    let call = inside.call_tool("read_file", json!({"path": "../../../../../../etc/hostname"})).unwrap();
    assert!(is_error(&call), "{call}");
}
