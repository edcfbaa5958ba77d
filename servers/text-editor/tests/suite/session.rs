//! A whole session through the real binary, as a coding agent would drive it, and a server
//! killed in the middle of writing.

use serde_json::json;

use super::{Server, spawn_on};

#[test]
fn an_agent_session() {
    let mut s = Server::start();
    s.write("README.md", "# demo\n");
    s.write(".gitignore", "build/\n");
    s.write("build/out.o", "junk");

    let listing = s.view("");
    assert!(listing.contains("/README.md\n") && !listing.contains("build"), "{listing}");

    let main = s.path("src/main.py");
    s.ok(json!({"command": "create", "path": main, "file_text": "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n"}));
    let text = s.ok(json!({"command": "view", "path": main, "view_range": [1, 2]}));
    assert!(text.ends_with("     1\tdef main():\n     2\t    print('hello')\n"), "{text}");

    s.ok(json!({"command": "str_replace", "path": main, "old_str": "    print('hello')", "new_str": "    name = 'world'\n    print(f'hello {name}')"}));
    // whole lines: the trailing newline ends `import sys`; the second one is the empty line
    s.ok(json!({"command": "insert", "path": main, "insert_line": 0, "new_str": "import sys\n\n"}));
    assert_eq!(
        s.read_string("src/main.py"),
        "import sys\n\ndef main():\n    name = 'world'\n    print(f'hello {name}')\n\n\nif __name__ == '__main__':\n    main()\n"
    );
    // a mistake, and its undo
    s.ok(json!({"command": "str_replace", "path": main, "old_str": "import sys\n\n", "new_str": ""}));
    s.ok(json!({"command": "undo_edit", "path": main}));
    assert!(s.read_string("src/main.py").starts_with("import sys\n\ndef main"));
    // a bad call in the middle changes nothing and the session goes on
    s.err(json!({"command": "str_replace", "path": main, "old_str": "def nope", "new_str": "x"}), "NO_MATCH");
    let text = s.view("src/main.py");
    assert!(text.contains("     1\timport sys\n"));
    let status = s.client.wait().unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn a_server_killed_mid_write_leaves_the_old_or_the_new_file_never_a_torn_one() {
    use std::os::unix::fs::MetadataExt as _;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let line = "0123456789abcdefghijklmnopqrstuvwxyz\n";
    let old: String = format!("UNIQUE MARKER\n{}", line.repeat(600_000));
    let new = old.replacen("UNIQUE MARKER", "REPLACED!!", 1);
    let temp_exists = |root: &std::path::Path| {
        std::fs::read_dir(root).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().contains(".mcp-tmp-"))
    };
    let mut caught_mid_write = 0;
    for attempt in 0..10 {
        std::fs::write(root.join("big.txt"), &old).unwrap();
        for e in std::fs::read_dir(&root).unwrap() {
            let e = e.unwrap();
            if e.file_name().to_string_lossy().contains(".mcp-tmp-") {
                std::fs::remove_file(e.path()).unwrap();
            }
        }
        let inode = std::fs::metadata(root.join("big.txt")).unwrap().ino();
        let mut client = spawn_on(&root, &[]);
        let path = root.join("big.txt").display().to_string();
        let args = json!({"name": "text_editor", "arguments": {"command": "str_replace", "path": path, "old_str": "UNIQUE MARKER", "new_str": "REPLACED!!"}});
        client.send_request("tools/call", args).unwrap();
        // Kill -9 while the temporary file is being written (or, if that window was missed,
        // as soon as the rename is seen).
        loop {
            if temp_exists(&root) {
                caught_mid_write += 1;
                break;
            }
            if std::fs::metadata(root.join("big.txt")).unwrap().ino() != inode {
                break;
            }
            // (a response means the call is over: it must have succeeded)
            if let Some(response) = client.try_read_message(std::time::Duration::ZERO).unwrap() {
                assert!(!mcp_tests::is_error(&response["result"]), "{response}");
                break;
            }
            std::thread::yield_now();
        }
        client.kill().unwrap();
        let after = std::fs::read_to_string(root.join("big.txt")).unwrap();
        assert!(after == old || after == new, "torn file after kill -9 (attempt {attempt})");
        if caught_mid_write >= 3 {
            break;
        }
    }
    assert!(caught_mid_write > 0, "the kill never landed during a write");
    // a leftover temporary file is never listed, and the file is still readable
    let mut client = spawn_on(&root, &[]);
    let listing = client.call_tool("text_editor", json!({"command": "view", "path": root})).unwrap();
    assert!(!mcp_tests::text_of(&listing).contains("mcp-tmp"), "{listing}");
    let path = root.join("big.txt").display().to_string();
    let r = client.call_tool("text_editor", json!({"command": "view", "path": path, "view_range": [1, 1]})).unwrap();
    assert!(!mcp_tests::is_error(&r), "{r}");
}
