//! The `codex` profile's `apply_patch` against the real reference: codex-cli 0.171.0's
//! `apply_patch` program (npm `@openai/codex@0.171.0-linux-x64`, fetched at test time into
//! `target/reference/` and kept there; never committed). A seeded generator makes trees (LF,
//! CRLF, mixed endings, no final newline, Unicode punctuation) and patches (adds, deletes,
//! updates with `@@` context, moves, `*** End of File`, pure additions, whitespace and
//! punctuation the fuzzy passes forgive, every error, malformed envelopes); each patch is given
//! to the program in one copy of the tree and to our server in another. When the program
//! succeeds, our answer is its stdout and every file is byte-identical; when it fails, our
//! answer is its stderr (absolute paths named under our root) and nothing changed (the one
//! deliberate difference: the program leaves earlier hunks applied).
//!
//! It needs npm and the network the first time, so it is `#[ignore]`d in `cargo test` (counted
//! as ignored) and `.ci/run` runs it: `cargo test --workspace --tests -- --ignored
//! suite::codex::`. `MCP_SUITE_CODEX_SEEDS=N` runs more cases; `MCP_SUITE_CODEX_SEED=S` one.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
};

use mcp_tests::rng::Rng;
use mcp_tests::{StdioClient, is_error};
use serde_json::json;

use super::{BIN, first_text};

const VERSION: &str = "0.171.0";

/// The reference program: a link named `apply_patch` to the pinned Codex binary, fetched with
/// npm into `target/reference/codex-<version>/` the first time.
fn reference() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/reference").join(format!("codex-{VERSION}"));
    let link = root.join("apply_patch");
    if link.exists() {
        return link;
    }
    std::fs::create_dir_all(&root).unwrap();
    let out = Command::new("npm")
        .args(["pack", "--silent", &format!("@openai/codex@{VERSION}-linux-x64")])
        .current_dir(&root)
        .output()
        .expect("npm is needed to fetch the reference (codex-cli from the npm registry)");
    assert!(out.status.success(), "npm pack: {}", String::from_utf8_lossy(&out.stderr));
    let tarball = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let status = Command::new("tar")
        .args(["xzf", &tarball, "package/vendor/x86_64-unknown-linux-musl/bin/codex"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success(), "tar");
    std::fs::remove_file(root.join(&tarball)).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("package/vendor/x86_64-unknown-linux-musl/bin/codex"), &link).unwrap();
    link
}

const WORDS: &[&str] = &[
    "fn main() {",
    "    let x = 1;",
    "    return x;",
    "}",
    "",
    "# heading",
    "value = \u{201C}quoted\u{201D}",
    "a \u{2014} dash",
    "def greet(name):",
    "    print('hi')",
    "  indented  ",
    "trailing\t",
    "import os",
    "x",
];

fn word(rng: &mut Rng) -> &'static str {
    WORDS[rng.below(WORDS.len())]
}

/// A file's text: lines with LF, CRLF or mixed endings, maybe without a final line feed.
fn text(rng: &mut Rng) -> String {
    let n = 1 + rng.below(9);
    let style = rng.below(4);
    let mut out = String::new();
    for i in 0..n {
        out.push_str(word(rng));
        if i + 1 == n && rng.chance(20) {
            break;
        }
        let crlf = match style {
            0 | 1 => false,
            2 => true,
            _ => rng.chance(50),
        };
        out.push_str(if crlf { "\r\n" } else { "\n" });
    }
    out
}

/// The lines of a file as a patch shows them (endings dropped).
fn lines_of(text: &str) -> Vec<String> {
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned()).collect()
}

/// A line as a model may misquote it: trailing or surrounding whitespace changed, Unicode
/// punctuation written in ASCII, or another line altogether.
fn quoted(rng: &mut Rng, line: &str) -> String {
    match rng.below(10) {
        0 => format!("{}  ", line.trim_end()),
        1 => line.trim().to_owned(),
        2 => line.replace(['\u{201C}', '\u{201D}'], "\"").replace('\u{2014}', "-"),
        3 if rng.chance(30) => "no such line".to_owned(),
        _ => line.to_owned(),
    }
}

