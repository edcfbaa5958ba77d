//! The change journal through the binary: changes listed and reverted as one across files and
//! restarts (kill -9 included), refusals that name each file changed by someone else, two
//! processes on one root, and a property test: any writes, then `revert_changes` to 0, give
//! back the tree exactly.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use mcp_tests::{StdioClient, error_code, is_error};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{TOOL, first_text, spawn_on};

/// Every file and directory under `root`: its bytes (`None` for a directory). The hidden
/// temporary file a write killed with -9 leaves beside its target (which every listing hides,
/// and the next write of that name sweeps away) is not part of the tree.
pub fn tree(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().contains(".mcp-tmp-") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if path.is_dir() {
                stack.push(path);
                out.insert(rel, None);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn ok(result: Value) -> Value {
    assert!(!is_error(&result), "{result}");
    result
}

fn data(result: &Value) -> Value {
    result["structuredContent"].clone()
}

fn call(c: &mut StdioClient, tool: &str, args: Value) -> Value {
    c.call_tool(tool, args).unwrap()
}

fn edit(c: &mut StdioClient, args: Value) -> Value {
    ok(call(c, TOOL, args))
}

/// A root with five files: UTF-8, CRLF, UTF-16 with a BOM, one to move, one to delete.
fn five_files() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(root.join("crlf.txt"), "one\r\ntwo\r\n").unwrap();
    let utf16: Vec<u8> =
        [0xFF, 0xFE].into_iter().chain("héllo\r\nwörld\r\n".encode_utf16().flat_map(u16::to_le_bytes)).collect();
    std::fs::write(root.join("utf16.txt"), utf16).unwrap();
    std::fs::write(root.join("move-me.txt"), "moving\n").unwrap();
    std::fs::write(root.join("doomed.txt"), b"bytes \x00\xff kept").unwrap();
    (dir, root)
}

/// The acceptance scenario's changes: str_replace, insert, edit_file, create, a move, a delete.
fn change_everything(c: &mut StdioClient, root: &Path) {
    let p = |rel: &str| root.join(rel).display().to_string();
    edit(c, json!({"command": "str_replace", "path": p("a.txt"), "old_str": "beta", "new_str": "BETA"}));
    edit(c, json!({"command": "insert", "path": p("crlf.txt"), "insert_line": 1, "new_str": "inserted"}));
    ok(call(c, "edit_file", json!({"path": p("utf16.txt"), "edits": [{"old_str": "wörld", "new_str": "welt"}]})));
    edit(c, json!({"command": "create", "path": p("new/dir/created.txt"), "file_text": "fresh\n"}));
    ok(call(c, "move_file", json!({"source": "move-me.txt", "destination": "moved/here.txt"})));
    ok(call(c, "delete_file", json!({"path": "doomed.txt"})));
    edit(c, json!({"command": "str_replace", "path": p("a.txt"), "old_str": "alpha", "new_str": "ALPHA"}));
}

#[test]
fn after_kill_9_every_change_is_listed_and_one_revert_brings_every_file_back() {
    let (_dir, root) = five_files();
    let before = tree(&root);
    let mut c = spawn_on(&root, &[]);
    change_everything(&mut c, &root);
    c.kill().unwrap();

    let mut c = spawn_on(&root, &[]);
    let listed = ok(call(&mut c, "list_changes", json!({})));
    let listing = data(&listed);
    assert_eq!(listing["latest"], 7, "{listing}");
    assert_eq!(listing["changes"].as_array().unwrap().len(), 7);
    let files: BTreeMap<String, Value> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_owned(), f.clone()))
        .collect();
    assert_eq!(files["a.txt"]["status"], "edited");
    assert_eq!(files["a.txt"]["changes"], json!([1, 7]));
    assert_eq!((files["a.txt"]["added"].as_u64(), files["a.txt"]["removed"].as_u64()), (Some(2), Some(2)));
    assert_eq!(
        files["crlf.txt"]["diff"],
        "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,2 +1,3 @@\n one\r\n+inserted\r\n two\r\n"
    );
    assert!(files["utf16.txt"]["diff"].as_str().unwrap().contains("+welt\r\n"), "{files:?}");
    assert_eq!(files["new/dir/created.txt"]["status"], "created");
    assert_eq!(files["moved/here.txt"]["status"], "moved");
    assert_eq!(files["moved/here.txt"]["from"], "move-me.txt");
    assert!(!files.contains_key("move-me.txt"), "a move is one entry");
    assert_eq!(files["doomed.txt"]["status"], "deleted");
    let text = first_text(&listed);
    assert!(text.contains("a.txt: edited") && text.contains("moved/here.txt: moved from move-me.txt"), "{text}");

    // A dry run changes nothing and shows what the revert would do: each file as the revert
    // leaves it, with the diff from now to that, and the changes it undoes as the cause.
    let dry = ok(call(&mut c, "revert_changes", json!({"to": 0, "dry_run": true})));
    let shown = first_text(&dry);
    assert!(shown.contains("\n-ALPHA\n") && shown.contains("\n+alpha\n"), "the diff the revert writes: {shown}");
    assert!(shown.contains("doomed.txt: restored"), "{shown}");
    assert!(shown.contains("new/dir/created.txt: removed"), "{shown}");
    assert!(shown.contains("moved/here.txt: moved back to move-me.txt"), "{shown}");
    assert!(shown.contains("a.txt: edited (+2 -2), undoing changes 1 text_editor str_replace, 7 "), "{shown}");
    let statuses: BTreeMap<String, String> = data(&dry)["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_owned(), f["status"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(statuses["doomed.txt"], "restored");
    assert_eq!(statuses["new/dir/created.txt"], "removed");
    assert_eq!(statuses["moved/here.txt"], "moved back");
    assert_ne!(tree(&root), before);
    let reverted = ok(call(&mut c, "revert_changes", json!({"to": 0})));
    assert_eq!(tree(&root), before, "every file back byte for byte, the created directories gone");
    let change = data(&reverted)["change"].as_u64().unwrap();
    assert_eq!(change, 8);
    // The revert is itself a change: reverting it puts the agent's changes back.
    ok(call(&mut c, "revert_changes", json!({"to": 7})));
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "ALPHA\nBETA\n");
    assert!(!root.join("doomed.txt").exists() && root.join("moved/here.txt").exists());
}

