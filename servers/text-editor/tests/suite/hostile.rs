//! Hostile input, round 3: each finding has its test here, and each tool its differential
//! property test against a simpler oracle (`edit_file` ≡ the same edits as successive
//! `str_replace` calls; a tail ≡ the same lines of the whole file, while it grows; listings show
//! every name, one per line).

use std::time::Duration;

use mcp_server_text_editor::{Caller, Command, Edit, Editor, Limits, Request};
use mcp_shared::sandbox::Sandbox;
use proptest::prelude::*;
use serde_json::json;

use super::{Server, first_text};

fn editor() -> Editor {
    Editor::new(Limits { fsync: false, ..Limits::default() })
}

fn edit(old: &str, new: &str) -> Edit {
    Edit { old_str: old.into(), new_str: new.into(), replace_all: false }
}

/// `edit_file` of `edits` on a file holding `bytes`: the result's text (or error message) and
/// the bytes after.
fn edit_file(bytes: &[u8], edits: &[Edit], dry_run: bool) -> (Result<String, String>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, bytes).unwrap();
    let sandbox = Sandbox::new([dir.path()]).unwrap();
    let path = sandbox.resolve(file.to_str().unwrap()).unwrap();
    let result = editor()
        .edit_file(
            &sandbox,
            &path,
            edits,
            dry_run,
            Default::default(),
            Caller { abandoned: None, origin: &Default::default() },
        )
        .map(|r| r.text)
        .map_err(|e| e.message);
    (result, std::fs::read(&file).unwrap())
}

/// The same edits as successive `str_replace` calls (stopping at the first failure, then the
/// file as it was): the oracle.
fn successive_str_replace(bytes: &[u8], edits: &[Edit]) -> (bool, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, bytes).unwrap();
    let sandbox = Sandbox::new([dir.path()]).unwrap();
    let editor = editor();
    for e in edits {
        let request = Request {
            old_str: Some(e.old_str.clone()),
            new_str: Some(e.new_str.clone()),
            replace_all: e.replace_all,
            ..Request::default()
        };
        if editor.run(&sandbox, Command::StrReplace, file.to_str().unwrap(), request).is_err() {
            return (false, bytes.to_vec());
        }
    }
    (true, std::fs::read(&file).unwrap())
}

#[test]
fn edit_file_with_a_lone_cr_edits_the_lines_it_names() {
    let cases: [(&[u8], Edit, &[u8]); 5] = [
        (b"x\ra\nb\nc\n", edit("b\n", ""), b"x\ra\nc\n"),
        (b"p\rq\na\nb\nc\n", edit("a\n", "a\nNEW\n"), b"p\rq\na\nNEW\nb\nc\n"),
        (b"a\rb\rc\r", edit("b", "B"), b"a\rB\rc\r"),
        (b"a\r\nb\nc\nd\n", edit("a", "A"), b"A\r\nb\nc\nd\n"),
        (b"one\r\ntwo\nthree\r\n", edit("two\nthree", "2\n3"), b"one\r\n2\r\n3\r\n"),
    ];
    for (before, e, after) in cases {
        let (oracle_ok, oracle) = successive_str_replace(before, std::slice::from_ref(&e));
        assert!(oracle_ok);
        assert_eq!(oracle, after, "str_replace on {before:?}");
        let (result, bytes) = edit_file(before, std::slice::from_ref(&e), false);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(bytes, after, "edit_file on {before:?} with {e:?}");
    }
    // The dry run's diff shows the line removed, not another.
    let (result, bytes) = edit_file(b"x\ra\nb\nc\n", &[edit("b\n", "")], true);
    let text = result.unwrap();
    assert!(text.contains("\n-b\n") && !text.contains("\n-c"), "{text}");
    assert_eq!(bytes, b"x\ra\nb\nc\n");
    // Edits that cancel out write nothing and say so.
    let (result, _) = edit_file(b"a\nb\n", &[edit("a", "z"), edit("z", "a")], false);
    assert!(result.unwrap().contains("exactly as it was"));
}