/// An update hunk's body for `text`.
fn update_body(rng: &mut Rng, text: &str) -> String {
    let lines = lines_of(text);
    let mut body = String::new();
    let chunks = 1 + rng.below(2);
    let mut at = 0;
    for _ in 0..chunks {
        if at >= lines.len() {
            break;
        }
        let start = at + rng.below(lines.len() - at);
        let len = 1 + rng.below(3.min(lines.len() - start));
        if rng.chance(30) && start > 0 {
            body.push_str(&format!("@@ {}\n", quoted(rng, &lines[start - 1])));
        } else {
            body.push_str("@@\n");
        }
        if rng.chance(10) {
            // A pure addition.
            body.push_str(&format!("+added {}\n", rng.below(100)));
            continue;
        }
        for line in &lines[start..start + len] {
            match rng.below(4) {
                0 => body.push_str(&format!(" {}\n", quoted(rng, line))),
                1 => body.push_str(&format!("-{}\n+{}\n", quoted(rng, line), word(rng))),
                2 => body.push_str(&format!("-{}\n", quoted(rng, line))),
                _ => body.push_str(&format!(" {}\n+new {}\n", quoted(rng, line), rng.below(100))),
            }
        }
        if start + len >= lines.len().saturating_sub(1) && rng.chance(40) {
            body.push_str("*** End of File\n");
        }
        at = start + len;
    }
    body
}

/// A tree of a few files and a patch for it.
fn case(seed: u64) -> (BTreeMap<String, String>, String) {
    let mut rng = Rng(seed);
    let mut tree = BTreeMap::new();
    for i in 0..1 + rng.below(4) {
        let name = if rng.chance(30) { format!("dir/f{i}.txt") } else { format!("f{i}.txt") };
        tree.insert(name, text(&mut rng));
    }
    let names: Vec<String> = tree.keys().cloned().collect();
    let mut patch = String::from("*** Begin Patch\n");
    for _ in 0..1 + rng.below(3) {
        match rng.below(10) {
            0 | 1 => {
                let path = if rng.chance(20) { rng.pick(&names).clone() } else { format!("new/n{}.txt", rng.below(5)) };
                patch.push_str(&format!("*** Add File: {path}\n"));
                for _ in 0..1 + rng.below(3) {
                    patch.push_str(&format!("+{}\n", word(&mut rng)));
                }
            }
            2 => {
                let path = if rng.chance(80) { rng.pick(&names).clone() } else { "missing.txt".to_owned() };
                patch.push_str(&format!("*** Delete File: {path}\n"));
            }
            3 if rng.chance(20) => patch.push_str("*** Frob File: x\n"),
            _ => {
                let path = if rng.chance(90) { rng.pick(&names).clone() } else { "missing.txt".to_owned() };
                patch.push_str(&format!("*** Update File: {path}\n"));
                if rng.chance(20) {
                    patch.push_str(&format!("*** Move to: moved/m{}.txt\n", rng.below(3)));
                }
                let body = tree.get(&path).map_or_else(|| "@@\n-x\n+y\n".to_owned(), |t| update_body(&mut rng, t));
                patch.push_str(&body);
            }
        }
    }
    match rng.below(20) {
        0 => {}
        1 => patch = patch.replacen("*** Begin Patch\n", "", 1),
        2 => patch = format!("  {patch}*** End Patch  \n"),
        3 => patch = format!("<<'EOF'\n{patch}*** End Patch\nEOF\n"),
        _ => patch.push_str("*** End Patch\n"),
    }
    (tree, patch)
}