#[test]
fn undo_of_a_delete_still_works_after_a_restart() {
    let (_dir, root) = five_files();
    let mut c = spawn_on(&root, &[]);
    ok(call(&mut c, "delete_file", json!({"path": "doomed.txt"})));
    c.kill().unwrap();
    let mut c = spawn_on(&root, &[]);
    let undone = edit(&mut c, json!({"command": "undo_edit", "path": root.join("doomed.txt")}));
    assert!(first_text(&undone).contains("has been restored"), "{undone}");
    assert_eq!(std::fs::read(root.join("doomed.txt")).unwrap(), b"bytes \x00\xff kept");
    // And a move's, from either path.
    ok(call(&mut c, "move_file", json!({"source": "a.txt", "destination": "b/a.txt"})));
    c.kill().unwrap();
    let mut c = spawn_on(&root, &[]);
    edit(&mut c, json!({"command": "undo_edit", "path": root.join("b/a.txt")}));
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "alpha\nbeta\n");
    assert!(!root.join("b").exists(), "the directory the move made is gone");
}

#[test]
fn a_file_changed_outside_is_named_and_nothing_changes_unless_forced() {
    let (_dir, root) = five_files();
    let mut c = spawn_on(&root, &[]);
    change_everything(&mut c, &root);
    std::fs::write(root.join("a.txt"), "someone else's\n").unwrap();
    let changed = tree(&root);
    let refused = call(&mut c, "revert_changes", json!({"to": 0}));
    assert_eq!(error_code(&refused).as_deref(), Some("CONFLICT"), "{refused}");
    let message = first_text(&refused);
    assert!(message.contains("a.txt") && message.contains("changed by someone else since change 7"), "{message}");
    assert!(!message.contains("crlf.txt"), "only the changed file is named: {message}");
    assert_eq!(tree(&root), changed, "nothing changed");
    let listed = data(&ok(call(&mut c, "list_changes", json!({}))));
    assert_eq!(listed["conflicts"][0]["path"], "a.txt", "{listed}");

    let forced = ok(call(&mut c, "revert_changes", json!({"to": 0, "force": true})));
    let text = first_text(&forced);
    assert!(text.contains("a.txt: left as it is"), "{text}");
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "someone else's\n");
    assert_eq!(std::fs::read(root.join("crlf.txt")).unwrap(), b"one\r\ntwo\r\n");
    assert_eq!(std::fs::read(root.join("doomed.txt")).unwrap(), b"bytes \x00\xff kept");
    assert!(root.join("move-me.txt").exists() && !root.join("moved").exists());
}