/// Bytes with lone CRs, CRLFs, LFs, multi-byte characters, and no final newline.
fn hostile_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![Just("a"), Just("b"), Just("\r"), Just("\n"), Just("\r\n"), Just("é"), Just(" ")],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// An edit whose `old_str` is a piece of the file (so that it often matches, once or more).
fn hostile_edits(text: String) -> impl Strategy<Value = (String, Vec<Edit>)> {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len().max(1);
    let edit = (0..n, 1..6usize, hostile_text(), any::<bool>()).prop_map(move |(at, len, new, all)| {
        let end = (at + len).min(chars.len());
        let old: String = chars.get(at..end).map(|c| c.iter().collect()).unwrap_or_else(|| "a".to_owned());
        Edit { old_str: if old.is_empty() { "a".into() } else { old }, new_str: new, replace_all: all }
    });
    (Just(text), proptest::collection::vec(edit, 1..4))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// `edit_file` ≡ the same edits as successive `str_replace` calls, byte for byte, over
    /// hostile bytes; a refused `edit_file` changes nothing.
    #[test]
    fn edit_file_is_successive_str_replace((text, edits) in hostile_text().prop_flat_map(hostile_edits)) {
        let (oracle_ok, oracle) = successive_str_replace(text.as_bytes(), &edits);
        let (result, bytes) = edit_file(text.as_bytes(), &edits, false);
        prop_assert_eq!(result.is_ok(), oracle_ok, "{:?}", result);
        prop_assert_eq!(bytes, oracle);
    }
}

#[test]
fn replace_all_is_linear_and_its_answer_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.csv");
    let line = "a,b,c,d,e,f,g,h,i,j\n";
    std::fs::write(&file, line.repeat(25_000)).unwrap();
    let sandbox = Sandbox::new([dir.path()]).unwrap();
    let editor = editor();
    let request =
        Request { old_str: Some(",".into()), new_str: Some(";".into()), replace_all: true, ..Request::default() };
    let reply = editor.run(&sandbox, Command::StrReplace, file.to_str().unwrap(), request).unwrap();
    assert!(reply.text.contains("225000 occurrences"), "{}", &reply.text[..200]);
    assert!(reply.text.contains("(25000 in all; the first 100 shown)"), "{}", &reply.text[..600]);
    assert!(reply.text.len() < 20_000, "{} characters", reply.text.len());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), line.replace(',', ";").repeat(25_000));
    // MULTIPLE_MATCHES lists at most 100 lines, and counts them all.
    let request = Request { old_str: Some(";".into()), new_str: Some(",".into()), ..Request::default() };
    let error = editor.run(&sandbox, Command::StrReplace, file.to_str().unwrap(), request).unwrap_err();
    assert!(
        error.message.contains("(25000 in all; the first 100 shown)") && error.message.len() < 2_000,
        "{}",
        error.message
    );
}

