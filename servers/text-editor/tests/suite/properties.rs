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

/// The model of a file: its text with `\n` line breaks (bytes: a Latin-1 file's bytes are its
/// characters' codes), and how it is written: byte-order mark, line ending, encoding.
#[derive(Debug, Clone)]
struct Model {
    text: Vec<u8>,
    bom: bool,
    crlf: bool,
    latin1: bool,
}

impl Model {
    /// The file's bytes: BOM, then the text with each `\n` as the file's line ending. Edits are
    /// ASCII in a Latin-1 file, so its bytes stay what they were around them.
    fn bytes(&self) -> Vec<u8> {
        let mut out = if self.bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        for &b in &self.text {
            if b == b'\n' && self.crlf {
                out.extend_from_slice(b"\r\n");
            } else {
                out.push(b);
            }
        }
        out
    }

    /// The editor's rule for a splice that reaches the end: the final newline's presence is
    /// kept (an emptied file stays empty).
    fn splice(&mut self, start: usize, mut end: usize, mut replacement: Vec<u8>) {
        let text = &self.text;
        let mut start = start;
        if !text.is_empty() && end == text.len() && !(start == 0 && replacement.is_empty()) {
            let had = text.ends_with(b"\n");
            let ends_nl =
                |start: usize, r: &[u8]| if r.is_empty() { text[..start].ends_with(b"\n") } else { r.ends_with(b"\n") };
            if had {
                if !ends_nl(start, &replacement) {
                    replacement.push(b'\n');
                }
            } else {
                while ends_nl(start, &replacement) && !(start == 0 && replacement.is_empty()) {
                    if replacement.is_empty() {
                        start -= 1;
                    } else {
                        replacement.pop();
                    }
                }
            }
        }
        end = end.max(start);
        self.text.splice(start..end, replacement);
    }

    fn line_count(&self) -> usize {
        self.text.iter().filter(|&&b| b == b'\n').count() + 1
    }

    fn line_start(&self, k: usize) -> usize {
        if k == 0 {
            return 0;
        }
        self.text.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(k - 1).map_or(self.text.len(), |(i, _)| i + 1)
    }

    /// `insert` after line `k` as the editor defines it (see `src/editor/insert.rs`).
    fn insert(&mut self, k: usize, new: &[u8]) {
        let inserted = new.strip_suffix(b"\n").unwrap_or(new).to_vec();
        let with_nl = |v: &[u8]| [v, b"\n"].concat();
        if self.text.is_empty() {
            self.text = if k == 0 { with_nl(&inserted) } else { [b"\n".as_slice(), &inserted].concat() };
        } else if k < self.line_count() {
            let at = self.line_start(k);
            self.text.splice(at..at, with_nl(&inserted));
        } else if self.text.ends_with(b"\n") {
            self.text.extend_from_slice(&with_nl(&inserted));
        } else {
            let end = self.text.len();
            self.splice(end, end, [b"\n".as_slice(), &inserted].concat());
        }
    }
}

/// A file model: lines of ASCII words, with `é` (UTF-8, or the byte 0xE9 of Latin-1, which
/// makes the file not UTF-8) and `日本` (UTF-8 only) now and then.
fn model() -> impl Strategy<Value = Model> {
    let word = prop_oneof![4 => "[a-c ]{1,4}", 1 => Just("é".to_owned()), 1 => Just("日本".to_owned())];
    (proptest::collection::vec(proptest::collection::vec(word, 0..4), 1..8), any::<bool>(), any::<bool>(), 0u8..3)
        .prop_map(|(lines, final_newline, crlf, kind)| {
            let latin1 = kind == 2;
            let mut text = Vec::new();
            for (i, words) in lines.iter().enumerate() {
                for w in words {
                    match (latin1, w.as_str()) {
                        (true, "é") => text.push(0xE9),
                        (true, "日本") => text.extend_from_slice(b"ab"),
                        _ => text.extend_from_slice(w.as_bytes()),
                    }
                }
                if i + 1 < lines.len() || final_newline {
                    text.push(b'\n');
                }
            }
            let crlf = crlf && text.contains(&b'\n');
            Model { text, bom: kind == 1, crlf, latin1 }
        })
}