fn write_tree(dir: &Path, tree: &BTreeMap<String, String>) {
    for (name, text) in tree {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Every file under `dir`, relative, with its bytes.
fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn seeds() -> Vec<u64> {
    if let Some(seed) = std::env::var("MCP_SUITE_CODEX_SEED").ok().and_then(|s| s.parse().ok()) {
        return vec![seed];
    }
    let n = std::env::var("MCP_SUITE_CODEX_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    (1..=n).collect()
}

#[test]
#[ignore = "fetches codex-cli 0.171.0 from npm: .ci/run runs it (docs/development.md)"]
fn apply_patch_is_byte_identical_to_codex_0_171_and_all_or_nothing() {
    let program = reference();
    let work = tempfile::tempdir().unwrap();
    let base = work.path().canonicalize().unwrap();
    let (theirs, ours, journal) = (base.join("theirs"), base.join("ours"), base.join("journal"));
    let mut server: Option<StdioClient> = None;
    let (mut passed, mut failed) = (0, 0);
    for seed in seeds() {
        let (tree, patch) = case(seed);
        for dir in [&theirs, &ours] {
            // Emptied, not removed: the server holds its root.
            std::fs::create_dir_all(dir).unwrap();
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    std::fs::remove_dir_all(&path).unwrap()
                } else {
                    std::fs::remove_file(&path).unwrap()
                }
            }
            write_tree(dir, &tree);
        }
        let before = read_tree(&ours);
        let out = Command::new(&program).arg(&patch).current_dir(&theirs).output().unwrap();
        let client = server.get_or_insert_with(|| {
            let mut c = StdioClient::builder(BIN)
                .args([
                    "--profile",
                    "codex",
                    "--root",
                    ours.to_str().unwrap(),
                    "--journal-dir",
                    journal.to_str().unwrap(),
                    "--no-fsync",
                ])
                .spawn()
                .unwrap();
            c.initialize().unwrap();
            c
        });
        let result = client.call_tool("apply_patch", json!({"input": patch})).unwrap();
        let said = first_text(&result);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).replace(theirs.to_str().unwrap(), ours.to_str().unwrap());
        let ok = if out.status.success() {
            !is_error(&result) && said == stdout && read_tree(&ours) == read_tree(&theirs)
        } else {
            is_error(&result) && said == stderr && read_tree(&ours) == before
        };
        if ok {
            passed += 1;
        } else {
            failed += 1;
            eprintln!(
                "seed {seed}: MISMATCH\n--- patch\n{patch}--- program (exit {:?})\n{stdout}{stderr}--- ours (isError {})\n{said}\n--- trees equal: {}",
                out.status.code(),
                is_error(&result),
                read_tree(&ours) == read_tree(&theirs)
            );
        }
    }
    eprintln!("{passed} cases identical, {failed} differ");
    assert_eq!(failed, 0, "see the cases above");
}

