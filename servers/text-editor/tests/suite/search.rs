//! `search_text` and `find_files` through the binary: `.gitignore` honoured (outside a git
//! repository too), hidden and binary files skipped, files in other encodings searched as text,
//! symlinks out of the root never followed, limits, and `--tools`.

use mcp_tests::os::symlink;

use mcp_tests::{is_error, text_of};
use serde_json::json;

use super::spawn_on;

/// A tree with everything a search must handle, and a secret beside it.
fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("proj");
    for d in ["src/deep", "target", ".git-like", "outside"] {
        std::fs::create_dir_all(if d == "outside" { base.join(d) } else { root.join(d) }).unwrap();
    }
    std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    let needle = 1;\n}\n").unwrap();
    std::fs::write(root.join("src/deep/lib.rs"), "// needle in lib\npub fn f() {}\n").unwrap();
    std::fs::write(root.join("src/latin1.txt"), b"caf\xe9 needle\n").unwrap();
    std::fs::write(root.join("src/utf16.txt"), b"\xff\xfen\x00e\x00e\x00d\x00l\x00e\x00\n\x00").unwrap();
    std::fs::write(root.join("src/image.bin"), b"needle\x00\x01\x02").unwrap();
    std::fs::write(root.join("target/built.rs"), "needle in build output\n").unwrap();
    std::fs::write(root.join("debug.log"), "needle in a log\n").unwrap();
    std::fs::write(root.join(".hidden.rs"), "needle hidden\n").unwrap();
    std::fs::write(base.join("outside/secret.rs"), "needle SECRET\n").unwrap();
    symlink(base.join("outside"), root.join("link_out")).unwrap();
    symlink(base.join("outside/secret.rs"), root.join("secret_link.rs")).unwrap();
    (dir, root)
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn search_text_finds_what_ripgrep_finds_and_nothing_outside() {
    let (_dir, root) = tree();
    let mut c = spawn_on(&root, &[]);
    let out = text_of(&c.call_tool("search_text", json!({"pattern": "needle"})).unwrap());
    let p = |rel: &str| root.join(rel).display().to_string();
    assert_eq!(
        out,
        format!(
            "{}:1:// needle in lib\n{}:1:café needle\n{}:2:    let needle = 1;\n{}:1:needle\n",
            p("src/deep/lib.rs"),
            p("src/latin1.txt"),
            p("src/main.rs"),
            p("src/utf16.txt")
        )
    );
    assert!(
        !out.contains("SECRET") && !out.contains("build output") && !out.contains("log") && !out.contains("hidden")
    );
    // In the file's own encoding: `café` finds the Latin-1 bytes.
    let out = text_of(&c.call_tool("search_text", json!({"pattern": "café", "literal": true})).unwrap());
    assert_eq!(out, format!("{}:1:café needle\n", p("src/latin1.txt")));
    // glob, path, ignore_case, context
    let out = text_of(
        &c.call_tool("search_text", json!({"pattern": "NEEDLE", "ignore_case": true, "glob": "*.rs"})).unwrap(),
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    let out =
        text_of(&c.call_tool("search_text", json!({"pattern": "needle", "path": "src/deep", "context": 1})).unwrap());
    assert_eq!(
        out,
        format!("{}:1:// needle in lib\n{}-2-pub fn f() {{}}\n", p("src/deep/lib.rs"), p("src/deep/lib.rs"))
    );
    // A symlink out of the root, named directly, is refused.
    let refused = c.call_tool("search_text", json!({"pattern": "needle", "path": "link_out"})).unwrap();
    assert!(is_error(&refused), "{refused}");
    assert!(!text_of(&refused).contains("SECRET"));
    let out = text_of(&c.call_tool("search_text", json!({"pattern": "nowhere-to-be-found"})).unwrap());
    assert!(out.starts_with("No matches for \"nowhere-to-be-found\""), "{out}");
    let bad = c.call_tool("search_text", json!({"pattern": "fn("})).unwrap();
    assert!(is_error(&bad) && text_of(&bad).contains("literal: true"), "{bad}");
}

#[test]
fn search_text_caps_its_output_and_says_how_much_more_there_is() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..30 {
        std::fs::write(root.join(format!("f{i:02}.txt")), "hit\nhit\n").unwrap();
    }
    let mut c = spawn_on(&root, &[]);
    let out = text_of(&c.call_tool("search_text", json!({"pattern": "hit", "limit": 5})).unwrap());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert!(lines[0].ends_with("f00.txt:1:hit") && lines[4].ends_with("f02.txt:1:hit"), "{out}");
    assert!(
        lines[5].starts_with("[55 more matches in 28 files not shown: 60 matching lines in 30 files in all"),
        "{out}"
    );
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn find_files_lists_newest_first_and_skips_what_search_skips() {
    let (_dir, root) = tree();
    let old = std::fs::File::options().write(true).open(root.join("src/main.rs")).unwrap();
    old.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(86_400)).unwrap();
    let mut c = spawn_on(&root, &[]);
    let out = text_of(&c.call_tool("find_files", json!({"pattern": "**/*.rs"})).unwrap());
    assert_eq!(out, format!("{}\n{}\n", root.join("src/deep/lib.rs").display(), root.join("src/main.rs").display()));
    let out = text_of(&c.call_tool("find_files", json!({"pattern": "*.txt", "path": "src"})).unwrap());
    assert_eq!(out.lines().count(), 2, "{out}");
    let out = text_of(&c.call_tool("find_files", json!({"pattern": "*.rs", "limit": 1})).unwrap());
    assert!(out.contains("[1 more files match, not shown (2 in all"), "{out}");
    let none = text_of(&c.call_tool("find_files", json!({"pattern": "*.py"})).unwrap());
    assert!(none.starts_with("No files match"), "{none}");
    let refused = c.call_tool("find_files", json!({"pattern": "*", "path": "link_out"})).unwrap();
    assert!(is_error(&refused), "{refused}");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn tools_chooses_what_is_offered_and_text_editor_alone_is_the_strict_drop_in() {
    let (_dir, root) = tree();
    let mut c = spawn_on(&root, &["--tools", "text_editor"]);
    let names: Vec<String> = c.list_tools().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["text_editor"]);
    let mut c = spawn_on(&root, &["--tools", "find_files,search_text"]);
    let names: Vec<String> = c.list_tools().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["search_text", "find_files"]);
    let mut c = spawn_on(&root, &[]);
    let tools = c.list_tools().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "text_editor",
            "search_text",
            "find_files",
            "move_file",
            "delete_file",
            "edit_file",
            "read_files",
            "list_tree",
            "list_changes",
            "revert_changes",
        ],
        "the default: every tool"
    );
    for tool in [&tools[1], &tools[2], &tools[6], &tools[7]] {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    }
    for tool in &tools[3..6] {
        assert_eq!(tool["annotations"]["destructiveHint"], true, "{tool}");
    }
    let bad = std::process::Command::new(super::BIN).args(["--tools", "grep"]).output().unwrap();
    assert!(!bad.status.success());
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(said.contains("invalid value 'grep' for '--tools <LIST>'") && said.contains("search_text"), "{said}");
}

