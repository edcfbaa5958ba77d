//! Real edits, replayed the way a model makes them: the first 80 commits of this repository's own
//! history (`tests/fixtures/replay.json`), each modified text file taken at the parent commit and
//! brought to the commit's version
//! through the real binary, hunk by hunk (bottom-up, so that line numbers above stay valid):
//! a pure addition of whole lines as `insert` with `insert_text` ending in a newline (as Claude 4
//! models send it), anything else as `str_replace` with the context widened line by line until
//! `old_str` is unique. Every file must come out byte-identical to the commit, with LF files and
//! with the same files in CRLF (the edits still sent with LF, as models send them).
//!
//! The commits are fixed (history is append-only), so their files are committed as a fixture and
//! the test runs on any checkout (a shallow clone, a source archive). The fixture holds, for each
//! of the first 80 commits and each text file it modified (`git diff --name-only
//! --diff-filter=M PARENT COMMIT`) that is at most 16 KiB, without a CR, and changed, the file's
//! text at the parent and at the commit (`git show`), each text stored once under a key.

use std::path::Path;

use mcp_tests::{StdioClient, is_error};
use serde_json::json;
use similar::TextDiff;

use super::BIN;

/// How many commits from the start of the history are replayed.
const COMMITS: usize = 80;
/// Larger files are left out (they add time, not cases).
const MAX_FILE: usize = 16 * 1024;

/// One file of one commit: the parent's version and the commit's.
struct Change {
    commit: String,
    path: String,
    before: String,
    after: String,
}

/// The committed fixture: the changes, and the texts they name by key.
#[derive(serde::Deserialize)]
struct Fixture {
    changes: Vec<FixtureChange>,
    texts: std::collections::HashMap<String, String>,
}

#[derive(serde::Deserialize)]
struct FixtureChange {
    commit: String,
    path: String,
    before: String,
    after: String,
}

/// The modified text files of the first [`COMMITS`] commits, from the fixture.
fn changes() -> Vec<Change> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay.json");
    let fixture: Fixture = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let commits: std::collections::BTreeSet<&str> = fixture.changes.iter().map(|c| c.commit.as_str()).collect();
    assert!(commits.len() >= COMMITS / 2, "the fixture holds {} commits", commits.len());
    let text = |key: &str| fixture.texts.get(key).unwrap_or_else(|| panic!("no text {key} in the fixture")).clone();
    fixture
        .changes
        .iter()
        .filter(|c| text(&c.before).len() <= MAX_FILE && text(&c.after).len() <= MAX_FILE)
        .map(|c| Change {
            commit: c.commit.clone(),
            path: c.path.clone(),
            before: text(&c.before),
            after: text(&c.after),
        })
        .collect()
}

/// One edit as a model sends it.
enum Edit {
    Insert { line: usize, text: String },
    Replace { old: String, new: String },
}

/// The edits that turn `before` into `after`, bottom-up.
fn edits(before: &str, after: &str) -> Vec<Edit> {
    let diff = TextDiff::from_lines(before, after);
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let mut current: Vec<String> = old.iter().map(|s| (*s).to_owned()).collect();
    let mut hunks: Vec<(usize, usize, usize, usize)> = diff
        .grouped_ops(0)
        .iter()
        .filter_map(|group| {
            let (first, last) = (group.first()?, group.last()?);
            Some((first.old_range().start, last.old_range().end, first.new_range().start, last.new_range().end))
        })
        .collect();
    hunks.reverse();
    let mut out = Vec::new();
    for (a, b, c, d) in hunks {
        let added: String = new[c..d].concat();
        if a == b && added.ends_with('\n') {
            out.push(Edit::Insert { line: a, text: added.clone() });
        } else {
            let text: String = current.concat();
            let (mut lo, mut hi) = (a, b);
            let old_of = |lo: usize, hi: usize| current[lo..hi].concat();
            while (old_of(lo, hi).is_empty() || text.matches(&old_of(lo, hi)).count() != 1)
                && (lo > 0 || hi < current.len())
            {
                lo = lo.saturating_sub(1);
                hi = (hi + 1).min(current.len());
            }
            let new_str = format!("{}{added}{}", current[lo..a].concat(), current[b..hi].concat());
            out.push(Edit::Replace { old: old_of(lo, hi), new: new_str });
        }
        current.splice(a..b, new[c..d].iter().map(|s| (*s).to_owned()));
    }
    out
}

fn crlf(s: &str) -> String {
    s.replace('\n', "\r\n")
}

/// Replays every change on a fresh file; the failures, described.
fn replay(client: &mut StdioClient, dir: &Path, changes: &[Change], as_crlf: bool) -> Vec<String> {
    let mut failures = Vec::new();
    for (i, change) in changes.iter().enumerate() {
        let file = dir.join(format!("{}-{i}.txt", if as_crlf { "crlf" } else { "lf" }));
        let (start, expected) = if as_crlf {
            (crlf(&change.before), crlf(&change.after))
        } else {
            (change.before.clone(), change.after.clone())
        };
        std::fs::write(&file, &start).unwrap();
        let path = file.to_str().unwrap();
        for edit in edits(&change.before, &change.after) {
            let args = match &edit {
                Edit::Insert { line, text } => {
                    json!({"command": "insert", "path": path, "insert_line": line, "insert_text": text})
                }
                Edit::Replace { old, new } => {
                    json!({"command": "str_replace", "path": path, "old_str": old, "new_str": new})
                }
            };
            let result = client.call_tool("text_editor", args.clone()).unwrap();
            if is_error(&result) {
                failures.push(format!("{} {}: {args} -> {result}", change.commit, change.path));
                break;
            }
        }
        let got = std::fs::read_to_string(&file).unwrap();
        if got != expected
            && failures.last().is_none_or(|f| !f.starts_with(&format!("{} {}:", change.commit, change.path)))
        {
            failures.push(format!(
                "{} {} ({}): the result differs from the commit{}",
                change.commit,
                change.path,
                if as_crlf { "CRLF" } else { "LF" },
                first_difference(&got, &expected)
            ));
        }
    }
    failures
}

fn first_difference(got: &str, expected: &str) -> String {
    let at = got.bytes().zip(expected.bytes()).take_while(|(a, b)| a == b).count();
    let show = |s: &str| s.get(at.saturating_sub(40)..(at + 40).min(s.len())).unwrap_or("").to_owned();
    format!(" at byte {at}: got {:?}, expected {:?}", show(got), show(expected))
}

#[test]
fn this_repositorys_commits_replayed_as_edits_come_out_byte_identical() {
    let changes = changes();
    let inserts =
        changes.iter().flat_map(|c| edits(&c.before, &c.after)).filter(|e| matches!(e, Edit::Insert { .. })).count();
    assert!(
        changes.len() >= 100 && inserts >= 100,
        "{} files, {inserts} inserts: too few to mean anything",
        changes.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let mut client = StdioClient::builder(BIN).arg("--root").arg(dir.path()).arg("--no-fsync").spawn().unwrap();
    client.initialize().unwrap();
    let mut failures = replay(&mut client, dir.path(), &changes, false);
    failures.extend(replay(&mut client, dir.path(), &changes, true));
    assert!(
        failures.is_empty(),
        "{} of {} replays failed ({} files, {inserts} inserts per pass); the first:\n{}",
        failures.len(),
        changes.len() * 2,
        changes.len(),
        failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
    );
}
