//! The file tools end to end (bridge → host → disk): listing with .gitignore and hidden files
//! left out, reading, the size limit, binary files, writing (atomic, parents created, logged),
//! and a read-only host.

use std::fs;

use mcp_tests::{is_error, structured, text_of};
use serde_json::json;

use super::{Env, code, rt, wire_code, ws_authorized, ws_call};

#[test]
fn list_files_leaves_out_gitignored_and_hidden_paths_outside_a_git_repo() {
    let env = Env::new();
    let ws = env.workspace(
        "ws",
        &[
            (".gitignore", "target/\n*.log\n!keep.log\n/secret.txt\n"),
            ("README.md", "r"),
            ("src/main.rs", "m"),
            ("src/lib/mod.rs", "l"),
            ("src/secret.txt", "not the root one"),
            ("target/debug/out", "o"),
            ("build.log", "b"),
            ("keep.log", "k"),
            ("secret.txt", "s"),
            (".env", "e"),
            (".config/x", "x"),
            ("src/.hidden", "h"),
            ("docs/.gitignore", "draft.md\n"),
            ("docs/draft.md", "d"),
            ("docs/final.md", "f"),
        ],
    );
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let result = bridge.call_tool("list_files", json!({"recursive": true})).unwrap();
    assert!(!is_error(&result), "{result}");
    let listed = structured(&result).unwrap();
    assert_eq!(
        listed,
        json!({"files": ["README.md", "docs/final.md", "keep.log", "src/lib/mod.rs", "src/main.rs", "src/secret.txt"], "truncated": false})
    );
    let top = structured(&bridge.call_tool("list_files", json!({"recursive": false})).unwrap()).unwrap();
    assert_eq!(top["files"], json!(["README.md", "docs/", "keep.log", "src/"]));
    let default = structured(&bridge.call_tool("list_files", json!({})).unwrap()).unwrap();
    assert_eq!(default, top, "recursive defaults to false");
    let sub = structured(&bridge.call_tool("list_files", json!({"recursive": false, "path": "src"})).unwrap()).unwrap();
    assert_eq!(sub["files"], json!(["src/lib/", "src/main.rs", "src/secret.txt"]));
    let missing = bridge.call_tool("list_files", json!({"path": "nope"})).unwrap();
    assert_eq!(code(&missing), "NOT_FOUND");
    assert!(text_of(&missing).contains("list_files"), "{}", text_of(&missing));
}

#[test]
fn read_file_returns_the_text_exactly() {
    let env = Env::new();
    let text = "line 1\r\nline 2 — ünïcode\n\tend without newline";
    let ws = env.workspace("ws", &[("src/a.txt", text), ("empty.txt", "")]);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let result = bridge.call_tool("read_file", json!({"path": "src/a.txt"})).unwrap();
    assert!(!is_error(&result));
    assert_eq!(result["content"], json!([{"type": "text", "text": text}]));
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "./src/a.txt"})).unwrap()), text);
    let absolute = ws.join("src/a.txt").display().to_string();
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": absolute})).unwrap()), text);
    // The URIs of resources/list, and an IDE's absolute file URIs, work as paths too.
    for uri in ["file:///src/a.txt".to_owned(), "file:///src%2Fa.txt".to_owned(), format!("file://{absolute}")] {
        let result = bridge.call_tool("read_file", json!({"path": uri})).unwrap();
        assert_eq!(text_of(&result), text, "{uri}: {result}");
    }
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "empty.txt"})).unwrap()), "");
}

#[test]
fn missing_files_directories_and_binary_files_are_clear_errors() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("src/a.rs", "x")]);
    fs::write(ws.join("image.png"), [0x89, b'P', b'N', b'G', 0, 0, 1, 2]).unwrap();
    fs::write(ws.join("latin1.txt"), b"caf\xe9").unwrap();
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let missing = bridge.call_tool("read_file", json!({"path": "src/b.rs"})).unwrap();
    assert_eq!(code(&missing), "NOT_FOUND");
    assert!(text_of(&missing).contains("src/b.rs") && text_of(&missing).contains("list_files"));
    let dir = bridge.call_tool("read_file", json!({"path": "src"})).unwrap();
    assert_eq!(code(&dir), "INVALID_ARGS");
    assert!(text_of(&dir).contains("directory"), "{}", text_of(&dir));
    for binary in ["image.png", "latin1.txt"] {
        let result = bridge.call_tool("read_file", json!({"path": binary})).unwrap();
        assert_eq!(code(&result), "BINARY_FILE", "{binary}");
        let text = text_of(&result);
        assert!(text.contains(binary) && !text.contains('\u{fffd}') && !text.contains("PNG"), "{text}");
    }
}