#[test]
fn paths_limit_a_revert_and_guards_hold_it_to_what_was_shown() {
    let (_dir, root) = five_files();
    let mut c = spawn_on(&root, &[]);
    change_everything(&mut c, &root);
    ok(call(&mut c, "revert_changes", json!({"to": 0, "paths": ["moved/here.txt"]})));
    assert!(root.join("move-me.txt").exists() && !root.join("moved/here.txt").exists(), "the move, both paths");
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "ALPHA\nBETA\n", "the rest untouched");
    // A guard that no longer holds: refused, nothing changed.
    let stale = call(&mut c, "revert_changes", json!({"to": 0, "if_latest": 3}));
    assert_eq!(error_code(&stale).as_deref(), Some("CONFLICT"), "{stale}");
    let wrong = call(&mut c, "revert_changes", json!({"to": 0, "if_sha256": {"a.txt": "0".repeat(64)}}));
    assert_eq!(error_code(&wrong).as_deref(), Some("CONFLICT"), "{wrong}");
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "ALPHA\nBETA\n");
    // Bad input: a point past the latest change.
    let past = call(&mut c, "revert_changes", json!({"to": 99}));
    assert_eq!(error_code(&past).as_deref(), Some("INVALID_ARGS"), "{past}");
}

#[test]
fn two_processes_on_one_root_share_one_journal() {
    let (_dir, root) = five_files();
    let before = tree(&root);
    let mut a = spawn_on(&root, &[]);
    let mut b = spawn_on(&root, &[]);
    let p = |rel: &str| root.join(rel).display().to_string();
    edit(&mut a, json!({"command": "str_replace", "path": p("a.txt"), "old_str": "alpha", "new_str": "A"}));
    edit(&mut b, json!({"command": "str_replace", "path": p("crlf.txt"), "old_str": "one", "new_str": "B"}));
    edit(&mut a, json!({"command": "create", "path": p("c.txt"), "file_text": "c\n"}));
    let seen = data(&ok(call(&mut b, "list_changes", json!({}))));
    assert_eq!(seen["latest"], 3, "b sees a's changes: {seen}");
    let mine = data(&ok(call(&mut b, "list_changes", json!({"sessions": "this"}))));
    assert_eq!(mine["changes"].as_array().unwrap().len(), 1, "{mine}");
    ok(call(&mut b, "revert_changes", json!({"to": 0})));
    assert_eq!(tree(&root), before);
    // A's undo of its own change, reverted meanwhile by b: nothing left to undo.
    let undo = call(&mut a, TOOL, json!({"command": "undo_edit", "path": p("a.txt")}));
    assert_eq!(error_code(&undo).as_deref(), Some("NOT_FOUND"), "{undo}");
}

#[test]
fn kill_9_during_many_small_edits_leaves_a_journal_that_matches_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..4 {
        std::fs::write(root.join(format!("f{i}.txt")), "0\n").unwrap();
    }
    let before = tree(&root);
    let mut c = spawn_on(&root, &["--no-fsync"]);
    // 1,000 small edits queued, the server killed while it works through them.
    let mut ids = Vec::new();
    for n in 0..1000 {
        let path = root.join(format!("f{}.txt", n % 4)).display().to_string();
        let args = json!({"command": "insert", "path": path, "insert_line": 0, "new_str": format!("{n}")});
        ids.push(c.send_request("tools/call", json!({"name": TOOL, "arguments": args})).unwrap());
    }
    std::thread::sleep(std::time::Duration::from_millis(400));
    c.kill().unwrap();
    let mut c = spawn_on(&root, &[]);
    let listed = data(&ok(call(&mut c, "list_changes", json!({}))));
    assert!(listed["conflicts"].as_array().unwrap().is_empty(), "the journal matches the files: {listed}");
    for file in listed["files"].as_array().unwrap() {
        let bytes = std::fs::read(root.join(file["path"].as_str().unwrap())).unwrap();
        assert_eq!(file["sha256"], mcp_shared::view::sha256_hex(&bytes).as_str());
    }
    ok(call(&mut c, "revert_changes", json!({"to": 0})));
    assert_eq!(tree(&root), before);
}

