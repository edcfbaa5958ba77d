//! A person's way back, through the real binary: sessions by two clients across a kill and a
//! restart, shown by `list_changes` and by the `changes` command with their clients and times;
//! `revert --to session:N` takes back only that session's changes; a dry run changes nothing; a
//! conflict is named; the commands work while a server holds the root; `--json` parses; a
//! second `--root` never hides the first root's history.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

use mcp_tests::{StdioClient, is_error};
use serde_json::{Value, json};

use super::{BIN, first_text};

struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    other: PathBuf,
    journal: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, other) = (base.join("project"), base.join("other"));
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&other).unwrap();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(root.join("crlf.txt"), "x\r\ny\r\n").unwrap();
    World { _dir: dir, root, other, journal: base.join("state") }
}

/// A server on `roots`, initialised as the client `name`.
fn server(w: &World, roots: &[&Path], name: &str) -> StdioClient {
    let mut args: Vec<String> = Vec::new();
    for root in roots {
        args.extend(["--root".to_owned(), root.display().to_string()]);
    }
    args.extend(["--journal-dir".to_owned(), w.journal.display().to_string()]);
    let mut client = StdioClient::builder(BIN).args(&args).spawn().unwrap();
    let mut params = StdioClient::default_initialize_params();
    params["clientInfo"] = json!({"name": name, "version": "9.8.7"});
    client.initialize_with(params).unwrap();
    client
}

fn ok(c: &mut StdioClient, tool: &str, args: Value) -> Value {
    let result = c.call_tool(tool, args.clone()).unwrap();
    assert!(!is_error(&result), "{tool} {args}: {result}");
    result
}

/// Runs a command of the binary in `w`'s root, with `stdin` closed (not a terminal).
fn command(w: &World, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .args(["--journal-dir", w.journal.to_str().unwrap()])
        .current_dir(&w.root)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// `text` with the unified diff `diff` applied (its hunks in order; context and removed lines
/// must be there), as a reader of the dry run would apply it.
fn apply_unified(text: &str, diff: &str) -> String {
    let old: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut at = 0;
    for line in diff.split_inclusive('\n') {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        if let Some(header) = line.strip_prefix("@@ -") {
            let start: usize = header.split([',', ' ']).next().unwrap().parse().unwrap();
            // Up to the hunk, the file as it is.
            let upto = start.saturating_sub(1).max(at);
            out.extend(old[at..upto].iter().copied());
            at = upto;
        } else if let Some(kept) = line.strip_prefix(' ') {
            assert_eq!(old[at], kept, "context line");
            out.push_str(kept);
            at += 1;
        } else if let Some(removed) = line.strip_prefix('-') {
            assert_eq!(old[at], removed, "removed line");
            at += 1;
        } else if let Some(added) = line.strip_prefix('+') {
            out.push_str(added);
        }
    }
    out.extend(old[at..].iter().copied());
    out
}

/// Session 1 by "claude-code" (killed), session 2 by "codex" (ended).
fn two_sessions(w: &World) {
    let mut first = server(w, &[&w.root], "claude-code");
    ok(
        &mut first,
        "text_editor",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "TWO"}),
    );
    ok(&mut first, "text_editor", json!({"command": "create", "path": "new.txt", "file_text": "n\n"}));
    first.kill().unwrap();
    let mut second = server(w, &[&w.root], "codex");
    ok(&mut second, "edit_file", json!({"path": "a.txt", "edits": [{"old_str": "one", "new_str": "ONE\nuno"}]}));
    ok(&mut second, "move_file", json!({"source": "new.txt", "destination": "moved.txt"}));
    ok(
        &mut second,
        "text_editor",
        json!({"command": "str_replace", "path": "crlf.txt", "old_str": "y", "new_str": "why"}),
    );
    second.kill().unwrap();
}

