//! Every error the issue names: its exact text (the reference's where it has one), its code,
//! and that nothing changed on disk.

use serde_json::json;

use super::Server;

#[test]
fn path_errors() {
    let mut s = Server::start();
    s.write("dir/f.txt", "x\n");
    let missing = s.path("missing.txt");
    for command in ["view", "str_replace", "insert", "undo_edit"] {
        let args = json!({"command": command, "path": missing, "old_str": "a", "new_str": "b", "insert_line": 0});
        assert_eq!(
            s.err(args, "NOT_FOUND"),
            format!("The path {missing} does not exist. Please provide a valid path.")
        );
    }
    let dir = s.path("dir");
    for command in ["str_replace", "insert", "undo_edit"] {
        let args = json!({"command": command, "path": dir, "old_str": "a", "new_str": "b", "insert_line": 0});
        assert_eq!(
            s.err(args, "INVALID_ARGS"),
            format!("The path {dir} is a directory and only the `view` command can be used on directories")
        );
    }
    let file = s.path("dir/f.txt");
    assert_eq!(
        s.err(json!({"command": "create", "path": file, "file_text": "y"}), "ALREADY_EXISTS"),
        format!("File already exists at: {file}. Cannot overwrite files using command `create`.")
    );
    assert_eq!(
        s.err(json!({"command": "create", "path": dir, "file_text": "y"}), "ALREADY_EXISTS"),
        format!("File already exists at: {dir}. Cannot overwrite files using command `create`.")
    );
    assert_eq!(s.read("dir/f.txt"), b"x\n");
    // a path through a file
    let through = s.path("dir/f.txt/inner");
    assert_eq!(
        s.err(json!({"command": "view", "path": through}), "NOT_FOUND"),
        format!("The path {through} does not exist. Please provide a valid path.")
    );
    let msg = s.err(json!({"command": "create", "path": through, "file_text": "y"}), "INVALID_ARGS");
    assert!(msg.contains("parent"), "{msg}");
}

#[test]
fn missing_parameters() {
    let mut s = Server::start();
    s.write("f.txt", "x\n");
    let path = s.path("f.txt");
    let new = s.path("new.txt");
    for (args, name, command) in [
        (json!({"command": "create", "path": new}), "file_text", "create"),
        (json!({"command": "str_replace", "path": path}), "old_str", "str_replace"),
        (json!({"command": "insert", "path": path, "new_str": "y"}), "insert_line", "insert"),
        (json!({"command": "insert", "path": path, "insert_line": 1}), "new_str", "insert"),
    ] {
        assert_eq!(s.err(args, "INVALID_ARGS"), format!("Parameter `{name}` is required for command: {command}"));
    }
    assert!(!s.root.join("new.txt").exists());
    assert_eq!(s.read("f.txt"), b"x\n");
}

#[test]
fn str_replace_errors() {
    let mut s = Server::start();
    let content = "fn a() {}\nfn b() {}\nlet x = a();\nfn c() {\n    a();\n}\n";
    s.write("f.rs", content);
    let path = s.path("f.rs");
    assert_eq!(
        s.err(json!({"command": "str_replace", "path": path, "old_str": "a()", "new_str": "z()"}), "MULTIPLE_MATCHES"),
        "No replacement was performed. Multiple occurrences of old_str `a()` in lines [1, 3, 5]. Please ensure it is unique"
    );
    // a multi-line old_str: the line where each occurrence starts
    s.write("g.txt", "x\ny\nz\nx\ny\n");
    let g = s.path("g.txt");
    assert_eq!(
        s.err(json!({"command": "str_replace", "path": g, "old_str": "x\ny", "new_str": "q"}), "MULTIPLE_MATCHES"),
        "No replacement was performed. Multiple occurrences of old_str `x\ny` in lines [1, 4]. Please ensure it is unique"
    );
    let msg = s.err(json!({"command": "str_replace", "path": path, "old_str": "fn d() {}", "new_str": ""}), "NO_MATCH");
    assert!(
        msg.starts_with(&format!(
            "No replacement was performed, old_str `fn d() {{}}` did not appear verbatim in {path}."
        )),
        "{msg}"
    );
    // the most similar region is named by its lines
    let msg = s.err(
        json!({"command": "str_replace", "path": path, "old_str": "fn c() {\n    b();\n}", "new_str": ""}),
        "NO_MATCH",
    );
    assert!(msg.contains("lines 4-6") && msg.contains("view_range"), "{msg}");
    let msg = s.err(json!({"command": "str_replace", "path": path, "old_str": "", "new_str": "x"}), "INVALID_ARGS");
    assert!(msg.contains("must not be empty"), "{msg}");
    assert_eq!(s.read_string("f.rs"), content);
    assert_eq!(s.read_string("g.txt"), "x\ny\nz\nx\ny\n");
}

#[test]
fn insert_line_errors() {
    let mut s = Server::start();
    s.write("f.txt", "a\nb\n");
    let path = s.path("f.txt");
    for (line, shown) in [(json!(4), "4"), (json!(-1), "-1"), (json!(1.5), "1.5"), (json!("2"), "\"2\"")] {
        assert_eq!(
            s.err(json!({"command": "insert", "path": path, "insert_line": line, "new_str": "x"}), "INVALID_ARGS"),
            format!(
                "Invalid `insert_line` parameter: {shown}. It should be within the range of lines of the file: [0, 3]"
            )
        );
    }
    assert_eq!(s.read("f.txt"), b"a\nb\n");
}

