//! The change journal under concurrency, as a seeded campaign: three server processes on one
//! root (two over stdio, one over Streamable HTTP with two sessions) make random edits, moves,
//! deletions, creations, undos and reverts at once, while an outside program appends to the
//! files (locking them as an editor saving in place would). Afterwards:
//!
//! - no byte the outside program wrote is lost (each of its lines is still in its file: a
//!   change that would have written over one is refused with a `CONFLICT` naming the file);
//! - the journal reads back whole in a new process (nothing set aside);
//! - without the outside program, `revert_changes` to 0 gives back the first tree byte for byte.
//!
//! CI runs a few seeds; `MCP_SUITE_RACE_SEEDS=N` runs N (docs/development.md, the campaign).

use std::{
    collections::BTreeMap,
    io::Write as _,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use mcp_tests::{StdioClient, error_code, is_error};
use serde_json::{Value, json};

use super::{BIN, journal::tree};

/// A small deterministic generator (xorshift64*), so that a seed replays a campaign's choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The files every campaign starts from: four edited in place (`f*`), two moved, deleted and
/// made again (`d*`).
fn start_tree(root: &Path) {
    for f in 0..4 {
        let text: String = (0..6).map(|i| format!("tok-{f}-{i}\n")).collect();
        std::fs::write(root.join(format!("f{f}.txt")), text).unwrap();
    }
    std::fs::write(root.join("d0.txt"), "d zero\n").unwrap();
}

enum Client {
    Stdio(StdioClient),
    Http(mcp_tests::http::HttpSession),
}

impl Client {
    fn call(&mut self, tool: &str, args: Value) -> Value {
        match self {
            Client::Stdio(c) => c.call_tool(tool, args).unwrap(),
            Client::Http(h) => h.call_tool(tool, &args).unwrap()["result"].clone(),
        }
    }
}

fn stdio(root: &Path, journal: &Path) -> StdioClient {
    let mut c = StdioClient::builder(BIN)
        .args(["--root", root.to_str().unwrap(), "--journal-dir", journal.to_str().unwrap(), "--no-fsync"])
        .timeout(Duration::from_secs(60))
        .spawn()
        .unwrap();
    c.initialize().unwrap();
    c
}

/// One client's random work: `ops` calls.
fn work(client: &mut Client, root: &Path, rng: &mut Rng, who: usize, ops: usize) {
    for n in 0..ops {
        let f = root.join(format!("f{}.txt", rng.below(4)));
        let d = |i: u64| format!("d{i}.txt");
        let result = match rng.below(10) {
            0..=3 => {
                // Replace one of the file's `tok-` lines, as read now (stale reads miss: fine).
                let text = std::fs::read_to_string(&f).unwrap_or_default();
                let toks: Vec<&str> = text.lines().filter(|l| l.starts_with("tok-")).collect();
                if toks.is_empty() {
                    continue;
                }
                let old = toks[rng.below(toks.len() as u64) as usize];
                let args = json!({"command": "str_replace", "path": f, "old_str": format!("{old}\n"), "new_str": format!("tok-w{who}n{n}\n")});
                client.call("text_editor", args)
            }
            4 => client.call("text_editor", json!({"command": "undo_edit", "path": f})),
            5 => client.call("move_file", json!({"source": d(rng.below(2)), "destination": d(rng.below(2))})),
            6 => client.call("delete_file", json!({"path": d(rng.below(2))})),
            7 => client.call(
                "text_editor",
                json!({"command": "create", "path": root.join(d(rng.below(2))), "file_text": format!("made by {who} at {n}\n")}),
            ),
            _ => {
                let listed = client.call("list_changes", json!({"paths": ["nothing"], "sessions": "all"}));
                let latest = listed["structuredContent"]["latest"].as_u64().unwrap_or(0);
                let to = latest.saturating_sub(rng.below(4));
                client.call("revert_changes", json!({"to": to, "sessions": "all", "force": rng.below(2) == 0}))
            }
        };
        if is_error(&result) {
            let code = error_code(&result).unwrap_or_default();
            assert!(
                ["CONFLICT", "NO_MATCH", "MULTIPLE_MATCHES", "NOT_FOUND", "ALREADY_EXISTS", "INVALID_ARGS"]
                    .contains(&code.as_str()),
                "an unexpected failure: {result}"
            );
        }
    }
}

/// Appends a line to `path` as an editor saving in place would: the file's advisory lock
/// taken, and the file opened again if it was replaced while waiting for it. `false` when
/// there is no such file.
fn append_locked(path: &Path, line: &str) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    loop {
        let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(path) else { return false };
        file.lock().unwrap();
        if file.metadata().unwrap().nlink() == 0 {
            continue;
        }
        file.write_all(line.as_bytes()).unwrap();
        return true;
    }
}