#[test]
fn two_sessions_by_two_clients_are_shown_and_the_second_is_taken_back_alone() {
    let w = world();
    two_sessions(&w);
    // A restart, as a third client: the model's listing shows both sessions.
    let mut third = server(&w, &[&w.root], "gemini-cli");
    let listed = ok(&mut third, "list_changes", json!({}));
    let said = first_text(&listed);
    assert!(said.contains("By session (2)"), "{said}");
    assert!(said.contains("Session 1: claude-code 9.8.7, started "), "{said}");
    assert!(said.contains("Session 2: codex 9.8.7, started "), "{said}");
    assert!(said.contains("changes 1-2") && said.contains("changes 3-5"), "{said}");
    assert!(said.contains("`to: \"session:2\"` (or 2)"), "{said}");
    let timeline = listed["structuredContent"]["timeline"].as_array().unwrap().clone();
    assert_eq!(timeline.len(), 2, "{timeline:?}");
    assert_eq!(timeline[1]["client"], "codex 9.8.7");
    assert_eq!(timeline[1]["state"], "ended");
    assert_eq!((timeline[1]["added"].as_u64(), timeline[1]["removed"].as_u64()), (Some(3), Some(2)));
    // An empty "session" answer says where the previous session began.
    let none = first_text(&ok(&mut third, "list_changes", json!({"since": "session"})));
    assert!(none.contains("The previous session was session 2 (codex 9.8.7"), "{none}");
    assert!(none.contains("began after change 2: `since: \"session:2\"`"), "{none}");

    // The command, while that server holds the root: both sessions, clients and times.
    let shown = command(&w, &["changes"]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let out = text(&shown.stdout);
    assert!(out.contains("SESSION  CLIENT"), "{out}");
    for line in ["claude-code 9.8.7", "codex 9.8.7", "--to session:1", "--to session:2", "moved.txt (from new.txt)"] {
        assert!(out.contains(line), "{line}: {out}");
    }
    let json_out = command(&w, &["changes", "--json"]);
    let data: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(data["timeline"][0]["session"], 1);
    assert!(data["timeline"][0]["started"].as_str().unwrap().ends_with('Z'));

    // A dry run changes nothing.
    let before = (read(&w.root.join("a.txt")), read(&w.root.join("crlf.txt")));
    let dry = command(&w, &["revert", "--to", "session:2", "--dry-run"]);
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert!(
        text(&dry.stdout).contains("moved.txt (to new.txt)") && text(&dry.stdout).contains("Dry run"),
        "{}",
        text(&dry.stdout)
    );
    assert_eq!((read(&w.root.join("a.txt")), read(&w.root.join("crlf.txt"))), before);
    // What the dry run shows, applied to the file as it is, is what the revert will write.
    let shown = command(&w, &["revert", "--to", "session:2", "--dry-run", "--json"]);
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    let a_diff = shown["files"].as_array().unwrap().iter().find(|f| f["path"] == "a.txt").unwrap()["diff"]
        .as_str()
        .unwrap()
        .to_owned();
    let foreseen = apply_unified(&String::from_utf8(read(&w.root.join("a.txt"))).unwrap(), &a_diff);
    // Without a terminal and without --yes: refused, exit 2, nothing changed.
    let asked = command(&w, &["revert", "--to", "session:2"]);
    assert_eq!(asked.status.code(), Some(2));
    assert!(text(&asked.stderr).contains("Pass --yes"), "{}", text(&asked.stderr));
    assert_eq!((read(&w.root.join("a.txt")), read(&w.root.join("crlf.txt"))), before);

    // The revert takes back the second session alone: the first one's changes stay.
    let done = command(&w, &["revert", "--to", "session:2", "--yes", "--json"]);
    assert!(done.status.success(), "{}", text(&done.stderr));
    let done: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(done["reverted"], true);
    assert_eq!(read(&w.root.join("a.txt")), b"one\nTWO\n");
    assert_eq!(read(&w.root.join("a.txt")), foreseen.as_bytes(), "the revert wrote what its dry run showed");
    assert_eq!(read(&w.root.join("crlf.txt")), b"x\r\ny\r\n");
    assert_eq!(read(&w.root.join("new.txt")), b"n\n");
    assert!(!w.root.join("moved.txt").exists());
    // The running server sees the revert, made by the command, as a change of its own session.
    let after = ok(&mut third, "list_changes", json!({"since": 5}));
    assert!(first_text(&after).contains("mcp-server-text-editor revert"), "{after}");
}

#[test]
fn a_conflict_is_named_and_changes_nothing_and_bad_points_are_usage_errors() {
    let w = world();
    two_sessions(&w);
    std::fs::write(w.root.join("crlf.txt"), "edited by the user\n").unwrap();
    let before = read(&w.root.join("a.txt"));
    let refused = command(&w, &["revert", "--to", "session:2", "--yes"]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stdout));
    let said = text(&refused.stderr);
    assert!(said.contains("Nothing was reverted") && said.contains("--force"), "{said}");
    assert!(text(&refused.stdout).contains("Left as it is: crlf.txt"), "{}", text(&refused.stdout));
    assert_eq!(read(&w.root.join("a.txt")), before);
    // --force reverts the others and leaves it.
    let forced = command(&w, &["revert", "--to", "session:2", "--yes", "--force"]);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert_eq!(read(&w.root.join("a.txt")), b"one\nTWO\n");
    assert_eq!(read(&w.root.join("crlf.txt")), b"edited by the user\n");
    for (args, says) in [
        (vec!["revert", "--to", "yesterday", "--yes"], "expected a change number"),
        (vec!["revert", "--to", "session:9", "--yes"], "There is no session 9"),
        (vec!["changes", "--since", "session"], "a command has none"),
        (vec!["revert", "--yes"], "--to <POINT>"),
    ] {
        let out = command(&w, &args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(text(&out.stderr).contains(says), "{args:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("Point") && !text(&out.stderr).contains("u64"), "{}", text(&out.stderr));
    }
}

#[test]
fn a_second_root_never_hides_the_first_roots_history() {
    let w = world();
    let mut first = server(&w, &[&w.root], "claude-code");
    ok(
        &mut first,
        "text_editor",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "TWO"}),
    );
    first.kill().unwrap();
    // Wider: both roots.
    let mut wider = server(&w, &[&w.root, &w.other], "codex");
    let listed = ok(&mut wider, "list_changes", json!({}));
    assert!(first_text(&listed).contains("a.txt: edited"), "{listed}");
    let path = w.other.join("b.txt");
    ok(&mut wider, "text_editor", json!({"command": "create", "path": path, "file_text": "b\n"}));
    wider.kill().unwrap();
    // Narrower: the other root alone sees its own change, not the first root's.
    let mut narrow = server(&w, &[&w.other], "codex");
    let listed = first_text(&ok(&mut narrow, "list_changes", json!({})));
    assert!(listed.contains("b.txt: created") && !listed.contains("a.txt"), "{listed}");
    narrow.kill().unwrap();
    // The first root again: its change, reverted; recorded once (change 1, and no copy).
    let mut again = server(&w, &[&w.root], "claude-code");
    let listed = ok(&mut again, "list_changes", json!({}));
    assert_eq!(listed["structuredContent"]["files"].as_array().unwrap().len(), 1, "{listed}");
    ok(&mut again, "revert_changes", json!({"to": 0}));
    assert_eq!(read(&w.root.join("a.txt")), b"one\ntwo\n");
    assert_eq!(read(&path), b"b\n", "the other root's change is not this workspace's to revert");
    // Every bad value of every argument is refused without a Rust type's name.
    for (tool, args) in [
        ("list_changes", json!({"since": "yesterday"})),
        ("list_changes", json!({"since": "session:x"})),
        ("list_changes", json!({"paths": 3})),
        ("list_changes", json!({"paths": [true]})),
        ("list_changes", json!({"sessions": "mine"})),
        ("revert_changes", json!({"to": 0, "if_latest": "soon"})),
        ("revert_changes", json!({"to": 0, "if_latest": -2})),
        ("revert_changes", json!({"to": 0, "dry_run": "yes"})),
        ("revert_changes", json!({"to": 0, "if_sha256": {"a.txt": 3}})),
        ("revert_changes", json!({"to": "session:99"})),
    ] {
        let result = again.call_tool(tool, args.clone()).unwrap();
        let said = first_text(&result);
        assert!(is_error(&result), "{tool} {args}: {result}");
        for name in ["Point", "u64", "Vec<", "Option<", "String", "untagged", "struct ", "enum "] {
            assert!(!said.contains(name), "{tool} {args}: {said}");
        }
    }
}
