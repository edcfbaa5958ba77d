//! The text editor at scale, through the binary: `edit_file` (several edits, all or nothing, one
//! undo step, a dry run), `read_files`, `list_tree`, the tail of a large file (`view_range`
//! counted from the end), and `--read-only`.

use mcp_tests::{error_code, is_error, text_of};
use serde_json::json;

use super::{TOOL, spawn_on};

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        b"pub fn a() -> u32 {\r\n    1\r\n}\r\n\r\npub fn b() -> u32 {\r\n    2\r\n}\r\n",
    )
    .unwrap();
    std::fs::write(root.join("src/deep/x.txt"), "x\n").unwrap();
    std::fs::write(root.join("README.md"), "# Project\n").unwrap();
    (dir, root)
}

#[test]
fn edit_file_applies_several_edits_in_one_write_or_none() {
    let (_dir, root) = project();
    let lib = root.join("src/lib.rs");
    let before = std::fs::read(&lib).unwrap();
    let mut c = spawn_on(&root, &[]);
    let edits = json!([
        {"old_str": "pub fn a() -> u32 {\n    1\n}", "new_str": "pub fn a() -> u64 {\n    10\n}"},
        {"old_str": "    2", "new_str": "    20"},
        {"old_str": "not in the file", "new_str": "x"},
    ]);
    // A failing edit in the middle: its index, and nothing written.
    let failed = c.call_tool("edit_file", json!({"path": "src/lib.rs", "edits": edits})).unwrap();
    assert_eq!(error_code(&failed).as_deref(), Some("NO_MATCH"), "{failed}");
    assert!(text_of(&failed).starts_with("edits[2] (edit 3 of 3) failed"), "{failed}");
    assert_eq!(std::fs::read(&lib).unwrap(), before);

    let two = json!([edits[0], edits[1]]);
    let dry = c.call_tool("edit_file", json!({"path": "src/lib.rs", "edits": two, "dry_run": true})).unwrap();
    assert!(text_of(&dry).starts_with("Dry run: nothing was written."), "{dry}");
    assert!(text_of(&dry).contains("+    10"), "{dry}");
    assert_eq!(std::fs::read(&lib).unwrap(), before);

    let done = c.call_tool("edit_file", json!({"path": "src/lib.rs", "edits": two})).unwrap();
    assert!(!is_error(&done), "{done}");
    assert!(text_of(&done).contains("2 edits in one write"), "{done}");
    assert_eq!(
        std::fs::read(&lib).unwrap(),
        b"pub fn a() -> u64 {\r\n    10\r\n}\r\n\r\npub fn b() -> u32 {\r\n    20\r\n}\r\n",
        "CRLF kept"
    );
    // One undo step brings back the file as it was before both.
    let undone = c.call_tool(TOOL, json!({"command": "undo_edit", "path": lib})).unwrap();
    assert!(!is_error(&undone), "{undone}");
    assert_eq!(std::fs::read(&lib).unwrap(), before);
}

#[test]
fn read_files_shows_each_file_or_its_own_error_and_list_tree_the_tree() {
    let (_dir, root) = project();
    let mut c = spawn_on(&root, &[]);
    let out =
        text_of(&c.call_tool("read_files", json!({"paths": ["README.md", "missing.txt", "src/deep/x.txt"]})).unwrap());
    let readme = "Here's the result of running `cat -n` on README.md:\n     1\t# Project\n";
    assert!(out.starts_with(readme), "{out}");
    assert!(out.contains("Error reading missing.txt (NOT_FOUND)"), "{out}");
    assert!(out.contains("     1\tx\n"), "the file after the error is read: {out}");
    let tail = text_of(&c.call_tool("read_files", json!({"paths": ["src/lib.rs"], "view_range": [-2, -1]})).unwrap());
    assert!(tail.contains("     6\t    2\n     7\t}\n"), "{tail}");

    let tree = text_of(&c.call_tool("list_tree", json!({})).unwrap());
    assert_eq!(tree, format!("{}/\n  README.md (10 B)\n  src/\n    deep/\n    lib.rs (64 B)\n", root.display()));
    let cut = text_of(&c.call_tool("list_tree", json!({"depth": 3, "limit": 2})).unwrap());
    assert!(cut.contains("[3 more entries not shown (the first 2 listed)"), "{cut}");
}

/// The last lines of a large file, counted from the end, with exact line numbers; the same
/// answer as the range in line numbers.
#[test]
fn the_tail_of_a_large_log_has_exact_line_numbers() {
    let (_dir, root) = project();
    let log = root.join("app.log");
    let text: String = (1..=300_000).map(|i| format!("line {i} of the log\n")).collect();
    std::fs::write(&log, &text).unwrap();
    let mut c = spawn_on(&root, &["--max-file-size", "1000"]);
    let tail = text_of(&c.call_tool(TOOL, json!({"command": "view", "path": log, "view_range": [-3, -1]})).unwrap());
    let same =
        text_of(&c.call_tool(TOOL, json!({"command": "view", "path": log, "view_range": [299_998, -1]})).unwrap());
    assert_eq!(tail, same);
    assert!(
        tail.ends_with(
            "299998\tline 299998 of the log\n299999\tline 299999 of the log\n300000\tline 300000 of the log\n300001\t\n"
        ),
        "{tail}"
    );
    // Appended to: the count follows.
    std::fs::write(&log, format!("{text}one more\n")).unwrap();
    let tail = text_of(&c.call_tool(TOOL, json!({"command": "view", "path": log, "view_range": [-1, -1]})).unwrap());
    assert!(tail.ends_with("300001\tone more\n300002\t\n"), "{tail}");
    let refused = c.call_tool(TOOL, json!({"command": "view", "path": log, "view_range": [-400000, -1]})).unwrap();
    assert_eq!(error_code(&refused).as_deref(), Some("INVALID_ARGS"), "{refused}");
    let refused = c.call_tool(TOOL, json!({"command": "view", "path": log, "view_range": [-2, 400000]})).unwrap();
    assert!(
        text_of(&refused)
            .contains("Its second element `400000` should be smaller than the number of lines in the file: `300002`"),
        "{refused}"
    );
}

#[test]
fn read_only_lists_only_tools_that_change_nothing_and_refuses_writes() {
    let (_dir, root) = project();
    let mut c = spawn_on(&root, &["--read-only"]);
    let tools = c.list_tools().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["text_editor", "search_text", "find_files", "read_files", "list_tree", "list_changes"]);
    assert!(tools.iter().all(|t| t["annotations"]["readOnlyHint"] == true), "{tools:?}");
    let view = c.call_tool(TOOL, json!({"command": "view", "path": "README.md"})).unwrap();
    assert!(!is_error(&view), "{view}");
    for args in [
        json!({"command": "create", "path": "new.txt", "file_text": "x"}),
        json!({"command": "str_replace", "path": "README.md", "old_str": "Project", "new_str": "P"}),
        json!({"command": "insert", "path": "README.md", "insert_line": 0, "new_str": "x"}),
        json!({"command": "undo_edit", "path": "README.md"}),
    ] {
        let refused = c.call_tool(TOOL, args.clone()).unwrap();
        assert_eq!(error_code(&refused).as_deref(), Some("READ_ONLY"), "{args}: {refused}");
        assert!(text_of(&refused).contains("read-only"), "{refused}");
    }
    assert!(!root.join("new.txt").exists());
    assert_eq!(std::fs::read_to_string(root.join("README.md")).unwrap(), "# Project\n");
    let gone = c.call_tool("edit_file", json!({"path": "README.md", "edits": []}));
    assert!(gone.is_err(), "edit_file is not offered: {gone:?}");
}
