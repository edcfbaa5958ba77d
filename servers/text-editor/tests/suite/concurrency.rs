//! Concurrency: calls on the same file are serialised (no edit is lost), different files
//! proceed in parallel, and two server processes on one tree do not lose each other's edits.

use serde_json::{Value, json};

use super::{Server, TOOL, spawn_on};

fn content(n: usize) -> String {
    (0..n).map(|i| format!("marker {i:03}\n")).collect()
}

fn replace_call(path: &str, i: usize, tag: &str) -> Value {
    json!({"name": TOOL, "arguments": {
        "command": "str_replace", "path": path,
        "old_str": format!("marker {i:03}\n"), "new_str": format!("{tag} {i:03}\n"),
    }})
}

#[test]
fn many_calls_in_flight_on_one_file_all_apply() {
    let mut s = Server::start();
    s.write("f.txt", content(40));
    let path = s.path("f.txt");
    let ids: Vec<u64> =
        (0..40).map(|i| s.client.send_request("tools/call", replace_call(&path, i, "done")).unwrap()).collect();
    for id in ids {
        let response = s.client.wait_response(id).unwrap();
        assert!(!mcp_tests::is_error(&response["result"]), "{response}");
    }
    assert_eq!(s.read_string("f.txt"), content(40).replace("marker", "done"));
    // and every one of them can be undone, in reverse order
    for _ in 0..32 {
        s.ok(json!({"command": "undo_edit", "path": path}));
    }
    let undone = s.read_string("f.txt");
    assert_eq!(undone.matches("marker").count(), 32);
}

#[test]
fn different_files_proceed_side_by_side() {
    let mut s = Server::start();
    for f in 0..8 {
        s.write(&format!("f{f}.txt"), content(5));
    }
    let mut ids = Vec::new();
    for i in 0..5 {
        for f in 0..8 {
            let path = s.path(&format!("f{f}.txt"));
            ids.push(s.client.send_request("tools/call", replace_call(&path, i, "x")).unwrap());
        }
    }
    for id in ids {
        let response = s.client.wait_response(id).unwrap();
        assert!(!mcp_tests::is_error(&response["result"]), "{response}");
    }
    for f in 0..8 {
        assert_eq!(s.read_string(&format!("f{f}.txt")), content(5).replace("marker", "x"));
    }
}

#[test]
fn a_file_locked_by_another_process_waits_while_other_files_go_on() {
    let mut s = Server::start();
    s.write("a.txt", content(3));
    s.write("b.txt", content(3));
    let (a, b) = (s.path("a.txt"), s.path("b.txt"));
    // Another process (this test) holds the editors' advisory lock on a.txt.
    let held = std::fs::File::open(s.root.join("a.txt")).unwrap();
    held.lock().unwrap();
    let pending = s.client.send_request("tools/call", replace_call(&a, 1, "a")).unwrap();
    // b.txt is edited while the call on a.txt waits for the lock (were calls not independent,
    // this would hang until the client's timeout)...
    let response = s.client.call_tool(TOOL, replace_call(&b, 1, "b")["arguments"].clone()).unwrap();
    assert!(!mcp_tests::is_error(&response), "{response}");
    assert_eq!(s.read_string("b.txt"), content(3).replace("marker 001", "b 001"));
    // ...and a.txt has not been written under the lock.
    assert_eq!(s.read_string("a.txt"), content(3));
    drop(held);
    let response = s.client.wait_response(pending).unwrap();
    assert!(!mcp_tests::is_error(&response["result"]), "{response}");
    assert_eq!(s.read_string("a.txt"), content(3).replace("marker 001", "a 001"));
}

#[test]
fn an_edit_that_timed_out_while_waiting_for_a_lock_never_lands_afterwards() {
    let mut s = Server::with_args(&["--tool-timeout", "1"]);
    s.write("a.txt", content(3));
    let a = s.path("a.txt");
    let held = std::fs::File::open(s.root.join("a.txt")).unwrap();
    held.lock().unwrap();
    for args in [
        replace_call(&a, 1, "late")["arguments"].clone(),
        json!({"command": "insert", "path": a, "insert_line": 0, "new_str": "late"}),
    ] {
        let timed_out = s.err(args, "TIMEOUT");
        assert!(timed_out.contains("timed out"), "{timed_out}");
    }
    drop(held);
    // the view waits for the abandoned calls (same file), which then write nothing
    let text = s.view("a.txt");
    assert!(!text.contains("late"), "{text}");
    assert_eq!(s.read_string("a.txt"), content(3));
    s.err(json!({"command": "undo_edit", "path": a}), "NOT_FOUND");
}

#[test]
fn two_processes_editing_one_file_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("shared.txt"), content(60)).unwrap();
    let path = root.join("shared.txt").display().to_string();
    let mut a = spawn_on(&root, &["--no-fsync"]);
    let mut b = spawn_on(&root, &["--no-fsync"]);
    let mut pending = Vec::new();
    for i in 0..30 {
        pending.push((0, a.send_request("tools/call", replace_call(&path, 2 * i, "a")).unwrap()));
        pending.push((1, b.send_request("tools/call", replace_call(&path, 2 * i + 1, "b")).unwrap()));
    }
    for (who, id) in pending {
        let client = if who == 0 { &mut a } else { &mut b };
        let response = client.wait_response(id).unwrap();
        assert!(!mcp_tests::is_error(&response["result"]), "{response}");
    }
    let after = std::fs::read_to_string(root.join("shared.txt")).unwrap();
    let expected: String = (0..60).map(|i| format!("{} {i:03}\n", if i % 2 == 0 { "a" } else { "b" })).collect();
    assert_eq!(after, expected);
    // b edits once more, after every edit of a's: the file is no longer as a left it, so a's
    // undo refuses and changes nothing, while b's (the last writer's) reverts b's edit.
    let last = b
        .call_tool(TOOL, json!({"command": "str_replace", "path": path, "old_str": "b 059\n", "new_str": "c 059\n"}))
        .unwrap();
    assert!(!mcp_tests::is_error(&last), "{last}");
    let undo = a.call_tool(TOOL, json!({"command": "undo_edit", "path": path})).unwrap();
    assert_eq!(mcp_tests::error_code(&undo).as_deref(), Some("CONFLICT"), "{undo}");
    let changed = expected.replace("b 059\n", "c 059\n");
    assert_eq!(std::fs::read_to_string(root.join("shared.txt")).unwrap(), changed, "a refused undo changes nothing");
    let undo = b.call_tool(TOOL, json!({"command": "undo_edit", "path": path})).unwrap();
    assert!(!mcp_tests::is_error(&undo), "{undo}");
    assert_eq!(std::fs::read_to_string(root.join("shared.txt")).unwrap(), expected);
}
