//! Files stay what they were: line endings, byte-order mark, final newline, permissions and
//! encoding (Shift_JIS, EUC-JP, UTF-16 with BOM, Latin-1), across every command.

use serde_json::json;

use super::{Server, numbered};

#[test]
fn crlf_files_stay_crlf_and_match_lf_old_str() {
    let mut s = Server::start();
    s.write("w.txt", "one\r\ntwo\r\nthree\r\n");
    let path = s.path("w.txt");
    let text = s.view("w.txt");
    assert!(text.ends_with(&format!("{}\n", numbered(&["one", "two", "three", ""], 1))), "{text:?}");
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "one\ntwo", "new_str": "1\n2\n2.5"}));
    assert_eq!(s.read("w.txt"), b"1\r\n2\r\n2.5\r\nthree\r\n");
    s.ok(json!({"command": "insert", "path": path, "insert_line": 4, "new_str": "four\nfive"}));
    assert_eq!(s.read("w.txt"), b"1\r\n2\r\n2.5\r\nthree\r\nfour\r\nfive\r\n");
    // an old_str sent with CRLF matches too
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "four\r\nfive", "new_str": "4"}));
    assert_eq!(s.read("w.txt"), b"1\r\n2\r\n2.5\r\nthree\r\n4\r\n");
}

#[test]
fn mixed_line_endings_outside_the_edit_are_untouched() {
    let mut s = Server::start();
    s.write("m.txt", "a\r\nb\nc\r\nd\n");
    s.ok(json!({"command": "str_replace", "path": s.path("m.txt"), "old_str": "c", "new_str": "C"}));
    assert_eq!(s.read("m.txt"), b"a\r\nb\nC\r\nd\n");
}

#[test]
fn bom_final_newline_and_permissions_are_kept() {
    let mut s = Server::start();
    s.write("bom.txt", b"\xEF\xBB\xBFhello\nworld");
    let path = s.path("bom.txt");
    let text = s.view("bom.txt");
    assert!(text.contains("     1\thello\n     2\tworld\n"), "{text:?}");
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "world", "new_str": "there\n"}));
    assert_eq!(s.read("bom.txt"), b"\xEF\xBB\xBFhello\nthere");
    s.ok(json!({"command": "insert", "path": path, "insert_line": 2, "new_str": "end"}));
    assert_eq!(s.read("bom.txt"), b"\xEF\xBB\xBFhello\nthere\nend");

    s.write("nl.txt", "a\nb\n");
    let nl = s.path("nl.txt");
    s.ok(json!({"command": "str_replace", "path": nl, "old_str": "b\n", "new_str": "c"}));
    assert_eq!(s.read("nl.txt"), b"a\nc\n");
    s.ok(json!({"command": "insert", "path": nl, "insert_line": 3, "new_str": "d"}));
    assert_eq!(s.read("nl.txt"), b"a\nc\nd\n");

    s.write("x.sh", "#!/bin/sh\necho hi\n");
    mcp_tests::os::set_mode(s.root.join("x.sh"), 0o751).unwrap();
    s.ok(json!({"command": "str_replace", "path": s.path("x.sh"), "old_str": "hi", "new_str": "there"}));
    s.ok(json!({"command": "undo_edit", "path": s.path("x.sh")}));
    let mode = mcp_tests::os::mode(s.root.join("x.sh")).unwrap();
    assert_eq!(mode, if cfg!(unix) { 0o751 } else { 0o644 });
}

fn legacy_round_trip(encoding: &'static encoding_rs::Encoding, text: &str, old: &str, new: &str) {
    let mut s = Server::start();
    let bytes = encoding.encode(text).0.into_owned();
    assert_ne!(bytes, text.as_bytes(), "the sample must not be plain ASCII/UTF-8");
    s.write("f.txt", &bytes);
    let path = s.path("f.txt");
    let shown = s.view("f.txt");
    let first_line = text.lines().next().unwrap();
    assert!(shown.contains(first_line), "{} view: {shown}", encoding.name());
    s.ok(json!({"command": "str_replace", "path": path, "old_str": old, "new_str": new}));
    let expected = encoding.encode(&text.replacen(old, new, 1)).0.into_owned();
    assert_eq!(s.read("f.txt"), expected, "{}", encoding.name());
    s.ok(json!({"command": "insert", "path": path, "insert_line": 1, "new_str": new}));
    s.ok(json!({"command": "undo_edit", "path": path}));
    s.ok(json!({"command": "undo_edit", "path": path}));
    assert_eq!(s.read("f.txt"), bytes, "{} after undo", encoding.name());
}