#[derive(Debug, Clone)]
enum Op {
    /// Replace the text between two fractions of it with `new`.
    Replace {
        from: f64,
        len: f64,
        new: String,
    },
    /// Insert `new` after the line at this fraction of the line count (above it: refused).
    Insert {
        at: f64,
        new: String,
    },
    Undo,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0.0..1.0f64, 0.0..0.4f64, "[a-cx\n]{0,6}").prop_map(|(from, len, new)| Op::Replace { from, len, new }),
        2 => (0.0..1.2f64, "[x-z\n]{0,6}").prop_map(|(at, new)| Op::Insert { at, new }),
        1 => Just(Op::Undo),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any file (UTF-8 with or without BOM, or Latin-1; LF or CRLF; with or without a final
    /// newline) through any sequence of str_replace / insert / undo_edit: the bytes on disk are
    /// the model's, byte for byte, after every step; a refused step changes nothing.
    #[test]
    fn edits_and_undos_match_the_model_byte_for_byte(start in model(), ops in proptest::collection::vec(op(), 1..10)) {
        let f = fixture(&start.bytes());
        let mut model = start;
        let mut undo_stack: Vec<Model> = Vec::new();
        for op in &ops {
            let before = model.clone();
            let outcome = match op {
                Op::Replace { from, len, new } => {
                    let n = model.text.len();
                    let s = ((n as f64) * from) as usize;
                    let e = (s + ((n as f64) * len) as usize + 1).min(n);
                    let old = &model.text[s.min(n)..e];
                    // Old and new are sent as text; a Latin-1 file's high bytes are not ASCII.
                    if old.is_empty() || !old.is_ascii() && model.latin1 || std::str::from_utf8(old).is_err() {
                        continue;
                    }
                    let old = old.to_vec();
                    // Counted as the reference counts (Python's `str.count`: without overlaps).
                    let found = {
                        let (mut count, mut i) = (0, 0);
                        while let Some(p) = model.text[i..].windows(old.len()).position(|w| w == old.as_slice()) {
                            count += 1;
                            i += p + old.len();
                        }
                        count
                    };
                    let request = Request { old_str: Some(String::from_utf8(old.clone()).unwrap()), new_str: Some(new.clone()), ..Request::default() };
                    let result = f.editor.run(&f.sandbox, Command::StrReplace, "f.txt", request);
                    if found == 1 {
                        let at = model.text.windows(old.len()).position(|w| w == old.as_slice()).unwrap();
                        model.splice(at, at + old.len(), new.as_bytes().to_vec());
                    }
                    (result.is_ok(), found == 1)
                }
                Op::Insert { at, new } => {
                    let k = ((model.line_count() as f64) * at) as usize;
                    let request = Request { insert_line: Some(json!(k)), new_str: Some(new.clone()), ..Request::default() };
                    let result = f.editor.run(&f.sandbox, Command::Insert, "f.txt", request);
                    let valid = k <= model.line_count();
                    if valid {
                        model.insert(k, new.as_bytes());
                    }
                    (result.is_ok(), valid)
                }
                Op::Undo => {
                    let result = f.editor.run(&f.sandbox, Command::UndoEdit, "f.txt", Request::default());
                    let had = !undo_stack.is_empty();
                    if let Some(previous) = undo_stack.pop() {
                        model = previous;
                    }
                    (result.is_ok(), had)
                }
            };
            prop_assert_eq!(outcome.0, outcome.1, "{:?} on {:?}: editor ok = {}, model ok = {}", op, String::from_utf8_lossy(&before.bytes()), outcome.0, outcome.1);
            if outcome.0 && !matches!(op, Op::Undo) {
                undo_stack.push(before);
            }
            // A file without a line break has no line-ending style: the next break is `\n`.
            if !model.text.contains(&b'\n') {
                model.crlf = false;
            }
            let disk = std::fs::read(f.root.join("f.txt")).unwrap();
            prop_assert_eq!(String::from_utf8_lossy(&disk).into_owned(), String::from_utf8_lossy(&model.bytes()).into_owned(), "after {:?}", op);
            prop_assert_eq!(disk, model.bytes(), "after {:?}", op);
        }
    }
}