/// A log being appended to: every line a tail shows carries its own number.
#[test]
fn a_tail_of_a_growing_file_is_numbered_as_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("log.txt");
    std::fs::write(&file, "L1\nL2\nL3\nL4\n").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (file, stop) = (file.clone(), std::sync::Arc::clone(&stop));
        std::thread::spawn(move || {
            use std::io::Write as _;
            let mut out = std::fs::OpenOptions::new().append(true).open(file).unwrap();
            let mut n = 5u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // Whole lines, each in one write.
                out.write_all(format!("L{n}\n").as_bytes()).unwrap();
                n += 1;
            }
        })
    };
    let sandbox = Sandbox::new([dir.path()]).unwrap();
    let editor = editor();
    for _ in 0..300 {
        let request = Request { view_range: Some(json!([-3, -1])), ..Request::default() };
        let text = editor.run(&sandbox, Command::View, file.to_str().unwrap(), request).unwrap().text;
        let lines: Vec<&str> = text.lines().skip(1).filter(|l| !l.is_empty()).collect();
        for (i, line) in lines.iter().enumerate() {
            let (number, content) = line.trim_start().split_once('\t').unwrap();
            let expected = format!("L{number}");
            if i + 1 == lines.len() {
                // The last line may be caught mid-write (a write crossing a page is two steps
                // for a reader), or be the empty line after the final newline (`split("\n")`).
                assert!(expected.starts_with(content), "{text}");
            } else {
                assert_eq!(content, expected, "{text}");
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
}

/// An in-place rewrite of the same size that restores the modification time (`rsync --inplace
/// --times`, `cp -p`) is seen: the tail is of the new content.
#[test]
fn a_same_size_rewrite_with_the_old_mtime_is_not_hidden_by_the_line_count() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    let eleven: String = (1..=11).map(|i| format!("{}\n", (b'a' + i as u8) as char)).collect();
    let five = format!("{}\n{}\n{}\n{}\n{}\n", "1", "2", "3", "4", "x".repeat(eleven.len() - 9));
    assert_eq!(five.len(), eleven.len());
    std::fs::write(&file, &eleven).unwrap();
    let sandbox = Sandbox::new([dir.path()]).unwrap();
    let editor = editor();
    let tail = |editor: &Editor| {
        let request = Request { view_range: Some(json!([-2, -1])), ..Request::default() };
        editor.run(&sandbox, Command::View, file.to_str().unwrap(), request).unwrap().text
    };
    assert!(tail(&editor).contains("    11\tl"), "{}", tail(&editor));
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    {
        use std::io::{Seek as _, Write as _};
        let mut out = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
        out.seek(std::io::SeekFrom::Start(0)).unwrap();
        out.write_all(five.as_bytes()).unwrap();
        out.set_modified(mtime).unwrap();
    }
    assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), mtime);
    let text = tail(&editor);
    assert!(text.contains("     4\t4\n") && text.contains("     5\txx"), "{text}");
    // An empty file: a message that says it is empty.
    std::fs::write(&file, "").unwrap();
    let request = Request { view_range: Some(json!([-1, -1])), ..Request::default() };
    let error = editor.run(&sandbox, Command::View, file.to_str().unwrap(), request).unwrap_err();
    assert!(error.message.contains("is empty") && !error.message.contains("-0"), "{}", error.message);
}

/// A FIFO renamed over a file, again and again, while the server reads and edits it: every
/// call is answered, and so is `ping`.
#[cfg(unix)]
#[test]
fn a_fifo_renamed_over_a_file_never_hangs_the_server() {
    let mut s = Server::start();
    s.write("f.txt", "hello\n");
    let root = s.root.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let fifo = root.join(format!("p{i}"));
                let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
                assert!(made.success());
                let _ = std::fs::rename(&fifo, root.join("f.txt"));
                std::thread::sleep(Duration::from_micros(200));
                std::fs::write(root.join(format!("t{i}")), "hello\n").unwrap();
                let _ = std::fs::rename(root.join(format!("t{i}")), root.join("f.txt"));
                i += 1;
            }
        })
    };
    let path = s.path("f.txt");
    for i in 0..300 {
        let args = if i % 2 == 0 {
            json!({"command": "view", "path": path})
        } else {
            json!({"command": "str_replace", "path": path, "old_str": "hello", "new_str": "hello"})
        };
        // An answer, success or a clear error, within the client's deadline.
        let _ = s.call(args);
    }
    s.client.request("ping", json!({})).unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
}