#[test]
fn kill_9_during_a_revert_of_200_files_leaves_every_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..200 {
        std::fs::write(root.join(format!("f{i:03}.txt")), format!("file {i}\n")).unwrap();
    }
    let before = tree(&root);
    let mut c = spawn_on(&root, &[]);
    for i in 0..200 {
        let path = root.join(format!("f{i:03}.txt")).display().to_string();
        edit(&mut c, json!({"command": "str_replace", "path": path, "old_str": "file", "new_str": "FILE"}));
    }
    let after = tree(&root);
    // The revert is under way (fsync on: a few ms a file) when the server is killed.
    c.send_request("tools/call", json!({"name": "revert_changes", "arguments": {"to": 0}})).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    c.kill().unwrap();
    let mut c = spawn_on(&root, &[]);
    // The next start settles the revert: all of it, or (killed half-way) none of it.
    let listed = data(&ok(call(&mut c, "list_changes", json!({}))));
    let now = tree(&root);
    let differs = |a: &BTreeMap<PathBuf, Option<Vec<u8>>>| a.iter().filter(|(k, v)| now.get(*k) != Some(v)).count();
    assert!(
        now == before || now == after,
        "a revert is all or nothing: {} differ from before, {} from after",
        differs(&before),
        differs(&after)
    );
    assert!(listed["conflicts"].as_array().unwrap().is_empty(), "{listed}");
    ok(call(&mut c, "revert_changes", json!({"to": 0})));
    assert_eq!(tree(&root), before);
}

/// One write of the property test.
#[derive(Debug, Clone)]
enum Write {
    Replace { file: usize, text: String },
    Insert { file: usize, line: usize, text: String },
    EditFile { file: usize, text: String },
    Create { file: usize, text: String },
    Move { file: usize, to: usize },
    Delete { file: usize },
    Undo { file: usize },
}

fn write_strategy() -> impl Strategy<Value = Write> {
    let text = prop::sample::select(vec!["x", "\r", "\r\n", "é", "line\n", "", "a\rb", "日本"]).prop_map(str::to_owned);
    prop_oneof![
        (0..6usize, text.clone()).prop_map(|(file, text)| Write::Replace { file, text }),
        (0..6usize, 0..3usize, text.clone()).prop_map(|(file, line, text)| Write::Insert { file, line, text }),
        (0..6usize, text.clone()).prop_map(|(file, text)| Write::EditFile { file, text }),
        (0..6usize, text).prop_map(|(file, text)| Write::Create { file, text }),
        (0..6usize, 0..6usize).prop_map(|(file, to)| Write::Move { file, to }),
        (0..6usize).prop_map(|file| Write::Delete { file }),
        (0..6usize).prop_map(|file| Write::Undo { file }),
    ]
}

/// The files of the property test: names with spaces and odd characters, in a subdirectory too.
const NAMES: [&str; 6] = ["a.txt", "b c.txt", "sub/d.txt", "é.txt", "sub/deep/e.txt", "-f.txt"];

fn seed(root: &Path) {
    std::fs::write(root.join(NAMES[0]), "one\ntwo\n").unwrap();
    std::fs::write(root.join(NAMES[1]), "cr\ronly\r").unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join(NAMES[2]), "crlf\r\nlines\r\n").unwrap();
    let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain("ütf16\n".encode_utf16().flat_map(u16::to_le_bytes)).collect();
    std::fs::write(root.join(NAMES[3]), utf16).unwrap();
}

