//! The host going away and coming back: calls fail with `UNAVAILABLE` meanwhile, and the same
//! bridge process reconnects by itself (re-reading discovery: new port, new token).

use mcp_tests::{is_error, text_of};
use serde_json::json;

use super::{Env, code};

#[test]
fn a_restarted_host_is_found_again_without_restarting_the_bridge() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "first")]);
    let mut host = env.host_without_token(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "first");

    assert!(host.terminate().success());
    let down = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(code(&down), "UNAVAILABLE", "{down}");
    assert!(text_of(&down).contains("retry"), "{}", text_of(&down));
    let write = bridge.call_tool("write_file", json!({"path": "b.txt", "content": "b"})).unwrap();
    assert_eq!(code(&write), "UNAVAILABLE");
    assert!(!ws.join("b.txt").exists(), "no write while down, and none replayed later");

    std::fs::write(ws.join("a.txt"), "second").unwrap();
    let restarted = env.host_without_token(&ws, &[]);
    assert_ne!(restarted.token, host.token);
    let back = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert!(!is_error(&back), "{back}");
    assert_eq!(text_of(&back), "second");
    assert!(!ws.join("b.txt").exists(), "the failed write was not replayed");
    let written = bridge.call_tool("write_file", json!({"path": "c.txt", "content": "c"})).unwrap();
    assert!(!is_error(&written), "{written}");
}

#[test]
fn a_host_killed_with_sigkill_on_a_fixed_url_comes_back_too() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let mut host = env.host(&ws, &[]);
    let port = host.port.to_string();
    let url = host.url();
    let mut bridge = env.bridge(&ws, &["--url", &url, "--token", super::TOKEN]);
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "A");
    host.kill9();
    let down = bridge.call_tool("list_files", json!({})).unwrap();
    assert_eq!(code(&down), "UNAVAILABLE", "{down}");
    let back = super::HostProc::spawn_on_port(&env.xdg, &ws, &port);
    let listed = bridge.call_tool("list_files", json!({})).unwrap();
    assert!(!is_error(&listed), "{listed}");
    drop(back);
}