/// An edit never overwrites what a program that takes no lock appended meanwhile: every
/// appended line is in the file afterwards, whether the edit went through or was refused.
#[test]
fn an_edit_never_loses_a_concurrent_append() {
    let mut s = Server::start();
    let body: String = (0..400_000).map(|i| format!("row {i}\n")).collect();
    s.write("big.txt", format!("HEAD\n{body}"));
    let file = s.root.join("big.txt");
    let appender = std::thread::spawn(move || {
        use std::io::Write as _;
        let mut written = Vec::new();
        for n in 0..40 {
            std::thread::sleep(Duration::from_millis(5));
            let mut out = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
            let line = format!("appended {n}\n");
            out.write_all(line.as_bytes()).unwrap();
            written.push(line);
        }
        written
    });
    let path = s.path("big.txt");
    let mut refused = 0;
    for i in 0..6 {
        let (old, new) =
            if s.read_string("big.txt").contains("row 1\n") { ("row 1\n", "ROW 1\n") } else { ("ROW 1\n", "row 1\n") };
        let _ = i;
        let result = s.client.call_tool(
            "edit_file",
            json!({"path": path, "edits": [{"old_str": old, "new_str": new}, {"old_str": "row 9\n", "new_str": "row 9\n"}]}),
        );
        let result = result.unwrap();
        if mcp_tests::is_error(&result) {
            assert_eq!(mcp_tests::error_code(&result).as_deref(), Some("CONFLICT"), "{result}");
            assert!(first_text(&result).contains("changed by another program"), "{result}");
            refused += 1;
        }
    }
    let written = appender.join().unwrap();
    let after = s.read_string("big.txt");
    for line in &written {
        assert!(after.contains(line.as_str()), "{line:?} lost (refused {refused} of 6)");
    }
}

/// Names that would forge or hide entries are shown on one line, escaped; a directory that
/// cannot be read says so instead of looking empty.
#[cfg(unix)]
#[test]
fn odd_names_are_shown_escaped_and_never_forge_entries() {
    use std::os::unix::ffi::OsStrExt as _;
    let mut s = Server::start();
    s.write("notes.txt (12 B)\n  id_rsa (1.7 KB)\n  README.md", "x");
    std::fs::write(s.root.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")), "latin-1 name").unwrap();
    let root = s.path("");
    let tree = mcp_tests::text_of(&s.client.call_tool("list_tree", json!({"path": root})).unwrap());
    let found = mcp_tests::text_of(&s.client.call_tool("find_files", json!({"pattern": "*", "path": root})).unwrap());
    let view = s.view("");
    for listing in [&tree, &found, &view] {
        assert!(!listing.lines().any(|l| l.trim_start().starts_with("id_rsa")), "{listing}");
        assert!(listing.contains("\\n  id_rsa (1.7 KB)\\n  README.md\""), "{listing}");
        assert!(listing.contains("caf\\xe9.txt"), "{listing}");
    }
}

/// `--max-output-chars 0` lets `view` show a file whole, but a `read_files` reply keeps its own
/// bound of a million characters, the first file included, and says where it cut.
#[test]
fn read_files_keeps_its_bound_with_max_output_chars_0() {
    let mut s = Server::with_args(&["--max-output-chars", "0"]);
    let line = "0123456789abcdefghijklmnopqrstuvwxyz\n";
    s.write("big.txt", line.repeat(100_000));
    let path = s.path("big.txt");
    let answer = s.client.call_tool("read_files", json!({"paths": [path]})).unwrap();
    let text = mcp_tests::text_of(&answer);
    assert!(text.chars().count() <= 1_000_200, "{} characters", text.chars().count());
    assert!(text.contains("cut at 1000000 characters") && text.contains("view_range"), "{}", &text[text.len() - 300..]);
}

/// Listings ≡ a walk of the directory: every entry made (odd names included) is shown once,
/// on its own line, whatever its name.
#[cfg(unix)]
#[test]
fn listings_show_every_name_a_walk_finds() {
    use std::os::unix::ffi::OsStrExt as _;
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 24, ..ProptestConfig::default() });
    let name = proptest::collection::vec(
        prop_oneof![
            Just(b'a'),
            Just(b'Z'),
            Just(b' '),
            Just(b'\n'),
            Just(b'\r'),
            Just(b'\t'),
            Just(0xe9u8),
            Just(b'"'),
            Just(b'\\'),
            Just(b'(')
        ],
        1..8,
    );
    runner
        .run(&proptest::collection::btree_set(name, 1..8), |names| {
            let mut s = Server::start();
            let mut made = Vec::new();
            for raw in &names {
                if raw.starts_with(b".") {
                    continue;
                }
                let os = std::ffi::OsStr::from_bytes(raw);
                std::fs::write(s.root.join(os), "x").unwrap();
                made.push(mcp_shared::sandbox::shown_name(os).into_owned());
            }
            let root = s.path("");
            let tree =
                mcp_tests::text_of(&s.client.call_tool("list_tree", json!({"path": root, "limit": 100})).unwrap());
            let found =
                mcp_tests::text_of(&s.client.call_tool("find_files", json!({"pattern": "*", "path": root})).unwrap());
            // The oracle: a plain walk of the directory, each name as a listing must show it.
            let walked: Vec<std::ffi::OsString> =
                std::fs::read_dir(&s.root).unwrap().map(|e| e.unwrap().file_name()).collect();
            prop_assert_eq!(walked.len(), made.len());
            let tree_lines: Vec<&str> = tree.lines().skip(1).map(str::trim_start).collect();
            prop_assert_eq!(tree_lines.len(), walked.len(), "{}", tree);
            let found_lines: Vec<&str> = found.lines().filter(|l| !l.is_empty()).collect();
            for name in &walked {
                let shown = mcp_shared::sandbox::shown_name(name);
                prop_assert!(
                    tree_lines.iter().any(|l| l.starts_with(&format!("{shown} ("))),
                    "{} not in {}",
                    shown,
                    tree
                );
                let full = mcp_shared::sandbox::shown_name(s.root.join(name).as_os_str()).into_owned();
                prop_assert!(found_lines.contains(&full.as_str()), "{} not in {}", full, found);
            }
            Ok(())
        })
        .unwrap();
}

