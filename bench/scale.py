#!/usr/bin/env python3
"""bench/scale.py: the text editor at scale, on the release binary, in one run.

    cargo build --release -p mcp-server-text-editor -p mcp-server-draft-post -p mcp-server-sample-tool -p mcp-server-ide-bridge
    python3 bench/scale.py                 # BIN_DIR=target/release, LOG_MB=435

1. One `edit_file` call with 50 edits against 50 `str_replace` calls on the same file: wall time
   (median of ROUNDS) and writes (the file's inode changes: every write is an atomic rename).
2. The last 20 lines of a LOG_MB log: `tail -n 20` against `view_range [-20, -1]`, the first
   call (which counts the lines) and warm calls (median of 20), in one run.
3. What each server's `tools/list` costs a model on every turn: description + input schema, in
   characters and approximate tokens (characters / 4), beside the reference filesystem server
   (`npx @modelcontextprotocol/server-filesystem`, when npm can fetch it).
"""

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

BIN = os.path.abspath(os.environ.get("BIN_DIR", "target/release"))
LOG_MB = int(os.environ.get("LOG_MB", "435"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))


class Stdio:
    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "scale", "version": "1"}})
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
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        assert not answer["result"].get("isError"), answer
        return answer["result"]["content"][0]["text"]

    def close(self):
        self.proc.kill()
        self.proc.wait()


def edits_case(root):
    path = os.path.join(root, "many.py")
    body = "".join(f"def function_{i}(x):\n    return x + {i}\n\n" for i in range(50))
    server = Stdio([os.path.join(BIN, "mcp-server-text-editor"), "--root", root, "--undo-depth", "64"])
    one, many, writes = [], [], {}
    for _ in range(ROUNDS):
        for label, times in (("edit_file", one), ("str_replace", many)):
            with open(path, "w") as f:
                f.write(body)
            started = time.perf_counter()
            if label == "edit_file":
                edits = [{"old_str": f"return x + {i}\n", "new_str": f"return x * {i}\n"} for i in range(50)]
                server.call("edit_file", {"path": path, "edits": edits})
            else:
                for i in range(50):
                    server.call("text_editor", {"command": "str_replace", "path": path, "old_str": f"return x + {i}\n", "new_str": f"return x * {i}\n"})
            times.append(time.perf_counter() - started)
            # Writes, counted as the undo steps that bring the original back (one per write).
            steps = 0
            while open(path).read() != body:
                server.call("text_editor", {"command": "undo_edit", "path": path})
                steps += 1
            writes[label] = steps
    server.close()
    a, b = statistics.median(one), statistics.median(many)
    print(f"50 edits of one file: edit_file {a * 1000:.1f} ms, {writes['edit_file']} write; "
          f"50 str_replace {b * 1000:.1f} ms, {writes['str_replace']} writes; ratio {b / a:.1f}x (median of {ROUNDS}; "
          f"writes counted as the undo steps back to the original)")


def tail_case(root):
    path = os.path.join(root, "app.log")
    line = b"2026-11-28T09:00:00.000Z INFO request served path=/api/items status=200 took=3ms\n"
    with open(path, "wb") as f:
        chunk = line * (1 << 14)
        while f.tell() < LOG_MB * 1024 * 1024:
            f.write(chunk)
    tails = []
    for _ in range(20):
        started = time.perf_counter()
        subprocess.run(["tail", "-n", "20", path], stdout=subprocess.DEVNULL, check=True)
        tails.append(time.perf_counter() - started)
    server = Stdio([os.path.join(BIN, "mcp-server-text-editor"), "--root", root])
    started = time.perf_counter()
    first_text = server.call("text_editor", {"command": "view", "path": path, "view_range": [-20, -1]})
    first = time.perf_counter() - started
    warm = []
    for _ in range(20):
        started = time.perf_counter()
        server.call("text_editor", {"command": "view", "path": path, "view_range": [-20, -1]})
        warm.append(time.perf_counter() - started)
    server.close()
    last = first_text.rstrip("\n").splitlines()[-2].split("\t")[0].strip()
    t, w = statistics.median(tails), statistics.median(warm)
    print(f"last 20 lines of a {os.path.getsize(path) / 1e6:.0f} MB log (to line {last}): tail -n 20 {t * 1000:.2f} ms; "
          f"view_range [-20, -1] first call {first * 1000:.1f} ms (counts the lines), then {w * 1000:.2f} ms "
          f"({w / t:.2f}x tail, medians of 20)")
    os.remove(path)


def tools_list(command):
    server = Stdio(command)
    tools = server.request("tools/list", {})["result"]["tools"]
    server.close()
    rows = []
    for tool in tools:
        chars = len(tool.get("description", "")) + len(json.dumps(tool["inputSchema"], separators=(",", ":")))
        rows.append((tool["name"], chars))
    return rows


def tools_list_case(root):
    servers = [
        ("mcp-server-text-editor", [os.path.join(BIN, "mcp-server-text-editor"), "--root", root]),
        ("mcp-server-text-editor --tools text_editor", [os.path.join(BIN, "mcp-server-text-editor"), "--root", root, "--tools", "text_editor"]),
        ("mcp-server-draft-post", [os.path.join(BIN, "mcp-server-draft-post"), "--repo", root]),
        ("mcp-server-sample-tool", [os.path.join(BIN, "mcp-server-sample-tool")]),
        ("mcp-server-ide-bridge", [os.path.join(BIN, "mcp-server-ide-bridge"), "--url", "ws://127.0.0.1:9", "--token", "t"]),
    ]
    if shutil.which("npx"):
        servers.append(("@modelcontextprotocol/server-filesystem (npx)", ["npx", "-y", "@modelcontextprotocol/server-filesystem", root]))
    for name, command in servers:
        if not os.path.exists(command[0]) and command[0] != "npx":
            print(f"tools/list of {name}: not built")
            continue
        try:
            rows = tools_list(command)
        except Exception as error:  # a peer that cannot be fetched here
            print(f"tools/list of {name}: not measured ({error})")
            continue
        total = sum(chars for _, chars in rows)
        detail = ", ".join(f"{tool} {chars}" for tool, chars in rows)
        print(f"tools/list of {name}: {len(rows)} tools, {total} characters (~{total // 4} tokens): {detail}")


def main():
    with tempfile.TemporaryDirectory() as root:
        root = os.path.realpath(root)
        edits_case(root)
        tail_case(root)
        tools_list_case(root)


if __name__ == "__main__":
    main()