/// A server with `--profile codex` on a fresh root holding `a.txt`.
fn codex_server(extra: &[&str]) -> (tempfile::TempDir, PathBuf, StdioClient) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "one\r\ntwo\r\n").unwrap();
    let mut args = vec!["--profile", "codex", "--root", root.to_str().unwrap()];
    let journal = base.join("journal");
    args.extend(["--journal-dir", journal.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let mut client = StdioClient::builder(BIN).args(&args).spawn().unwrap();
    client.initialize().unwrap();
    (dir, root, client)
}

#[test]
fn the_codex_profile_lists_its_tools_and_keeps_every_guarantee() {
    let (_dir, root, mut c) = codex_server(&[]);
    let tools = c.list_tools().unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        ["apply_patch", "search_text", "find_files", "read_files", "list_tree", "list_changes", "revert_changes"]
    );
    assert_eq!(tools[0]["_meta"]["anthropic/alwaysLoad"], true);
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["input"]));
    for tool in &tools {
        let description = tool["description"].as_str().unwrap();
        assert!(description.len() <= 2048, "{}: {} bytes", tool["name"], description.len());
    }
    // An edit, CRLF kept, then listed and reverted byte for byte.
    let patch =
        "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** Add File: b/new.txt\n+hello\n*** End Patch";
    let result = c.call_tool("apply_patch", json!({"input": patch})).unwrap();
    assert_eq!(first_text(&result), "Success. Updated the following files:\nA b/new.txt\nM a.txt\n");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"one\r\nTWO\r\n");
    let listed = c.call_tool("list_changes", json!({})).unwrap();
    let text = first_text(&listed);
    assert!(
        text.contains("1 change(s)") && text.contains("a.txt: edited") && text.contains("b/new.txt: created"),
        "{text}"
    );
    let reverted = c.call_tool("revert_changes", json!({"to": 0})).unwrap();
    assert!(!is_error(&reverted), "{reverted}");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"one\r\ntwo\r\n");
    assert!(!root.join("b").exists(), "the directory the patch made is gone too");
    // Outside the root, and through a link that leaves it: refused, nothing written.
    let outside = root.parent().unwrap().join("outside.txt");
    for path in ["../outside.txt".to_owned(), outside.display().to_string()] {
        let patch = format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch");
        let result = c.call_tool("apply_patch", json!({"input": patch})).unwrap();
        assert!(is_error(&result), "{result}");
        assert!(!outside.exists());
    }
    #[cfg(unix)]
    {
        std::fs::write(&outside, "secret\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link.txt")).unwrap();
        let patch = "*** Begin Patch\n*** Update File: link.txt\n@@\n-secret\n+pwned\n*** End Patch";
        let result = c.call_tool("apply_patch", json!({"input": patch})).unwrap();
        assert!(is_error(&result), "{result}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret\n");
    }
    // A failing hunk after a good one: nothing written (the program would keep the first).
    let patch = "*** Begin Patch\n*** Add File: c.txt\n+c\n*** Delete File: nope.txt\n*** End Patch";
    let result = c.call_tool("apply_patch", json!({"input": patch})).unwrap();
    assert!(is_error(&result));
    assert_eq!(first_text(&result), format!("Failed to delete file {}\n", root.join("nope.txt").display()));
    assert!(!root.join("c.txt").exists());
}

#[test]
fn read_only_and_tools_narrow_the_codex_profile() {
    let (_dir, _root, mut c) = codex_server(&["--read-only"]);
    let names: Vec<String> =
        c.list_tools().unwrap().iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect();
    assert!(!names.contains(&"apply_patch".to_owned()) && names.contains(&"list_changes".to_owned()), "{names:?}");
    let (_dir, _root, mut c) = codex_server(&["--tools", "apply_patch,list_changes"]);
    let names: Vec<String> =
        c.list_tools().unwrap().iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect();
    assert_eq!(names, ["apply_patch", "list_changes"]);
}

/// Claude Code cuts a tool's description and the server's instructions at 2,048 bytes: every
/// profile keeps both within it, and lists its core editing tool to be loaded up front.
#[test]
fn every_profile_keeps_what_the_model_reads_first_within_2048_bytes() {
    for (profile, core) in [("claude", "text_editor"), ("codex", "apply_patch")] {
        let dir = tempfile::tempdir().unwrap();
        let mut c = StdioClient::builder(BIN)
            .args(["--profile", profile, "--root", dir.path().to_str().unwrap()])
            .spawn()
            .unwrap();
        let init = c.initialize().unwrap();
        let instructions = init["instructions"].as_str().unwrap_or_default();
        assert!(instructions.len() <= 2048, "{profile}: instructions of {} bytes", instructions.len());
        for tool in c.list_tools().unwrap() {
            let description = tool["description"].as_str().unwrap();
            assert!(description.len() <= 2048, "{profile}: {} of {} bytes", tool["name"], description.len());
            let always = tool["_meta"]["anthropic/alwaysLoad"] == true;
            assert_eq!(always, tool["name"] == core, "{profile}: {}", tool["name"]);
        }
    }
}