#[test]
fn files_over_the_size_limit_are_file_too_large_both_ways() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    fs::write(ws.join("limit.txt"), "x".repeat(1000)).unwrap();
    fs::write(ws.join("over.txt"), "x".repeat(1001)).unwrap();
    let host = env.host(&ws, &["--max-file-size", "1000"]);
    let mut bridge = env.bridge(&ws, &[]);
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "limit.txt"})).unwrap()).len(), 1000);
    let over = bridge.call_tool("read_file", json!({"path": "over.txt"})).unwrap();
    assert_eq!(code(&over), "FILE_TOO_LARGE");
    let text = text_of(&over);
    assert!(text.contains("1001") && text.contains("1000") && text.contains("max-file-size"), "{text}");
    let write = bridge.call_tool("write_file", json!({"path": "big.txt", "content": "y".repeat(1001)})).unwrap();
    assert_eq!(code(&write), "FILE_TOO_LARGE");
    assert!(!ws.join("big.txt").exists());
    rt().block_on(async {
        let mut raw = ws_authorized(&host).await;
        let response = ws_call(&mut raw, 1, "fs/read", json!({"path": "over.txt"})).await;
        assert_eq!(wire_code(&response), -32002, "-32002 File Too Large");
    });
}

/// With the host's limits raised past what a bridge accepts in one message (64 MiB), a larger
/// file is FILE_TOO_LARGE before it is read (it was read whole, encoded, sent, and the bridge
/// dropped the connection: "the connection was lost", and twice its size in the host's memory).
#[test]
fn a_file_too_large_for_one_message_is_file_too_large_not_a_lost_connection() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    fs::File::create(ws.join("huge.txt")).unwrap().set_len(70 * 1024 * 1024).unwrap();
    let _host = env.host(&ws, &["--max-file-size", "2000000000", "--max-message-bytes", "2000000000"]);
    let mut bridge = env.bridge(&ws, &[]);
    let read = bridge.call_tool("read_file", json!({"path": "huge.txt"})).unwrap();
    assert_eq!(code(&read), "FILE_TOO_LARGE", "{read}");
    assert!(text_of(&read).contains("one message"), "{read}");
    // The connection is still there.
    let listed = bridge.call_tool("list_files", json!({})).unwrap();
    assert!(!is_error(&listed), "{listed}");
}

#[test]
fn write_file_is_atomic_creates_parents_and_is_logged() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("old.txt", "old")]);
    mcp_tests::os::set_mode(ws.join("old.txt"), 0o640).unwrap();
    let host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let created = bridge.call_tool("write_file", json!({"path": "new/deep/file.txt", "content": "héllo\n"})).unwrap();
    assert!(!is_error(&created), "{created}");
    assert_eq!(structured(&created).unwrap(), json!({"path": "new/deep/file.txt", "bytes": 7, "created": true}));
    assert_eq!(fs::read_to_string(ws.join("new/deep/file.txt")).unwrap(), "héllo\n");
    let line = host.wait_for_line("new/deep/file.txt");
    assert!(line.contains("7 bytes"), "{line}");

    let replaced = bridge.call_tool("write_file", json!({"path": "old.txt", "content": "new"})).unwrap();
    assert_eq!(structured(&replaced).unwrap()["created"], false);
    assert_eq!(fs::read_to_string(ws.join("old.txt")).unwrap(), "new");
    let mode = mcp_tests::os::mode(ws.join("old.txt")).unwrap();
    assert_eq!(mode, if cfg!(unix) { 0o640 } else { 0o644 }, "permissions kept");
    host.wait_for_line("old.txt");
    let leftovers: Vec<_> = fs::read_dir(&ws)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let into_dir = bridge.call_tool("write_file", json!({"path": "new", "content": "x"})).unwrap();
    assert_eq!(code(&into_dir), "INVALID_ARGS");
    assert!(ws.join("new").is_dir());
    let git = bridge.call_tool("write_file", json!({"path": ".git/hooks/pre-commit", "content": "rm -rf /"})).unwrap();
    assert!(is_error(&git));
    assert!(!ws.join(".git").exists());
}

#[test]
fn replacing_a_file_says_what_changed_and_the_host_logs_only_the_counts() {
    let env = Env::new();
    let old: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    let ws = env.workspace("ws", &[("notes.md", &old)]);
    let host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let new = old.replace("line 10\n", "line ten\n").replace("line 20\n", "") + "SECRET-TAIL\n";
    let replaced = bridge.call_tool("write_file", json!({"path": "notes.md", "content": new})).unwrap();
    assert!(!is_error(&replaced), "{replaced}");
    let out = structured(&replaced).unwrap();
    assert_eq!(out["created"], false);
    assert_eq!((out["lines_added"].as_u64(), out["lines_removed"].as_u64()), (Some(2), Some(2)), "{out}");
    assert_eq!(out["diff_truncated"], false);
    let diff = out["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- a/notes.md\n+++ b/notes.md\n@@ "), "{diff}");
    assert!(
        diff.contains("\n-line 10\n+line ten\n") && diff.contains("\n-line 20\n") && diff.contains("\n+SECRET-TAIL\n")
    );
    let text = mcp_tests::text_of(&replaced);
    assert!(text.starts_with("Replaced notes.md (") && text.contains("+2 -2 lines") && text.contains(diff), "{text}");
    // the host logs the counts, never the content
    let line = host.wait_for_line("notes.md");
    assert!(line.contains("+2 -2 lines"), "{line}");
    assert!(!host.stderr().contains("SECRET-TAIL"), "{}", host.stderr());

    // a large rewrite: the diff is cut at 8 KiB, with the note, and the counts cover all of it
    let big_old: String = (0..2000).map(|i| format!("old {i}\n")).collect();
    let big_new: String = (0..2000).map(|i| format!("new {i}\n")).collect();
    fs::write(ws.join("big.txt"), &big_old).unwrap();
    let host_big = bridge.call_tool("write_file", json!({"path": "big.txt", "content": big_new})).unwrap();
    let out = structured(&host_big).unwrap();
    // the host's default size limit (100 KB) keeps the old text: 2000 lines each way
    assert_eq!((out["lines_added"].as_u64(), out["lines_removed"].as_u64()), (Some(2000), Some(2000)), "{out}");
    assert_eq!(out["diff_truncated"], true);
    let diff = out["diff"].as_str().unwrap();
    assert!(diff.len() <= 8 * 1024 + 200 && diff.contains("diff cut at 8192 bytes"), "{}", diff.len());

    // a new file says nothing more than before
    let created = bridge.call_tool("write_file", json!({"path": "fresh.md", "content": "x\n"})).unwrap();
    assert_eq!(structured(&created).unwrap(), json!({"path": "fresh.md", "bytes": 2, "created": true}));
}

