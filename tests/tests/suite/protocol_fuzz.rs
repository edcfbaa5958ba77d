//! A protocol fuzzer over the four real binaries, bounded in count (and so in time), run with
//! every `cargo test`: tool calls whose arguments are generated from each tool's own
//! `inputSchema` and then mutated (wrong types, missing and extra keys, hostile paths, odd
//! numbers and strings), interleaved with malformed frames (text that is not JSON, lone
//! surrogates, deep nesting, unusable ids, batches, unknown notifications). Checked after every
//! message: each stdout line is a JSON-RPC message, each request is answered exactly once, the
//! process stays alive; at the end, nothing outside the workspace changed.
//!
//! The generator is seeded (`MCP_FUZZ_SEED`, default fixed) and the count per server is
//! `MCP_FUZZ_CASES` (default 250), so a failure replays exactly.

use std::{
    collections::{BTreeMap, HashSet},
    path::Path,
    process::Command,
    time::{Duration, Instant},
};

use mcp_tests::rng::Rng;
use mcp_tests::{find_server_binary, raw::RawStdio};
use serde_json::{Map, Value, json};

const WAIT: Duration = Duration::from_secs(30);

/// Strings a model (or an attacker) might send where a path or a text goes.
const STRINGS: &[&str] = &[
    "a.txt",
    "sub/b.txt",
    "new.txt",
    "sub/",
    "a.txt/",
    ".",
    "",
    "..",
    "../outside/secret.txt",
    "/etc/passwd",
    "out/secret.txt",
    "out",
    "loop",
    "dangling",
    "drafts/post.md",
    "FILE:drafts/post.md",
    "../drafts/post.md",
    "C:\\Windows\\win.ini",
    "..\\outside\\secret.txt",
    "%2e%2e/outside/secret.txt",
    "~/secret",
    "a\u{0}b",
    "日本語.md",
    "e\u{301}.txt",
    "x\r\ny",
    "  ",
    "view",
    "create",
    "str_replace",
    "insert",
    "undo_edit",
    "calc",
    "2026-01",
    "../2026-01",
    "one\n",
    "\u{feff}bom",
    "\t",
];

fn random_string(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => "x".repeat(rng.below(70_000)),
        1 => (0..rng.below(20)).map(|_| char::from_u32(rng.below(0x3000) as u32).unwrap_or('?')).collect(),
        _ => (*rng.pick(STRINGS)).to_owned(),
    }
}

fn random_number(rng: &mut Rng) -> Value {
    let numbers = [
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(3),
        json!(1_000_000_000_000u64),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(0.5),
        json!(1e308),
        json!(-0.0),
    ];
    rng.pick(&numbers).clone()
}

