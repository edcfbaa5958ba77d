//! Discovery files: format and permissions, removal on SIGTERM / SIGINT, stale files of killed
//! hosts, and a bridge choosing among two hosts by its working directory.

use std::{fs, os::unix::fs::PermissionsExt};

use mcp_tests::text_of;
use serde_json::{Value, json};

use super::{Env, HostProc, code};

#[test]
fn the_discovery_file_is_private_complete_and_removed_on_sigterm() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let mut host = env.host_without_token(&ws, &[]);
    let file = env.discovery_dir().join(format!("{}.json", host.port));
    let record: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        record,
        json!({"port": host.port, "pid": host.pid(), "workspaceFolders": [ws.display().to_string()], "token": host.token})
    );
    assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(fs::metadata(env.discovery_dir()).unwrap().permissions().mode() & 0o777, 0o700);
    let names: Vec<_> = fs::read_dir(env.discovery_dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
    assert!(host.stderr().contains(&file.display().to_string()));
    let status = host.terminate();
    assert!(status.success(), "{status}");
    assert!(!file.exists(), "removed on SIGTERM");
}

#[test]
fn the_discovery_file_is_removed_on_ctrl_c_too() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let mut host = env.host(&ws, &[]);
    let file = env.discovery_dir().join(format!("{}.json", host.port));
    assert!(file.exists());
    assert!(host.stop_with(rustix::process::Signal::INT).success());
    assert!(!file.exists());
}

#[test]
fn a_bridge_picks_the_host_whose_workspace_contains_its_directory() {
    let env = Env::new();
    let a = env.workspace("a", &[("which.txt", "workspace A"), ("sub/dir/x", "")]);
    let b = env.workspace("b", &[("which.txt", "workspace B")]);
    let neither = env.workspace("neither", &[]);
    let host_a = env.host_without_token(&a, &[]);
    let host_b = env.host_without_token(&b, &[]);
    assert_ne!(host_a.token, host_b.token);

    let mut in_a = env.bridge(&a.join("sub/dir"), &[]);
    assert_eq!(text_of(&in_a.call_tool("read_file", json!({"path": "which.txt"})).unwrap()), "workspace A");
    let mut in_b = env.bridge(&b, &[]);
    assert_eq!(text_of(&in_b.call_tool("read_file", json!({"path": "which.txt"})).unwrap()), "workspace B");
    let mut flagged = env.bridge(&neither, &["--workspace", b.to_str().unwrap()]);
    assert_eq!(text_of(&flagged.call_tool("read_file", json!({"path": "which.txt"})).unwrap()), "workspace B");

    let mut lost = env.bridge(&neither, &[]);
    let result = lost.call_tool("read_file", json!({"path": "which.txt"})).unwrap();
    assert_eq!(code(&result), "UNAVAILABLE");
    let text = text_of(&result);
    assert!(text.contains("2 live IDE(s)") && text.contains("--workspace"), "{text}");
    // It names what it found and where it looked, so the user can see why none fits.
    assert!(text.contains(&format!("an ide-bridge host (folders: {})", a.display())), "{text}");
    assert!(text.contains(&format!("working directory ({})", neither.display())), "{text}");
    assert!(text.contains("Looked in: "), "{text}");
}

#[test]
fn a_nested_workspace_wins_over_its_parent() {
    let env = Env::new();
    let outer = env.workspace("outer", &[("which.txt", "outer"), ("inner/which.txt", "inner")]);
    let inner = outer.join("inner");
    let _outer_host = env.host(&outer, &[]);
    let _inner_host = env.host(&inner, &[]);
    let mut bridge = env.bridge(&inner, &[]);
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "which.txt"})).unwrap()), "inner");
}

#[test]
fn files_of_dead_hosts_and_foreign_junk_are_ignored() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "live")]);
    let dir = env.discovery_dir();
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    let dead =
        json!({"port": 9, "pid": 2_000_000_000u32, "workspaceFolders": [ws.display().to_string()], "token": "x"});
    fs::write(dir.join("9.json"), dead.to_string()).unwrap();
    fs::write(dir.join("10.json"), "garbage").unwrap();

    let mut bridge = env.bridge(&ws, &[]);
    let result = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(code(&result), "UNAVAILABLE", "a dead host is not used: {result}");

    let mut killed = env.host(&ws, &[]);
    let killed_file = dir.join(format!("{}.json", killed.port));
    killed.kill9();
    assert!(killed_file.exists(), "SIGKILL leaves the file behind");
    let live = env.host(&ws, &[]);
    assert!(!dir.join("9.json").exists(), "a starting host sweeps files of dead hosts");
    assert!(!killed_file.exists());
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "live");
    drop(live);
}

#[test]
fn a_bridge_with_a_trimmed_environment_still_finds_the_host() {
    // MCP clients often start the bridge with a few variables only, while the host runs with the
    // user's full session: here the host had no XDG_RUNTIME_DIR (its file is in
    // $TMPDIR/ide-bridge-<uid>), the bridge has one; it looks in both places.
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "found")]);
    let tmpdir = env.tmp.path().join("tmpdir");
    fs::create_dir(&tmpdir).unwrap();
    let host = HostProc::spawn_without_xdg(&tmpdir, &ws);
    let uid = rustix::process::getuid().as_raw();
    assert!(tmpdir.join(format!("ide-bridge-{uid}/{}.json", host.port)).exists());
    assert!(!env.discovery_dir().exists(), "nothing in the bridge's own directory");
    let mut bridge = env.bridge_builder(&ws, &[]).env("TMPDIR", &tmpdir).spawn().unwrap();
    bridge.initialize().unwrap();
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "found");
}

/// `ide-bridge-host --help` says what the host is, not the bridge's package description.
#[test]
fn the_host_s_help_describes_the_host() {
    let out = std::process::Command::new(super::HOST).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.starts_with("The workspace host of the IDE bridge"), "{help}");
    assert!(!help.contains("An MCP stdio server that proxies"), "{help}");
}