#[test]
fn a_read_only_host_refuses_writes_and_tools_list_says_so() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "keep")]);
    let host = env.host(&ws, &["--read-only"]);
    let mut bridge = env.bridge(&ws, &[]);
    let tools = bridge.list_tools().unwrap();
    let write = tools.iter().find(|t| t["name"] == "write_file").unwrap();
    assert!(write["description"].as_str().unwrap().contains("READ-ONLY"), "{write}");
    for path in ["a.txt", "b.txt"] {
        let result = bridge.call_tool("write_file", json!({"path": path, "content": "changed"})).unwrap();
        assert_eq!(code(&result), "READ_ONLY", "{result}");
        assert!(text_of(&result).contains("read-only") && text_of(&result).contains("Do not retry"));
    }
    assert_eq!(fs::read_to_string(ws.join("a.txt")).unwrap(), "keep");
    assert!(!ws.join("b.txt").exists());
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "keep");
    rt().block_on(async {
        let mut raw = ws_authorized(&host).await;
        let response = ws_call(&mut raw, 1, "fs/write", json!({"path": "a.txt", "content": "x"})).await;
        assert_eq!(wire_code(&response), -32004, "-32004 Read-Only Mode Violation");
        let info = ws_call(&mut raw, 2, "host/info", json!({})).await;
        assert_eq!(info["result"]["readOnly"], true);
    });

    let writable = env.workspace("writable", &[]);
    let _other = env.host(&writable, &[]);
    let mut bridge = env.bridge(&writable, &[]);
    let tools = bridge.list_tools().unwrap();
    let write = tools.iter().find(|t| t["name"] == "write_file").unwrap();
    assert!(!write["description"].as_str().unwrap().contains("READ-ONLY"));
}

#[test]
fn a_host_killed_mid_write_leaves_the_old_or_the_new_content_never_a_mix() {
    let env = Env::new();
    let a = "a".repeat(90_000);
    let b = "b".repeat(60_000);
    let ws = env.workspace("ws", &[("data.txt", &a)]);
    let mut host = env.host(&ws, &["--max-file-size", "200000"]);
    rt().block_on(async {
        let mut raw = ws_authorized(&host).await;
        for i in 0..200u64 {
            let content = if i % 2 == 0 { &b } else { &a };
            let request = json!({"jsonrpc": "2.0", "id": i, "method": "fs/write", "params": {"path": "data.txt", "content": content}});
            super::ws_send(&mut raw, &request).await;
        }
        // Some writes are done, others queued or in progress: now the host dies.
        for _ in 0..3 {
            let answer = super::ws_recv(&mut raw).await;
            assert!(answer.get("result").is_some(), "{answer}");
        }
        host.kill9();
    });
    let content = fs::read_to_string(ws.join("data.txt")).unwrap();
    assert!(content == a || content == b, "a torn file of {} bytes", content.len());
    let _restarted = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let listed = structured(&bridge.call_tool("list_files", json!({"recursive": true})).unwrap()).unwrap();
    assert_eq!(listed["files"], json!(["data.txt"]), "no temporary file is listed");
}

#[test]
fn a_trailing_slash_names_a_directory_and_never_writes_the_file() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("normal.txt", "keep")]);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    for (tool, args) in [
        ("write_file", json!({"path": "normal.txt/", "content": "pwned"})),
        ("write_file", json!({"path": "new-dir/", "content": "x"})),
        ("read_file", json!({"path": "normal.txt/"})),
    ] {
        let result = bridge.call_tool(tool, args.clone()).unwrap();
        assert!(is_error(&result), "{tool} {args}: {result}");
        assert!(text_of(&result).contains("trailing `/`"), "{tool} {args}: {}", text_of(&result));
    }
    assert_eq!(fs::read_to_string(ws.join("normal.txt")).unwrap(), "keep");
    assert!(!ws.join("new-dir").exists());
}
