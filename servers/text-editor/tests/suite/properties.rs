//! Property tests, in process: any edit followed by undo restores the file's bytes exactly,
//! whatever its line endings, byte-order mark, final newline or content; and a chain of edits
//! undone in reverse order walks back through every state.

use mcp_server_text_editor::{Command, Editor, Limits, Request};
use mcp_shared::sandbox::Sandbox;
use proptest::prelude::*;
use serde_json::json;

/// A line: ASCII, accents, CJK, tabs, trailing spaces.
fn line() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-z ]{0,6}(é|日本|\t|  )?[a-z0-9]{0,4}").unwrap()
}

/// File bytes: lines joined by LF, CRLF or a mix, optional BOM and final newline.
fn file() -> impl Strategy<Value = Vec<u8>> {
    (proptest::collection::vec((line(), 0u8..3), 1..12), any::<bool>(), any::<bool>()).prop_map(
        |(lines, bom, final_newline)| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            let n = lines.len();
            for (i, (text, ending)) in lines.into_iter().enumerate() {
                out.extend_from_slice(text.as_bytes());
                if i + 1 < n || final_newline {
                    out.extend_from_slice(if ending == 0 { b"\r\n" } else { b"\n" });
                }
            }
            out
        },
    )
}

#[derive(Debug, Clone)]
enum Edit {
    /// Replace the text between two positions (as fractions of the normalised text).
    Replace { from: f64, len: f64, new: String, delete: bool },
    /// Insert after a line (as a fraction of the line count).
    Insert { at: f64, new: String },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0f64, 0.0..0.5f64, "[a-zé\n ]{0,12}", any::<bool>())
            .prop_map(|(from, len, new, delete)| Edit::Replace { from, len, new, delete }),
        (0.0..=1.0f64, "[a-z日\n]{0,10}").prop_map(|(at, new)| Edit::Insert { at, new }),
    ]
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    sandbox: Sandbox,
    editor: Editor,
}

fn fixture(bytes: &[u8]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::write(root.join("f.txt"), bytes).unwrap();
    let sandbox = Sandbox::new([&root]).unwrap();
    let editor = Editor::new(Limits { fsync: false, ..Limits::default() });
    Fixture { _dir: dir, root, sandbox, editor }
}

/// Applies `edit`; `false` if the editor refused it (then the file must be unchanged).
fn apply(f: &Fixture, edit: &Edit) -> bool {
    let before = std::fs::read(f.root.join("f.txt")).unwrap();
    let text = String::from_utf8_lossy(&before).trim_start_matches('\u{feff}').replace("\r\n", "\n");
    let request = match edit {
        Edit::Replace { from, len, new, delete } => {
            let chars: Vec<char> = text.chars().collect();
            let start = ((chars.len() as f64) * from) as usize;
            let end = (start + ((chars.len() as f64) * len) as usize + 1).min(chars.len());
            if start >= end {
                return false;
            }
            let old: String = chars[start..end].iter().collect();
            let new_str = if *delete { None } else { Some(new.clone()) };
            (Command::StrReplace, Request { old_str: Some(old), new_str, ..Request::default() })
        }
        Edit::Insert { at, new } => {
            let lines = text.split('\n').count();
            let line = ((lines as f64) * at) as i64;
            (
                Command::Insert,
                Request { insert_line: Some(json!(line)), new_str: Some(new.clone()), ..Request::default() },
            )
        }
    };
    match f.editor.run(&f.sandbox, request.0, "f.txt", request.1) {
        Ok(_) => true,
        Err(_) => {
            assert_eq!(std::fs::read(f.root.join("f.txt")).unwrap(), before, "a refused edit changed the file");
            false
        }
    }
}

fn undo(f: &Fixture) {
    f.editor.run(&f.sandbox, Command::UndoEdit, "f.txt", Request::default()).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn an_edit_then_undo_restores_the_bytes(bytes in file(), e in edit()) {
        let f = fixture(&bytes);
        if apply(&f, &e) {
            undo(&f);
        }
        prop_assert_eq!(std::fs::read(f.root.join("f.txt")).unwrap(), bytes);
    }

    #[test]
    fn a_chain_of_edits_undoes_state_by_state(bytes in file(), edits in proptest::collection::vec(edit(), 1..6)) {
        let f = fixture(&bytes);
        let mut states = vec![bytes.clone()];
        for e in &edits {
            if apply(&f, e) {
                states.push(std::fs::read(f.root.join("f.txt")).unwrap());
            }
        }
        while states.len() > 1 {
            states.pop();
            undo(&f);
            prop_assert_eq!(&std::fs::read(f.root.join("f.txt")).unwrap(), states.last().unwrap());
        }
    }

    #[test]
    fn edits_keep_line_endings_bom_and_final_newline(bytes in file(), e in edit()) {
        let f = fixture(&bytes);
        if apply(&f, &e) {
            let after = std::fs::read(f.root.join("f.txt")).unwrap();
            prop_assert_eq!(after.starts_with(b"\xEF\xBB\xBF"), bytes.starts_with(b"\xEF\xBB\xBF"));
            let body = |b: &[u8]| b.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(b).to_vec();
            let (before_body, after_body) = (body(&bytes), body(&after));
            if !before_body.is_empty() && !after_body.is_empty() {
                prop_assert_eq!(after_body.ends_with(b"\n"), before_body.ends_with(b"\n"));
            }
            // a file with only CRLF line breaks keeps only CRLF line breaks
            let lone_lf = |b: &[u8]| b.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r') || b.first() == Some(&b'\n');
            if before_body.contains(&b'\n') && !lone_lf(&before_body) {
                prop_assert!(!lone_lf(&after_body), "{:?} -> {:?}", String::from_utf8_lossy(&bytes), String::from_utf8_lossy(&after));
            }
        }
    }
}
