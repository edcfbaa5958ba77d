//! Large files: a range of a huge file is streamed (the server's peak memory stays small),
//! whole reads and edits are bounded by `--max-file-size`.

use std::io::Write as _;

use serde_json::json;

use super::Server;

/// The server's peak resident memory so far, in MiB.
fn peak_mib(s: &Server) -> u64 {
    mcp_tests::procfs::status_kib(s.client.pid(), "VmHWM").unwrap() / 1024
}

#[test]
fn a_range_of_a_one_gib_file_is_shown_without_loading_it() {
    let mut s = Server::start();
    let path = s.root.join("huge.log");
    {
        let mut file = std::fs::File::create(&path).unwrap();
        for i in 1..=5000 {
            writeln!(file, "log line {i}").unwrap();
        }
        // the rest is a hole: 1 GiB in size, nothing on disk
        file.set_len(1 << 30).unwrap();
    }
    let shown = s.path("huge.log");
    let text = s.ok(json!({"command": "view", "path": shown, "view_range": [4999, 5000]}));
    assert!(text.ends_with("  4999\tlog line 4999\n  5000\tlog line 5000\n"), "{text}");
    let msg = s.err(json!({"command": "view", "path": shown}), "FILE_TOO_LARGE");
    assert!(msg.contains("view_range"), "{msg}");
    s.err(json!({"command": "str_replace", "path": shown, "old_str": "log line 1\n", "new_str": ""}), "FILE_TOO_LARGE");
    assert!(peak_mib(&s) < 64, "peak RSS {} MiB", peak_mib(&s));
}

#[test]
fn a_range_at_the_end_of_a_large_text_file_streams_through_it() {
    let mut s = Server::with_args(&["--max-file-size", "1000000"]);
    let path = s.root.join("big.txt");
    let lines = 600_000;
    {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for i in 1..=lines {
            writeln!(file, "this is line number {i:>8} of a large text file").unwrap();
        }
    }
    assert!(std::fs::metadata(&path).unwrap().len() > 25_000_000);
    let shown = s.path("big.txt");
    let text = s.ok(json!({"command": "view", "path": shown, "view_range": [lines, -1]}));
    assert!(
        text.ends_with(&format!("{lines:6}\tthis is line number {lines:>8} of a large text file\n{:6}\t\n", lines + 1)),
        "{text}"
    );
    let msg = s.err(json!({"command": "view", "path": shown, "view_range": [1, lines + 2]}), "INVALID_ARGS");
    assert!(msg.ends_with(&format!("`{}`", lines + 1)), "{msg}");
    assert!(peak_mib(&s) < 48, "peak RSS {} MiB", peak_mib(&s));
}

#[test]
fn an_edit_in_a_multi_megabyte_file_touches_only_its_target() {
    let mut s = Server::start();
    let mut content = String::new();
    for i in 0..200_000 {
        content.push_str(&format!("row {i}\n"));
    }
    s.write("data.txt", &content);
    let path = s.path("data.txt");
    let text = s.ok(json!({"command": "str_replace", "path": path, "old_str": "row 123456\n", "new_str": "ROW\n"}));
    assert!(text.contains("123457\tROW\n"), "{text}");
    assert_eq!(s.read_string("data.txt"), content.replace("row 123456\n", "ROW\n"));
    s.ok(json!({"command": "undo_edit", "path": path}));
    assert_eq!(s.read_string("data.txt"), content);
}