/// A tree 1,900 levels deep, made through the tool itself: `find_files` and `search_text` find
/// its leaf, and the server lives on (the walker recursed per level and died of SIGSEGV).
#[test]
#[cfg_attr(windows, ignore = "a path of 3,800 characters is beyond Windows' MAX_PATH")]
fn a_tree_thousands_of_levels_deep_is_searched_without_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut c = spawn_on(&root, &[]);
    let deep = format!("{}leaf.txt", "d/".repeat(1900));
    let made = c.call_tool(super::TOOL, json!({"command": "create", "path": deep, "file_text": "needle\n"})).unwrap();
    assert!(!is_error(&made), "{made}");
    let found = text_of(&c.call_tool("find_files", json!({"pattern": "leaf.txt"})).unwrap());
    assert_eq!(found, format!("{}\n", root.join(&deep).display()));
    let out = text_of(&c.call_tool("search_text", json!({"pattern": "needle"})).unwrap());
    assert_eq!(out, format!("{}:1:needle\n", root.join(&deep).display()));
    assert!(!is_error(&c.call_tool("find_files", json!({"pattern": "*.txt"})).unwrap()), "still serving");
}

/// One bound for a whole search: 32 files of 42 KB under a 1 KB-long directory path, every line
/// a match, 10 lines of context, limit 1000: the reply stays within `--max-output-chars` and says
/// what it left out (it was 21 MB, after 1.33 GB of peak memory).
#[test]
fn a_search_reply_stays_within_max_output_chars() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let long = root.join(format!("{}/{}/{}/{}", "a".repeat(250), "b".repeat(250), "c".repeat(250), "d".repeat(250)));
    std::fs::create_dir_all(&long).unwrap();
    let text: String = (0..1400).map(|i| format!("M {i:026}\n")).collect();
    for i in 0..32 {
        std::fs::write(long.join(format!("f{i:02}.txt")), &text).unwrap();
    }
    let mut c = spawn_on(&root, &["--max-output-chars", "20000"]);
    let out = text_of(&c.call_tool("search_text", json!({"pattern": "M", "limit": 1000, "context": 10})).unwrap());
    let (shown, note) = out.rsplit_once("\n[").unwrap();
    assert!(shown.chars().count() <= 20_000, "{} characters shown", shown.chars().count());
    assert!(note.contains("44800 matching lines in 32 files in all"), "{note}");
    assert!(note.contains("its bound of 20000 characters (--max-output-chars)"), "{note}");
    assert!(shown.starts_with(&format!("{}:1:M {:026}\n", long.join("f00.txt").display(), 0)));
}

/// A FIFO is not a file: `find_files` leaves it out (and searching never opens it).
#[test]
#[cfg(unix)]
fn fifos_are_not_listed_as_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "needle\n").unwrap();
    let made = std::process::Command::new("mkfifo").arg(root.join("pipe.txt")).status().unwrap();
    assert!(made.success());
    let mut c = spawn_on(&root, &[]);
    let found = text_of(&c.call_tool("find_files", json!({"pattern": "*.txt"})).unwrap());
    assert_eq!(found, format!("{}\n", root.join("a.txt").display()));
    let out = text_of(&c.call_tool("search_text", json!({"pattern": "needle"})).unwrap());
    assert_eq!(out, format!("{}:1:needle\n", root.join("a.txt").display()));
}