#[test]
fn view_range_errors() {
    let mut s = Server::start();
    s.write("f.txt", "1\n2\n3\n4");
    let path = s.path("f.txt");
    let view = |s: &mut Server, range: serde_json::Value| {
        s.err(json!({"command": "view", "path": path, "view_range": range}), "INVALID_ARGS")
    };
    assert_eq!(
        view(&mut s, json!([0, 2])),
        "Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 4]"
    );
    assert_eq!(
        view(&mut s, json!([5, -1])),
        "Invalid `view_range`: [5, -1]. Its first element `5` should be within the range of lines of the file: [1, 4]"
    );
    assert_eq!(
        view(&mut s, json!([1, 5])),
        "Invalid `view_range`: [1, 5]. Its second element `5` should be smaller than the number of lines in the file: `4`"
    );
    assert_eq!(
        view(&mut s, json!([3, 2])),
        "Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than its first `3`"
    );
    for bad in [json!([1]), json!([1, 2, 3]), json!(["1", "2"]), json!("1:2")] {
        assert_eq!(view(&mut s, bad), "Invalid `view_range`. It should be a list of two integers.");
    }
    let dir = s.path("");
    assert_eq!(
        s.err(json!({"command": "view", "path": dir, "view_range": [1, 2]}), "INVALID_ARGS"),
        "The `view_range` parameter is not allowed when `path` points to a directory."
    );
}

#[test]
fn undo_without_history_and_binary_files() {
    let mut s = Server::start();
    s.write("f.txt", "x\n");
    let path = s.path("f.txt");
    assert_eq!(
        s.err(json!({"command": "undo_edit", "path": path}), "NOT_FOUND"),
        format!("No edit history found for {path}.")
    );
    s.write("bin.dat", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0");
    let bin = s.path("bin.dat");
    for args in [
        json!({"command": "view", "path": bin}),
        json!({"command": "view", "path": bin, "view_range": [1, 1]}),
        json!({"command": "str_replace", "path": bin, "old_str": "PNG", "new_str": "JPG"}),
        json!({"command": "insert", "path": bin, "insert_line": 0, "new_str": "x"}),
    ] {
        let msg = s.err(args, "BINARY_FILE");
        assert!(msg.contains("binary"), "{msg}");
    }
    assert_eq!(s.read("bin.dat"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0");
}

#[test]
fn file_size_limit() {
    let mut s = Server::with_args(&["--max-file-size", "100"]);
    let content: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    s.write("big.txt", &content);
    let path = s.path("big.txt");
    for args in [
        json!({"command": "view", "path": path}),
        json!({"command": "str_replace", "path": path, "old_str": "line 3\n", "new_str": ""}),
        json!({"command": "insert", "path": path, "insert_line": 0, "new_str": "x"}),
    ] {
        let msg = s.err(args, "FILE_TOO_LARGE");
        assert!(msg.contains("view_range") && msg.contains("--max-file-size"), "{msg}");
    }
    // a range is streamed, whatever the size
    let text = s.ok(json!({"command": "view", "path": path, "view_range": [29, 30]}));
    assert!(text.ends_with("    29\tline 29\n    30\tline 30\n"), "{text}");
    // create and edits that would pass the limit
    let msg =
        s.err(json!({"command": "create", "path": s.path("new.txt"), "file_text": "x".repeat(101)}), "FILE_TOO_LARGE");
    assert!(msg.contains("--max-file-size"), "{msg}");
    s.write("small.txt", "abc\n");
    s.err(
        json!({"command": "str_replace", "path": s.path("small.txt"), "old_str": "abc", "new_str": "y".repeat(200)}),
        "FILE_TOO_LARGE",
    );
    assert_eq!(s.read("small.txt"), b"abc\n");
    assert_eq!(s.read_string("big.txt"), content);
    assert!(!s.root.join("new.txt").exists());
}

#[test]
fn a_trailing_slash_names_a_directory_and_nothing_is_written_through_it() {
    let mut s = Server::start();
    s.write("n.txt", "hello\n");
    for (args, what) in [
        (json!({"command": "create", "path": s.path("d1/"), "file_text": "x"}), "create d1/"),
        (json!({"command": "create", "path": "d2/", "file_text": "x"}), "create d2/ (relative)"),
        (json!({"command": "str_replace", "path": s.path("n.txt/"), "old_str": "hello", "new_str": "bye"}), "edit"),
        (json!({"command": "insert", "path": s.path("n.txt/"), "insert_line": 0, "new_str": "a"}), "insert"),
        (json!({"command": "view", "path": s.path("n.txt/")}), "view"),
    ] {
        let message = s.err(args, "INVALID_ARGS");
        assert!(message.contains("trailing `/`"), "{what}: {message}");
    }
    assert_eq!(s.read("n.txt"), b"hello\n");
    assert!(!s.root.join("d1").exists() && !s.root.join("d2").exists(), "no file made for a directory path");
    // A directory written with its slash still views as the reference shows it (without it).
    std::fs::create_dir(s.root.join("d")).unwrap();
    let shown = s.path("d");
    let listing = s.ok(json!({"command": "view", "path": s.path("d/")}));
    assert!(listing.contains(&format!("2 levels deep in {shown},")), "{listing}");
}