#[test]
fn shift_jis_euc_jp_and_latin1_are_edited_in_their_own_encoding() {
    let japanese = "これは日本語のテキストファイルです。\n文字コードの自動判定を確認します。\n最後の行です。\n";
    legacy_round_trip(encoding_rs::SHIFT_JIS, japanese, "自動判定", "自動検出");
    legacy_round_trip(encoding_rs::EUC_JP, japanese, "最後の行", "最終行");
    let latin = "Café crème brûlée, naïve façade.\nÜber große Straße, señor.\n";
    legacy_round_trip(encoding_rs::WINDOWS_1252, latin, "crème", "crèmes");
}

#[test]
fn utf16_with_bom_is_edited_in_utf16() {
    for little in [true, false] {
        let mut s = Server::start();
        let encode = |text: &str| {
            let mut out = if little { vec![0xFF, 0xFE] } else { vec![0xFE, 0xFF] };
            for unit in text.encode_utf16() {
                out.extend_from_slice(&if little { unit.to_le_bytes() } else { unit.to_be_bytes() });
            }
            out
        };
        let text = "hello\r\nwörld 日本\r\n";
        s.write("u.txt", encode(text));
        let path = s.path("u.txt");
        let shown = s.view("u.txt");
        assert!(shown.contains("     2\twörld 日本\n"), "{shown:?}");
        s.ok(json!({"command": "str_replace", "path": path, "old_str": "wörld", "new_str": "world"}));
        assert_eq!(s.read("u.txt"), encode("hello\r\nworld 日本\r\n"));
    }
}

#[test]
fn characters_the_encoding_cannot_hold_are_refused() {
    let mut s = Server::start();
    let bytes = encoding_rs::SHIFT_JIS.encode("日本語のファイルです。確認します。\n").0.into_owned();
    s.write("sjis.txt", &bytes);
    let msg = s.err(
        json!({"command": "str_replace", "path": s.path("sjis.txt"), "old_str": "確認", "new_str": "😀"}),
        "INVALID_ARGS",
    );
    assert!(msg.contains("Shift_JIS"), "{msg}");
    assert_eq!(s.read("sjis.txt"), bytes);
}

#[test]
fn a_latin1_file_whose_first_accent_comes_late_is_viewed_as_it_is_edited() {
    let mut s = Server::start();
    // 110 KB of ASCII (more than the first chunk a view reads), then Latin-1
    let mut bytes = "ascii line\n".repeat(10_000).into_bytes();
    bytes.extend_from_slice(b"caf\xE9 cr\xE8me\nend\n");
    s.write("late.txt", &bytes);
    let path = s.path("late.txt");
    let text = s.ok(json!({"command": "view", "path": path, "view_range": [10_001, -1]}));
    assert_eq!(
        text,
        format!("Here's the result of running `cat -n` on {path}:\n{}\n", numbered(&["café crème", "end", ""], 10_001))
    );
    let text = s.ok(json!({"command": "view", "path": path, "view_range": [1, 1]}));
    assert!(text.ends_with("     1\tascii line\n"), "{text}");
    s.ok(json!({"command": "str_replace", "path": path, "old_str": "café", "new_str": "thé"}));
    let mut expected = "ascii line\n".repeat(10_000).into_bytes();
    expected.extend_from_slice(b"th\xE9 cr\xE8me\nend\n");
    assert_eq!(s.read("late.txt"), expected);
    // over --max-file-size it cannot be decoded whole: refused, never shown wrongly
    let mut s = Server::with_args(&["--max-file-size", "50000"]);
    s.write("late.txt", &bytes);
    let path = s.path("late.txt");
    s.err(json!({"command": "view", "path": path, "view_range": [10_001, -1]}), "BINARY_FILE");
}