fn apply(c: &mut StdioClient, root: &Path, write: &Write) {
    let p = |i: usize| root.join(NAMES[i]).display().to_string();
    // Any answer is fine (many writes are refused: a missing file, an ambiguous match); what is
    // checked is that the revert takes the tree back.
    let _ = match write {
        Write::Replace { file, text } => {
            call(c, TOOL, json!({"command": "str_replace", "path": p(*file), "old_str": "n", "new_str": text}))
        }
        Write::Insert { file, line, text } => {
            call(c, TOOL, json!({"command": "insert", "path": p(*file), "insert_line": line, "new_str": text}))
        }
        Write::EditFile { file, text } => call(
            c,
            "edit_file",
            json!({"path": p(*file), "edits": [{"old_str": "e", "new_str": text, "replace_all": true}]}),
        ),
        Write::Create { file, text } => {
            call(c, TOOL, json!({"command": "create", "path": p(*file), "file_text": text}))
        }
        Write::Move { file, to } => {
            call(c, "move_file", json!({"source": p(*file), "destination": p(*to), "overwrite": true}))
        }
        Write::Delete { file } => call(c, "delete_file", json!({"path": p(*file)})),
        Write::Undo { file } => call(c, TOOL, json!({"command": "undo_edit", "path": p(*file)})),
    };
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any sequence of writes, then `revert_changes` to 0 (after a restart half of the time):
    /// a walk of the root is what it was, byte for byte.
    #[test]
    fn any_writes_then_a_revert_to_0_give_back_the_tree(writes in prop::collection::vec(write_strategy(), 1..14), restart in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        seed(&root);
        let before = tree(&root);
        let mut c = spawn_on(&root, &["--no-fsync"]);
        for write in &writes {
            apply(&mut c, &root, write);
        }
        if restart {
            c.kill().unwrap();
            c = spawn_on(&root, &["--no-fsync"]);
        }
        let reverted = call(&mut c, "revert_changes", json!({"to": 0}));
        prop_assert!(!is_error(&reverted), "{}", reverted);
        prop_assert_eq!(tree(&root), before, "{:?}", writes);
    }
}

#[test]
fn http_sessions_share_the_journal_and_see_their_own_by_default() {
    let (_dir, root) = five_files();
    let before = tree(&root);
    let server = StdioClient::builder(super::BIN)
        .args(["--root", root.to_str().unwrap(), "--http", "127.0.0.1:0"])
        .env("XDG_STATE_HOME", super::state_home(&root))
        .env("RUST_LOG", "warn,mcp_shared::transport::http=info")
        .spawn()
        .unwrap();
    let log = server.wait_for_stderr("/mcp").unwrap();
    let start = log.find("http://").unwrap();
    let url = &log[start..start + log[start..].find("/mcp").unwrap() + "/mcp".len()];
    let wait = std::time::Duration::from_secs(30);
    let mut one = mcp_tests::http::HttpSession::open(url, None, wait).unwrap();
    let mut two = mcp_tests::http::HttpSession::open(url, None, wait).unwrap();
    assert!(one.session.is_some() && one.session != two.session);
    let p = |rel: &str| root.join(rel).display().to_string();
    let result = |r: Value| r["result"].clone();
    let edit = json!({"command": "str_replace", "path": p("a.txt"), "old_str": "alpha", "new_str": "ONE"});
    assert!(!is_error(&result(one.call_tool(TOOL, &edit).unwrap())));
    let edit = json!({"command": "str_replace", "path": p("crlf.txt"), "old_str": "one", "new_str": "TWO"});
    assert!(!is_error(&result(two.call_tool(TOOL, &edit).unwrap())));
    let own = result(two.call_tool("list_changes", &json!({})).unwrap());
    assert_eq!(own["structuredContent"]["sessions"], "this");
    assert_eq!(own["structuredContent"]["changes"].as_array().unwrap().len(), 1, "{own}");
    let all = result(two.call_tool("list_changes", &json!({"sessions": "all"})).unwrap());
    assert_eq!(all["structuredContent"]["changes"].as_array().unwrap().len(), 2, "{all}");
    // Session two's revert takes back its own change only; session one's undo is refused on
    // session two's file (another session still at work made it).
    assert!(!is_error(&result(two.call_tool("revert_changes", &json!({"to": 0})).unwrap())));
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "ONE\nbeta\n");
    assert_eq!(std::fs::read(root.join("crlf.txt")).unwrap(), b"one\r\ntwo\r\n");
    let edit = json!({"command": "str_replace", "path": p("crlf.txt"), "old_str": "two", "new_str": "2"});
    assert!(!is_error(&result(two.call_tool(TOOL, &edit).unwrap())));
    let refused = result(one.call_tool(TOOL, &json!({"command": "undo_edit", "path": p("crlf.txt")})).unwrap());
    assert_eq!(error_code(&refused).as_deref(), Some("CONFLICT"), "{refused}");
    assert!(!is_error(&result(one.call_tool("revert_changes", &json!({"to": 0, "sessions": "all"})).unwrap())));
    assert_eq!(tree(&root), before);
}