/// An `old_str` of megabytes that does not match is not echoed whole.
#[test]
fn a_huge_old_str_is_not_echoed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, "small file\n").unwrap();
    let sandbox = Sandbox::new([dir.path()]).unwrap();
    let old = "z".repeat(3_000_000);
    let request = Request { old_str: Some(old), new_str: Some(String::new()), ..Request::default() };
    let error = editor().run(&sandbox, Command::StrReplace, file.to_str().unwrap(), request).unwrap_err();
    assert!(
        error.message.len() < 5_000 && error.message.contains("more characters not repeated here"),
        "{}",
        error.message.len()
    );
}

/// A file name with a newline or a bidi override cannot forge a line of a listing, a search's
/// answer or a diff header: every tool shows it escaped.
#[cfg(unix)]
#[test]
fn odd_names_are_escaped_in_every_listing_search_and_diff() {
    let mut s = Server::start();
    s.write("a\n+ rm -rf ~", "hello\n");
    s.write("b\u{202e}txt.exe", "hello\n");
    let root = s.root.to_str().unwrap().to_owned();
    let answers = [
        ("list_tree", json!({"path": root})),
        ("find_files", json!({"pattern": "*"})),
        ("search_text", json!({"pattern": "hello"})),
        (
            "edit_file",
            json!({"path": s.path("a\n+ rm -rf ~"), "edits": [{"old_str": "hello", "new_str": "bye"}], "dry_run": true}),
        ),
    ];
    for (tool, args) in answers {
        let result = s.client.call_tool(tool, args).unwrap();
        let text = first_text(&result);
        assert!(!text.lines().any(|l| l.starts_with("+ rm -rf ~")), "{tool}: {text}");
        assert!(!text.contains('\u{202e}'), "{tool}: {text}");
        assert!(text.contains("\\n+ rm -rf ~"), "{tool}: {text}");
    }
}