fn campaign(seed: u64, ops: usize, outside: bool) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, journal) = (base.join("root"), base.join("journal"));
    std::fs::create_dir(&root).unwrap();
    start_tree(&root);
    let before = tree(&root);
    let http = StdioClient::builder(BIN)
        .args(["--root", root.to_str().unwrap(), "--journal-dir", journal.to_str().unwrap(), "--no-fsync"])
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "warn,mcp_shared::transport::http=info")
        .spawn()
        .unwrap();
    let log = http.wait_for_stderr("/mcp").unwrap();
    let start = log.find("http://").unwrap();
    let url = log[start..start + log[start..].find("/mcp").unwrap() + "/mcp".len()].to_owned();
    let wait = Duration::from_secs(60);
    let clients = vec![
        Client::Stdio(stdio(&root, &journal)),
        Client::Stdio(stdio(&root, &journal)),
        Client::Http(mcp_tests::http::HttpSession::open(&url, None, wait).unwrap()),
        Client::Http(mcp_tests::http::HttpSession::open(&url, None, wait).unwrap()),
    ];
    let stop = Arc::new(AtomicBool::new(false));
    let writer = outside.then(|| {
        let (root, stop) = (root.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut rng = Rng(seed.wrapping_mul(31) | 1);
            let mut written: Vec<(PathBuf, String)> = Vec::new();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let path = root.join(format!("f{}.txt", rng.below(4)));
                let line = format!("outside-{n}\n");
                if append_locked(&path, &line) {
                    written.push((path, line));
                }
                n += 1;
                std::thread::sleep(Duration::from_millis(3));
            }
            written
        })
    });
    let workers: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(who, mut client)| {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut rng = Rng((seed ^ (who as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1);
                work(&mut client, &root, &mut rng, who, ops);
                client
            })
        })
        .collect();
    let mut clients: Vec<Client> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    stop.store(true, Ordering::Relaxed);
    if let Some(writer) = writer {
        let written = writer.join().unwrap();
        assert!(!written.is_empty());
        for (path, line) in &written {
            let text = std::fs::read_to_string(path).unwrap();
            if !text.contains(line.as_str()) {
                let mut fresh = stdio(&root, &journal);
                let history = fresh.call_tool("list_changes", json!({"sessions": "all", "paths": [path]})).unwrap();
                panic!(
                    "seed {seed}: {} lost {line:?}:\n{text}\nits changes:\n{}",
                    path.display(),
                    history["content"][0]["text"].as_str().unwrap_or_default()
                );
            }
        }
    }
    // The journal reads back whole in a new process.
    let mut fresh = stdio(&root, &journal);
    let listed = fresh.call_tool("list_changes", json!({"sessions": "all"})).unwrap();
    assert!(!is_error(&listed), "seed {seed}: {listed}");
    assert_eq!(listed["structuredContent"]["set_aside"], json!([]), "seed {seed}: {listed}");
    assert!(listed["structuredContent"]["transient"].is_null(), "seed {seed}: {listed}");
    if !outside {
        let reverted = fresh.call_tool("revert_changes", json!({"to": 0, "sessions": "all"})).unwrap();
        assert!(!is_error(&reverted), "seed {seed}: {reverted}");
        assert_eq!(tree(&root), before, "seed {seed}: the first tree, byte for byte");
    }
    drop(clients.drain(..));
    drop(http);
}

/// The seeds to run: `MCP_SUITE_RACE_SEEDS` of them (a campaign), else `default`.
fn seeds(default: u64) -> std::ops::Range<u64> {
    if let Some(one) = std::env::var("MCP_SUITE_RACE_SEED").ok().and_then(|s| s.parse().ok()) {
        return one..one + 1;
    }
    let n = std::env::var("MCP_SUITE_RACE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    1..n + 1
}

#[test]
#[cfg(unix)]
fn three_processes_and_an_outside_writer_lose_nothing() {
    for seed in seeds(2) {
        campaign(seed, 40, true);
    }
}

#[test]
#[cfg(unix)]
fn three_processes_reverted_to_zero_give_back_the_first_tree() {
    for seed in seeds(2) {
        campaign(seed + 1000, 40, false);
    }
}

#[allow(dead_code, reason = "kept for reading a failing campaign's tree")]
fn show(tree: &BTreeMap<PathBuf, Option<Vec<u8>>>) -> String {
    tree.iter().map(|(p, b)| format!("{}: {:?}\n", p.display(), b.as_deref().map(String::from_utf8_lossy))).collect()
}