/// Any JSON value, small.
fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 2 { 4 } else { 6 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => random_number(rng),
        3 => Value::String(random_string(rng)),
        4 => Value::Array((0..rng.below(4)).map(|_| random_value(rng, depth + 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(4) {
                map.insert(random_string(rng).chars().take(20).collect(), random_value(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// A value for `schema`, mutated now and then.
fn from_schema(rng: &mut Rng, schema: &Value, depth: usize) -> Value {
    if rng.chance(8) || depth > 4 {
        return random_value(rng, depth);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array).filter(|o| !o.is_empty()) {
            let option = rng.pick(options).clone();
            return from_schema(rng, &option, depth + 1);
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array).filter(|o| !o.is_empty()) {
        return rng.pick(options).clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => rng.pick(ts).as_str().unwrap_or("string").to_owned(),
        _ => return random_value(rng, depth),
    };
    match kind.as_str() {
        "string" => Value::String(random_string(rng)),
        "integer" | "number" => random_number(rng),
        "boolean" => Value::Bool(rng.chance(50)),
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array((0..rng.below(4)).map(|_| from_schema(rng, &items, depth + 1)).collect())
        }
        "object" => {
            let required: HashSet<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut map = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, property) in properties {
                    let wanted = if required.contains(name.as_str()) { !rng.chance(5) } else { rng.chance(50) };
                    if wanted {
                        map.insert(name.clone(), from_schema(rng, property, depth + 1));
                    }
                }
            }
            if rng.chance(10) {
                map.insert("unexpected".into(), random_value(rng, depth + 1));
            }
            Value::Object(map)
        }
        _ => Value::Null,
    }
}

/// What a frame must be answered with.
enum Expect {
    /// One answer under this id.
    Id(u64),
    /// One answer under `id: null`.
    Null,
    /// No answer.
    Nothing,
}

/// A malformed frame (as raw bytes) and its expected answer; `id` is free to use.
fn malformed(rng: &mut Rng, id: u64) -> (Vec<u8>, Expect) {
    match rng.below(9) {
        0 => (b"{not json".to_vec(), Expect::Null),
        1 => (
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x","arguments":{{"t":"\ud83d"}}}}}}"#)
                .into_bytes(),
            Expect::Id(id),
        ),
        2 => (
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{}{}}}"#, "[".repeat(300), "]".repeat(300))
                .into_bytes(),
            Expect::Id(id),
        ),
        3 => (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"n":1e999}}}}"#).into_bytes(), Expect::Id(id)),
        4 => (b"\xff\xfe{\"id\":\x80}".to_vec(), Expect::Null),
        5 => (br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#.to_vec(), Expect::Null),
        6 => (format!(r#"[{{"jsonrpc":"2.0","id":{id},"method":"ping"}}]"#).into_bytes(), Expect::Null),
        7 => (br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}"#.to_vec(), Expect::Nothing),
        _ => (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":7}}"#).into_bytes(), Expect::Id(id)),
    }
}

/// A directory tree with contents, to prove nothing changed.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
                out.insert(name, Vec::new());
            } else {
                out.insert(name, std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    out
}

struct Session {
    server: RawStdio,
    name: &'static str,
    answered: HashSet<u64>,
    lines: usize,
}

impl Session {
    /// Reads until the answer `expect` names arrives; every line read must be JSON-RPC, and no
    /// id may be answered twice.
    fn await_answer(&mut self, expect: &Expect, sent: &[u8]) {
        let shown = String::from_utf8_lossy(&sent[..sent.len().min(300)]).into_owned();
        if let Expect::Nothing = expect {
            return;
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let line = self
                .server
                .line(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|e| panic!("{}: no answer to {shown}: {e}", self.name));
            self.lines += 1;
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("{}: stdout line not JSON ({e}): {line}", self.name));
            assert_eq!(message["jsonrpc"], "2.0", "{}: {line}", self.name);
            if message.get("method").is_some() {
                assert!(message.get("id").is_none(), "{}: no requests to this client: {line}", self.name);
                continue;
            }
            assert!(message.get("result").is_some() != message.get("error").is_some(), "{}: {line}", self.name);
            match (&message["id"], expect) {
                (Value::Null, Expect::Null) => return,
                (Value::Number(n), _) => {
                    let n = n.as_u64().unwrap_or_else(|| panic!("{}: an id we never sent: {line}", self.name));
                    assert!(self.answered.insert(n), "{}: id {n} answered twice: {line}", self.name);
                    if matches!(expect, Expect::Id(want) if *want == n) {
                        return;
                    }
                }
                _ => panic!("{}: unexpected answer {line} while waiting for the answer to {shown}", self.name),
            }
        }
    }
}

fn fuzz_one(name: &'static str, command: Command, rng: &mut Rng, cases: usize) -> usize {
    let mut session = Session { server: RawStdio::start(command).unwrap(), name, answered: HashSet::new(), lines: 0 };
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}});
    session.server.send(&init.to_string()).unwrap();
    session.await_answer(&Expect::Id(0), b"initialize");
    session.server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
    session.server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).unwrap();
    // Notifications may come first (the IDE bridge's list_changed when its host connects).
    let listed = loop {
        let message: Value = serde_json::from_str(&session.server.line(WAIT).unwrap()).unwrap();
        if message["id"] == 1 {
            break message;
        }
        assert!(message.get("id").is_none(), "{name}: an answer to a request never sent: {message}");
        session.lines += 1;
    };
    let tools: Vec<Value> = listed["result"]["tools"].as_array().unwrap_or_else(|| panic!("{name}: {listed}")).clone();
    assert!(!tools.is_empty(), "{name}");
    for case in 0..cases {
        let id = 2 + case as u64;
        let (frame, expect) = if rng.chance(15) {
            malformed(rng, id)
        } else {
            let tool = rng.pick(&tools);
            let name_of = if rng.chance(3) { json!("no_such_tool") } else { tool["name"].clone() };
            let arguments = from_schema(rng, &tool["inputSchema"], 0);
            let call =
                json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name_of,"arguments":arguments}});
            (call.to_string().into_bytes(), Expect::Id(id))
        };
        session.server.send_bytes(&frame).unwrap();
        session.await_answer(&expect, &frame);
        assert!(session.server.alive(), "{name} died after {}", String::from_utf8_lossy(&frame));
    }
    // Nothing left over: the next answer is the last ping's.
    let last = 2 + cases as u64;
    session.server.send(&format!(r#"{{"jsonrpc":"2.0","id":{last},"method":"ping"}}"#)).unwrap();
    session.await_answer(&Expect::Id(last), b"ping");
    assert!(session.server.maybe_line(Duration::from_millis(200)).is_none(), "{name}: a stray line");
    session.lines
}

#[test]
fn generated_and_malformed_messages_are_each_answered_once_and_nothing_escapes() {
    let seed = std::env::var("MCP_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20_261_125u64);
    let cases = std::env::var("MCP_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(250usize);
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("root");
    let outside = base.join("outside");
    for d in [root.join("sub"), root.join("repo/drafts"), root.join("xdg/ide-bridge"), outside.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    use mcp_tests::os::symlink;
    mcp_tests::os::set_mode(root.join("xdg"), 0o700).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    std::fs::write(outside.join("secret.md"), "---\ntitle: secret\n---\n").unwrap();
    std::fs::write(root.join("a.txt"), "one\ntwo\r\nthree").unwrap();
    std::fs::write(root.join("sub/b.txt"), "b\n").unwrap();
    std::fs::write(root.join("drafts.md"), "---\ntitle: Draft\n---\nbody\n").unwrap();
    std::fs::create_dir_all(root.join("drafts")).unwrap();
    std::fs::write(root.join("drafts/post.md"), "---\ntitle: Post\n---\nbody\n").unwrap();
    symlink(&outside, root.join("out")).unwrap();
    symlink("loop", root.join("loop")).unwrap();
    symlink(outside.join("nope"), root.join("dangling")).unwrap();
    let before = snapshot(&outside);

    // The headless IDE host on the root, found by the bridge through the discovery directory.
    let mut host = Command::new(find_server_binary("ide-bridge-host").unwrap());
    host.arg("--root").arg(&root).args(["--port", "0"]).env("XDG_RUNTIME_DIR", root.join("xdg"));
    host.env_remove("IDE_BRIDGE_TOKEN").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    let mut host = host.spawn().unwrap();
    let deadline = Instant::now() + WAIT;
    while std::fs::read_dir(root.join("xdg/ide-bridge")).unwrap().next().is_none() {
        assert!(Instant::now() < deadline, "the host published no discovery file");
        std::thread::sleep(Duration::from_millis(20));
    }

    let mut rng = Rng(seed);
    let started = Instant::now();
    let mut total = 0;
    for name in ["mcp-server-sample-tool", "mcp-server-text-editor", "mcp-server-draft-post", "mcp-server-ide-bridge"] {
        let mut command = Command::new(find_server_binary(name).unwrap());
        command.current_dir(&root).env("XDG_RUNTIME_DIR", root.join("xdg")).env_remove("IDE_BRIDGE_TOKEN");
        match name {
            // `countdown` waits the seconds it is given: a short timeout bounds the run (and
            // exercises the TIMEOUT path).
            "mcp-server-sample-tool" => {
                command.args(["--tool-timeout", "0.2"]);
            }
            "mcp-server-text-editor" => {
                command.args(["--no-fsync", "--root"]).arg(&root);
            }
            "mcp-server-draft-post" => {
                command.arg("--repo").arg(root.join("repo")).arg("--source-root").arg(&root).arg("--no-fsync");
            }
            _ => {}
        }
        total += fuzz_one(name, command, &mut rng, cases);
    }
    let _ = host.kill();
    let _ = host.wait();
    assert_eq!(snapshot(&outside), before, "something outside the workspace changed");
    eprintln!("protocol fuzz: seed {seed}, {cases} cases x 4 servers, {total} lines read, {:?}", started.elapsed());
}
