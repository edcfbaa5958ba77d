//! Nothing outside the workspace is read, written, listed or revealed: `..`, absolute paths,
//! symlinks leading out (to a file, to a directory), through the bridge and on the raw wire.

use mcp_tests::os::symlink;
use std::fs;

use mcp_tests::{is_error, structured, text_of};
use serde_json::json;

use super::{Env, code, rt, wire_code, ws_authorized, ws_call};

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn escapes_are_access_denied_and_change_nothing() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("inside.txt", "in")]);
    let outside = env.workspace("outside", &[("secret.txt", "secret"), ("dir/x.txt", "x")]);
    symlink(outside.join("secret.txt"), ws.join("link-to-secret.txt")).unwrap();
    symlink(&outside, ws.join("link-to-outside")).unwrap();
    symlink("../outside/secret.txt", ws.join("relative-link.txt")).unwrap();
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let absolute_outside = outside.join("secret.txt").display().to_string();
    let outside_text = outside.display().to_string();
    for path in [
        "../outside/secret.txt",
        "inside/../../outside/secret.txt",
        "link-to-secret.txt",
        "relative-link.txt",
        "link-to-outside/secret.txt",
        "link-to-outside/dir/x.txt",
        absolute_outside.as_str(),
        "/etc/passwd",
        "file:///../outside/secret.txt",
        "file:///..%2Foutside%2Fsecret.txt",
        "file:///link-to-secret.txt",
    ] {
        let read = bridge.call_tool("read_file", json!({"path": path})).unwrap();
        assert_eq!(code(&read), "ACCESS_DENIED", "read {path}: {read}");
        let text = text_of(&read);
        assert!(!text.contains("secret\n") && !text.contains("\"secret\""), "{text}");
        if !path.starts_with('/') {
            assert!(!text.contains(&outside_text), "a host path leaked: {text}");
        }
        let write = bridge.call_tool("write_file", json!({"path": path, "content": "pwned"})).unwrap();
        assert!(is_error(&write), "write {path}");
        assert_eq!(code(&write), "ACCESS_DENIED", "write {path}: {write}");
    }
    // A `file:///` URI of an absolute path outside the workspace (read as workspace-relative, it
    // names nothing there): ACCESS_DENIED, as a tool and as a resource, not "does not exist".
    for uri in [format!("file://{absolute_outside}"), "file:///tmp/mcp-suite-no-such-dir/x.txt".to_owned()] {
        let read = bridge.call_tool("read_file", json!({"path": uri})).unwrap();
        assert_eq!(code(&read), "ACCESS_DENIED", "read {uri}: {read}");
        assert!(text_of(&read).contains("outside the workspace"), "{read}");
        let resource = bridge.request("resources/read", json!({"uri": uri})).unwrap();
        assert_eq!(resource["error"]["data"]["code"], "ACCESS_DENIED", "{resource}");
    }
    let missing = bridge.call_tool("read_file", json!({"path": "file:///inside-no-such.txt"})).unwrap();
    assert_eq!(code(&missing), "NOT_FOUND", "a workspace file that does not exist: {missing}");
    let missing = bridge.call_tool("read_file", json!({"path": "inside-no-such.txt"})).unwrap();
    assert_eq!(code(&missing), "NOT_FOUND", "a plain missing path stays NOT_FOUND: {missing}");
    let new_outside =
        bridge.call_tool("write_file", json!({"path": "link-to-outside/new.txt", "content": "pwned"})).unwrap();
    assert_eq!(code(&new_outside), "ACCESS_DENIED");
    let listed = bridge.call_tool("list_files", json!({"path": "link-to-outside", "recursive": true})).unwrap();
    assert_eq!(code(&listed), "ACCESS_DENIED");
    let parent = bridge.call_tool("list_files", json!({"path": "..", "recursive": true})).unwrap();
    assert_eq!(code(&parent), "ACCESS_DENIED");
    let nul = bridge.call_tool("write_file", json!({"path": "inside.txt\u{0}/../x", "content": "x"})).unwrap();
    assert_eq!(code(&nul), "INVALID_ARGS", "{nul}");

    assert_eq!(fs::read_to_string(outside.join("secret.txt")).unwrap(), "secret");
    assert_eq!(fs::read_to_string(outside.join("dir/x.txt")).unwrap(), "x");
    assert!(!outside.join("new.txt").exists());
    let names: Vec<_> = fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "nothing new outside: {names:?}");

    let all = structured(&bridge.call_tool("list_files", json!({"recursive": true})).unwrap()).unwrap();
    assert_eq!(all["files"], json!(["inside.txt"]), "escaping symlinks are not listed");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn symlinks_that_stay_inside_work() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("real/a.txt", "A")]);
    symlink("real/a.txt", ws.join("alias.txt")).unwrap();
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "alias.txt"})).unwrap()), "A");
    let written = bridge.call_tool("write_file", json!({"path": "alias.txt", "content": "B"})).unwrap();
    assert!(!is_error(&written), "{written}");
    assert_eq!(fs::read_to_string(ws.join("real/a.txt")).unwrap(), "B");
    assert!(fs::symlink_metadata(ws.join("alias.txt")).unwrap().file_type().is_symlink());
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn escapes_on_the_raw_wire_are_minus_32001() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let outside = env.workspace("outside", &[("secret.txt", "secret")]);
    symlink(outside.join("secret.txt"), ws.join("link.txt")).unwrap();
    let host = env.host(&ws, &[]);
    rt().block_on(async {
        let mut raw = ws_authorized(&host).await;
        let mut id = 0;
        for path in ["../outside/secret.txt", "link.txt", "/etc/passwd"] {
            id += 1;
            let read = ws_call(&mut raw, id, "fs/read", json!({"path": path})).await;
            assert_eq!(wire_code(&read), -32001, "{path}: {read}");
            assert_eq!(read["error"]["data"]["code"], "ACCESS_DENIED");
            assert!(!read.to_string().contains(&outside.display().to_string()) || path.starts_with('/'));
            id += 1;
            let write = ws_call(&mut raw, id, "fs/write", json!({"path": path, "content": "pwned"})).await;
            assert_eq!(wire_code(&write), -32001, "{path}: {write}");
        }
    });
    assert_eq!(fs::read_to_string(outside.join("secret.txt")).unwrap(), "secret");
}