#[test]
fn a_session_start_is_a_point_and_bad_points_are_refused() {
    let (_dir, root) = five_files();
    let mut c = spawn_on(&root, &[]);
    let p = |rel: &str| root.join(rel).display().to_string();
    edit(&mut c, json!({"command": "str_replace", "path": p("a.txt"), "old_str": "alpha", "new_str": "first"}));
    c.kill().unwrap();
    let mut c = spawn_on(&root, &[]);
    // Nothing yet in this session: nothing since its start.
    let none = data(&ok(call(&mut c, "list_changes", json!({"since": "session"}))));
    assert!(none["files"].as_array().unwrap().is_empty(), "{none}");
    edit(&mut c, json!({"command": "str_replace", "path": p("crlf.txt"), "old_str": "two", "new_str": "second"}));
    let mine = data(&ok(call(&mut c, "list_changes", json!({"since": "session"}))));
    assert_eq!(mine["since"], 1, "{mine}");
    assert_eq!(mine["this_session_since"], 1);
    ok(call(&mut c, "revert_changes", json!({"to": "session"})));
    assert_eq!(std::fs::read(root.join("crlf.txt")).unwrap(), b"one\r\ntwo\r\n");
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "first\nbeta\n",
        "the earlier process's change stays"
    );
    for bad in [
        json!({"to": "yesterday"}),
        json!({"to": -1}),
        json!({}),
        json!({"to": 0, "paths": [1]}),
        json!({"to": "session:0"}),
    ] {
        let refused = call(&mut c, "revert_changes", bad.clone());
        assert!(is_error(&refused), "{bad}: {refused}");
    }
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "first\nbeta\n");
}

#[test]
fn past_its_bound_the_journal_drops_the_oldest_and_says_how_far_back_it_reaches() {
    let (_dir, root) = five_files();
    let mut c = spawn_on(&root, &["--journal-max-changes", "10", "--no-fsync"]);
    ok(call(&mut c, "delete_file", json!({"path": "doomed.txt"})));
    let p = root.join("a.txt").display().to_string();
    for i in 0..30 {
        let (old, new) = if i % 2 == 0 { ("alpha", "ALPHA") } else { ("ALPHA", "alpha") };
        edit(&mut c, json!({"command": "str_replace", "path": p, "old_str": old, "new_str": new}));
    }
    let listed = ok(call(&mut c, "list_changes", json!({})));
    let earliest = data(&listed)["earliest_point"].as_u64().unwrap();
    assert!(earliest > 1, "{listed}");
    assert!(first_text(&listed).contains("the earliest point revert_changes can go back to"), "{listed}");
    let refused = call(&mut c, "revert_changes", json!({"to": 0}));
    assert_eq!(error_code(&refused).as_deref(), Some("INVALID_ARGS"), "{refused}");
    assert!(first_text(&refused).contains(&format!("`to: {earliest}`")), "{refused}");
    // The deletion's undo, which its reply promised, is kept.
    let undone = edit(&mut c, json!({"command": "undo_edit", "path": root.join("doomed.txt")}));
    assert!(first_text(&undone).contains("has been restored"), "{undone}");
    ok(call(&mut c, "revert_changes", json!({"to": earliest})));
}

#[test]
fn where_no_journal_file_can_be_made_undo_and_revert_still_work_for_the_process() {
    // The journal's place inside the root, and no temporary directory (an empty chroot, a
    // read-only system): the journal lives in memory, and says so.
    let (_dir, root) = five_files();
    let before = tree(&root);
    let state = root.join("state-inside-the-root");
    let mut c = StdioClient::builder(super::BIN)
        .args(["--root", root.to_str().unwrap(), "--journal-dir", state.to_str().unwrap()])
        .env("TMPDIR", root.join("no-such-directory"))
        .spawn()
        .unwrap();
    c.initialize().unwrap();
    let p = |rel: &str| root.join(rel).display().to_string();
    edit(&mut c, json!({"command": "str_replace", "path": p("a.txt"), "old_str": "alpha", "new_str": "A"}));
    ok(call(&mut c, "delete_file", json!({"path": "doomed.txt"})));
    edit(&mut c, json!({"command": "undo_edit", "path": p("doomed.txt")}));
    let listed = ok(call(&mut c, "list_changes", json!({})));
    assert!(first_text(&listed).contains("will not survive a restart"), "{listed}");
    ok(call(&mut c, "revert_changes", json!({"to": 0})));
    assert_eq!(tree(&root), before, "nothing was written inside the root, and everything came back");
    c.wait_for_stderr("it is kept in memory").unwrap();
}
