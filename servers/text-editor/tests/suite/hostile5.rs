//! Hostile round 5 on the change journal, through the binary: a move or deletion acts only on
//! the version it read, a damaged journal is set aside (never cut), the journal's place is
//! private and never inside a root (links resolved), a revert never follows a link, a revert says
//! what it does, a reverted revert undoes nothing, and the view's buttons revert exactly what
//! they show.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use mcp_tests::{StdioClient, error_code, is_error};
use serde_json::{Value, json};

use super::{BIN, first_text};

/// A root and a journal directory of its own (private, outside the root).
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    journal: PathBuf,
}

fn world(files: &[(&str, &str)]) -> World {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("root");
    std::fs::create_dir(&root).unwrap();
    for (name, text) in files {
        std::fs::write(root.join(name), text).unwrap();
    }
    World { _dir: dir, root, journal: base.join("journal") }
}

fn server(root: &Path, journal: &Path, extra: &[&str]) -> StdioClient {
    let mut args = vec!["--root", root.to_str().unwrap(), "--journal-dir", journal.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut client = StdioClient::builder(BIN).args(&args).spawn().unwrap();
    client.initialize().unwrap();
    client
}

fn call(c: &mut StdioClient, tool: &str, args: Value) -> Value {
    c.call_tool(tool, args).unwrap()
}

fn ok(result: Value) -> Value {
    assert!(!is_error(&result), "{result}");
    result
}

/// The journal's own directory under `journal` (one for every workspace).
fn journal_dir(journal: &Path) -> PathBuf {
    journal.join("journal")
}

#[test]
#[cfg(unix)]
fn a_move_never_writes_a_version_it_did_not_read() {
    let w = world(&[("a.txt", "version 1\n"), ("b.txt", "b\n")]);
    let mut c = server(&w.root, &w.journal, &[]);
    // The journal exists once something was changed.
    ok(call(&mut c, "move_file", json!({"source": "b.txt", "destination": "b2.txt"})));
    // Another process holds the journal (another server on the root, mid-change).
    let held = std::fs::File::options().write(true).open(journal_dir(&w.journal).join("lock")).unwrap();
    held.lock().unwrap();
    let id = c
        .send_request(
            "tools/call",
            json!({"name": "move_file", "arguments": {"source": "a.txt", "destination": "moved.txt"}}),
        )
        .unwrap();
    // The move reads a.txt and waits for the journal; the user saves a new version meanwhile.
    std::thread::sleep(Duration::from_millis(2000));
    std::fs::write(w.root.join("a.txt"), "version 2, the user's\n").unwrap();
    held.unlock().unwrap();
    let answer = c.wait_response(id).unwrap();
    let result = &answer["result"];
    if w.root.join("moved.txt").exists() {
        // A machine so loaded that the move read a.txt only after the save: it moved what it
        // read, the new version, and nothing is lost either.
        assert!(!is_error(result), "{answer}");
        assert_eq!(std::fs::read_to_string(w.root.join("moved.txt")).unwrap(), "version 2, the user's\n");
        return;
    }
    assert_eq!(error_code(result).as_deref(), Some("CONFLICT"), "{answer}");
    assert!(first_text(result).contains("a.txt") && first_text(result).contains("newer version is left"), "{answer}");
    assert_eq!(std::fs::read_to_string(w.root.join("a.txt")).unwrap(), "version 2, the user's\n");
    // Nothing was recorded: undo_edit on a.txt finds no change of it.
    let listed = ok(call(&mut c, "list_changes", json!({"paths": ["a.txt"]})));
    assert!(first_text(&listed).starts_with("No changes"), "{listed}");
}

#[test]
fn a_damaged_length_in_the_journal_sets_it_aside_and_keeps_what_was_promised() {
    let w = world(&[("a.txt", "a\n"), ("secret.txt", "deleted secret\n"), ("c.txt", "c\n")]);
    let mut c = server(&w.root, &w.journal, &[]);
    let p = |rel: &str| w.root.join(rel).display().to_string();
    ok(call(
        &mut c,
        "text_editor",
        json!({"command": "str_replace", "path": p("a.txt"), "old_str": "a", "new_str": "A"}),
    ));
    ok(call(&mut c, "delete_file", json!({"path": "secret.txt"})));
    ok(call(
        &mut c,
        "text_editor",
        json!({"command": "str_replace", "path": p("c.txt"), "old_str": "c", "new_str": "C"}),
    ));
    drop(c);
    let log = journal_dir(&w.journal).join("journal.log");
    let mut bytes = std::fs::read(&log).unwrap();
    // The first change's frame: its payload length (bytes 4..12 of its prefix) made huge, so
    // that it would run past the end of the file.
    let header_len = u32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize;
    let second = 24 + header_len;
    bytes[second + 10] ^= 0x10;
    std::fs::write(&log, &bytes).unwrap();
    let mut c = server(&w.root, &w.journal, &[]);
    let listed = ok(call(&mut c, "list_changes", json!({})));
    let text = first_text(&listed);
    assert!(text.contains("found damaged") && text.contains("journal.log.damaged-"), "{text}");
    let aside = listed["structuredContent"]["set_aside"][0]["path"].as_str().unwrap().to_owned();
    assert_eq!(std::fs::read(&aside).unwrap(), bytes, "kept aside as it was, not cut");
    // Numbering goes on past every change the damaged log named.
    let next = ok(call(&mut c, "text_editor", json!({"command": "create", "path": p("d.txt"), "file_text": "d\n"})));
    assert!(!is_error(&next));
    let latest = ok(call(&mut c, "list_changes", json!({})))["structuredContent"]["latest"].as_u64().unwrap();
    assert!(latest >= 4, "numbering does not restart at 1: {latest}");
}

#[test]
#[cfg(unix)]
fn a_journal_place_others_can_reach_is_not_used() {
    use std::os::unix::fs::PermissionsExt as _;
    let w = world(&[("a.txt", "a\n")]);
    // A shared place: open to every user (as another user's 777 directory is).
    std::fs::create_dir(&w.journal).unwrap();
    std::fs::set_permissions(&w.journal, std::fs::Permissions::from_mode(0o777)).unwrap();
    use std::os::unix::fs::MetadataExt as _;
    if std::fs::metadata(&w.root).unwrap().uid() == 0 {
        // Made by another user, as in the finding.
        std::os::unix::fs::chown(&w.journal, Some(65534), Some(65534)).unwrap();
    }
    let mut c = server(&w.root, &w.journal, &[]);
    ok(call(&mut c, "delete_file", json!({"path": "a.txt"})));
    let listed = ok(call(&mut c, "list_changes", json!({})));
    let transient = listed["structuredContent"]["transient"].as_str().unwrap_or_default().to_owned();
    assert!(transient.contains("not private"), "{listed}");
    assert!(first_text(&listed).contains("will not survive a restart"), "{listed}");
    assert!(!journal_dir(&w.journal).join("journal.log").exists(), "nothing of the journal was written there");
    // The undo still works for the process.
    ok(call(&mut c, "text_editor", json!({"command": "undo_edit", "path": w.root.join("a.txt")})));
    assert_eq!(std::fs::read_to_string(w.root.join("a.txt")).unwrap(), "a\n");
}

#[test]
#[cfg(unix)]
fn a_journal_place_reached_through_a_link_into_the_root_is_not_used() {
    let w = world(&[("a.txt", "a\n")]);
    std::fs::create_dir(w.root.join("inside")).unwrap();
    let link = w.journal.with_file_name("link-to-inside");
    std::os::unix::fs::symlink(w.root.join("inside"), &link).unwrap();
    let mut c = server(&w.root, &link, &[]);
    ok(call(&mut c, "delete_file", json!({"path": "a.txt"})));
    let listed = ok(call(&mut c, "list_changes", json!({})));
    assert!(
        listed["structuredContent"]["transient"].as_str().unwrap_or_default().contains("inside the workspace"),
        "{listed}"
    );
    assert_eq!(std::fs::read_dir(w.root.join("inside")).unwrap().count(), 0, "nothing of the journal in the root");
}

#[test]
#[cfg(unix)]
fn a_revert_never_writes_through_a_link_to_another_file() {
    let w = world(&[("a.txt", "original\n"), ("other.txt", "changed\n")]);
    let mut c = server(&w.root, &w.journal, &[]);
    let p = |rel: &str| w.root.join(rel).display().to_string();
    ok(call(
        &mut c,
        "text_editor",
        json!({"command": "str_replace", "path": p("a.txt"), "old_str": "original", "new_str": "changed"}),
    ));
    // a.txt is replaced by a link to another file with the same text.
    std::fs::remove_file(w.root.join("a.txt")).unwrap();
    std::os::unix::fs::symlink(w.root.join("other.txt"), w.root.join("a.txt")).unwrap();
    let refused = call(&mut c, "revert_changes", json!({"to": 0}));
    assert_eq!(error_code(&refused).as_deref(), Some("CONFLICT"), "{refused}");
    assert!(first_text(&refused).contains("symbolic link"), "{refused}");
    let undo = call(&mut c, "text_editor", json!({"command": "undo_edit", "path": p("a.txt")}));
    assert!(is_error(&undo), "{undo}");
    let forced = call(&mut c, "revert_changes", json!({"to": 0, "force": true}));
    assert!(!first_text(&forced).contains("other.txt"), "{forced}");
    assert_eq!(std::fs::read_to_string(w.root.join("other.txt")).unwrap(), "changed\n", "never written");
    assert!(std::fs::symlink_metadata(w.root.join("a.txt")).unwrap().is_symlink());
}

#[test]
fn what_a_view_shows_is_what_its_buttons_revert() {
    let w = world(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
    let mut c = server(&w.root, &w.journal, &[]);
    let p = |rel: &str| w.root.join(rel).display().to_string();
    for name in ["a.txt", "b.txt", "c.txt"] {
        let old = &name[..1];
        ok(call(
            &mut c,
            "text_editor",
            json!({"command": "str_replace", "path": p(name), "old_str": old, "new_str": old.to_uppercase()}),
        ));
    }
    let listed = ok(call(&mut c, "list_changes", json!({"paths": ["a.txt"]})));
    let view = &listed["_meta"];
    let revert_all = find_key(&listed, "revertAll").unwrap_or_else(|| panic!("no Revert all in {view}"));
    assert_eq!(revert_all["arguments"]["paths"], json!(["a.txt"]), "{revert_all}");
    ok(call(&mut c, revert_all["name"].as_str().unwrap(), revert_all["arguments"].clone()));
    assert_eq!(std::fs::read_to_string(w.root.join("a.txt")).unwrap(), "a\n");
    assert_eq!(std::fs::read_to_string(w.root.join("b.txt")).unwrap(), "B\n", "not shown, not reverted");
    assert_eq!(std::fs::read_to_string(w.root.join("c.txt")).unwrap(), "C\n", "not shown, not reverted");
}

/// The first value under `key` anywhere in `value`.
fn find_key(value: &Value, key: &str) -> Option<Value> {
    match value {
        Value::Object(map) => map.get(key).cloned().or_else(|| map.values().find_map(|v| find_key(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}

#[test]
fn a_revert_says_what_it_does_and_a_reverted_revert_undoes_nothing() {
    let w = world(&[("config.env", "KEY=value\n"), ("a.txt", "one\n")]);
    let mut c = server(&w.root, &w.journal, &[]);
    let p = |rel: &str| w.root.join(rel).display().to_string();
    ok(call(
        &mut c,
        "text_editor",
        json!({"command": "str_replace", "path": p("a.txt"), "old_str": "one", "new_str": "two"}),
    ));
    ok(call(&mut c, "delete_file", json!({"path": "config.env"})));
    let dry = ok(call(&mut c, "revert_changes", json!({"to": 0, "dry_run": true})));
    let text = first_text(&dry);
    assert!(text.contains("config.env: restored") && text.contains("undoing change 2 delete_file"), "{text}");
    assert!(text.contains("+KEY=value") && !text.contains("-KEY=value"), "the diff of what it writes: {text}");
    assert!(text.contains("-two") && text.contains("+one"), "{text}");
    let reverted = ok(call(&mut c, "revert_changes", json!({"to": 0})));
    let change = reverted["structuredContent"]["change"].as_u64().unwrap();
    assert_eq!(reverted["structuredContent"]["latest"], change, "latest is the revert's own number");
    // The revert is taken back; then undo_edit undoes the edit it had undone, without a false
    // "changed by someone else".
    ok(call(&mut c, "revert_changes", json!({"to": change})));
    ok(call(&mut c, "revert_changes", json!({"to": change - 1, "if_latest": change + 1})));
    assert_eq!(std::fs::read_to_string(w.root.join("a.txt")).unwrap(), "two\n");
    let undo = ok(call(&mut c, "text_editor", json!({"command": "undo_edit", "path": p("a.txt")})));
    assert!(!first_text(&undo).contains("someone else"), "{undo}");
    assert_eq!(std::fs::read_to_string(w.root.join("a.txt")).unwrap(), "one\n");
}

#[test]
fn every_bad_point_gets_a_message_without_type_names() {
    let w = world(&[("a.txt", "a\n")]);
    let mut c = server(&w.root, &w.journal, &[]);
    ok(call(&mut c, "delete_file", json!({"path": "a.txt"})));
    for bad in [json!("yesterday"), json!(-1), json!(1.5), json!(true), json!(null), json!([1]), json!({"n": 1})] {
        for (tool, key) in [("revert_changes", "to"), ("list_changes", "since")] {
            if tool == "list_changes" && bad.is_null() {
                continue; // `since` is optional: null is its absence
            }
            let result = call(&mut c, tool, json!({ key: bad }));
            let said = first_text(&result);
            assert!(is_error(&result), "{tool} {key}={bad}: {result}");
            assert!(!said.contains("untagged") && !said.contains("Point") && !said.contains("variant"), "{said}");
            assert!(said.contains("expected a change number (0 or more), \"session\""), "{tool} {key}={bad}: {said}");
        }
    }
    // A number written as a string is a number.
    let listed = ok(call(&mut c, "list_changes", json!({"since": "0"})));
    assert!(first_text(&listed).contains("1 change(s) after change 0"), "{listed}");
    ok(call(&mut c, "revert_changes", json!({"to": "0", "dry_run": true})));
}
