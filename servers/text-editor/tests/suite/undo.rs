//! `undo_edit`: several levels per file, across create, str_replace and insert; bounded by
//! `--undo-depth`; refuses with CONFLICT when someone else changed the file.

use serde_json::json;

use super::Server;

#[test]
fn undo_walks_back_through_every_kind_of_edit_to_before_the_create() {
    let mut s = Server::start();
    let path = s.path("src/lib.rs");
    s.ok(json!({"command": "create", "path": path, "file_text": "fn a() {}\n"}));
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "fn a() {}", "new_str": "fn a() { 1 }"}));
    s.ok(json!({"command": "insert", "path": path, "insert_line": 1, "new_str": "fn b() {}"}));
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "fn b() {}\n", "new_str": ""}));
    let states = ["fn a() { 1 }\nfn b() {}\n", "fn a() { 1 }\n", "fn a() {}\n"];
    for expected in states {
        s.ok(json!({"command": "undo_edit", "path": path}));
        assert_eq!(s.read_string("src/lib.rs"), expected);
    }
    let text = s.ok(json!({"command": "undo_edit", "path": path}));
    assert!(text.starts_with(&format!("Last edit to {path} undone successfully.")), "{text}");
    assert!(!s.root.join("src/lib.rs").exists(), "undoing the create deletes the file");
    assert_eq!(
        s.err(json!({"command": "undo_edit", "path": path}), "NOT_FOUND"),
        format!("The path {path} does not exist. Please provide a valid path.")
    );
}

#[test]
fn histories_are_per_file() {
    let mut s = Server::start();
    s.write("a.txt", "a\n");
    s.write("b.txt", "b\n");
    let (a, b) = (s.path("a.txt"), s.path("b.txt"));
    s.ok(json!({"command": "str_replace", "path": a, "old_str": "a", "new_str": "A"}));
    s.ok(json!({"command": "str_replace", "path": b, "old_str": "b", "new_str": "B"}));
    s.ok(json!({"command": "undo_edit", "path": a}));
    assert_eq!(s.read_string("a.txt"), "a\n");
    assert_eq!(s.read_string("b.txt"), "B\n");
    assert_eq!(
        s.err(json!({"command": "undo_edit", "path": a}), "NOT_FOUND"),
        format!("No edit history found for {a}.")
    );
}

#[test]
fn the_depth_is_bounded() {
    let mut s = Server::with_args(&["--undo-depth", "2"]);
    s.write("f.txt", "0\n");
    let path = s.path("f.txt");
    for i in 0..4 {
        s.ok(json!({"command": "str_replace", "path": path, "old_str": format!("{i}\n"), "new_str": format!("{}\n", i + 1)}));
    }
    s.ok(json!({"command": "undo_edit", "path": path}));
    s.ok(json!({"command": "undo_edit", "path": path}));
    assert_eq!(s.read_string("f.txt"), "2\n");
    s.err(json!({"command": "undo_edit", "path": path}), "NOT_FOUND");

    let mut s = Server::with_args(&["--undo-depth", "0"]);
    s.write("f.txt", "0\n");
    let path = s.path("f.txt");
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "0", "new_str": "1"}));
    s.err(json!({"command": "undo_edit", "path": path}), "NOT_FOUND");
}

#[test]
fn a_file_changed_by_someone_else_is_not_clobbered() {
    let mut s = Server::start();
    s.write("f.txt", "one\ntwo\n");
    let path = s.path("f.txt");
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "one", "new_str": "ONE"}));
    s.write("f.txt", "ONE\ntwo\nthree (added by someone else)\n");
    let msg = s.err(json!({"command": "undo_edit", "path": path}), "CONFLICT");
    assert!(msg.contains("changed by someone else"), "{msg}");
    assert_eq!(s.read_string("f.txt"), "ONE\ntwo\nthree (added by someone else)\n");
    // the same length, different content: still a conflict
    s.write("f.txt", "ONE\ntwx\n");
    s.err(json!({"command": "undo_edit", "path": path}), "CONFLICT");
    // once the file is as the edit left it, undo works
    s.write("f.txt", "ONE\ntwo\n");
    s.ok(json!({"command": "undo_edit", "path": path}));
    assert_eq!(s.read_string("f.txt"), "one\ntwo\n");

    // a created file changed since: not deleted
    let new = s.path("new.txt");
    s.ok(json!({"command": "create", "path": new, "file_text": "mine\n"}));
    s.write("new.txt", "theirs\n");
    s.err(json!({"command": "undo_edit", "path": new}), "CONFLICT");
    assert_eq!(s.read_string("new.txt"), "theirs\n");
}
