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
4. What the change journal costs: a small durable `str_replace` (fsync on; median of EDITS,
   alternating) with the journal and without it (`--undo-depth 0`), and a restart on a journal of
   JOURNAL_CHANGES changes: `initialize` and the first call (which reads the journal) against a
   start on an empty one (medians of 10); and the server's RSS before and after it reads them.
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
EDITS = int(os.environ.get("EDITS", "1000"))
JOURNAL_CHANGES = int(os.environ.get("JOURNAL_CHANGES", "10000"))


class Stdio:
    def __init__(self, command, env=None):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
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


def journal_case(root):
    state = tempfile.mkdtemp(prefix="journal-state-")
    env = dict(os.environ, XDG_STATE_HOME=state)
    editor = os.path.join(BIN, "mcp-server-text-editor")
    work = os.path.join(root, "journal")
    os.makedirs(work)
    path = os.path.join(work, "small.py")
    for name in ("small.py", "other.py"):
        with open(os.path.join(work, name), "w") as f:
            f.write("".join(f"line {i}\n" for i in range(200)))
    with_journal = Stdio([editor, "--root", work], env)
    without = Stdio([editor, "--root", work, "--undo-depth", "0"], env)
    times = {"journal": [], "none": []}
    for i in range(EDITS):
        for label, server, target in (("journal", with_journal, path), ("none", without, os.path.join(work, "other.py"))):
            old, new = ("line 7\n", "LINE 7\n") if i % 2 == 0 else ("LINE 7\n", "line 7\n")
            started = time.perf_counter()
            server.call("text_editor", {"command": "str_replace", "path": target, "old_str": old, "new_str": new})
            times[label].append(time.perf_counter() - started)
    with_journal.close()
    without.close()
    j, n = statistics.median(times["journal"]), statistics.median(times["none"])
    print(f"a small durable str_replace (fsync on, median of {EDITS}): {j * 1000:.3f} ms with the journal, "
          f"{n * 1000:.3f} ms without (--undo-depth 0): {j / n:.2f}x")

    # A journal of JOURNAL_CHANGES changes (the edits above count), then restarts.
    server = Stdio([editor, "--root", work, "--no-fsync"], env)
    for i in range(JOURNAL_CHANGES - EDITS):
        old, new = ("line 9\n", "LINE 9\n") if i % 2 == 0 else ("LINE 9\n", "line 9\n")
        server.call("text_editor", {"command": "str_replace", "path": path, "old_str": old, "new_str": new})
    server.close()
    empty = os.path.join(root, "empty")
    os.makedirs(empty)
    with open(os.path.join(empty, "e.txt"), "w") as f:
        f.write("x\n")

    def start(on, target):
        started = time.perf_counter()
        s = Stdio([editor, "--root", on], env)
        init = time.perf_counter() - started
        s.call("text_editor", {"command": "str_replace", "path": target, "old_str": "x" if on == empty else "line 3\n", "new_str": "y" if on == empty else "LINE 3\n"})
        first = time.perf_counter() - started
        s.call("text_editor", {"command": "undo_edit", "path": target})
        s.close()
        return init, first

    full, fresh = [], []
    for _ in range(10):
        full.append(start(work, path))
        fresh.append(start(empty, os.path.join(empty, "e.txt")))
    fi, ff = statistics.median(x for x, _ in full), statistics.median(y for _, y in full)
    ei, ef = statistics.median(x for x, _ in fresh), statistics.median(y for _, y in fresh)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(state) for f in fs)

    def rss(s):
        with open(f"/proc/{s.proc.pid}/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024

    s = Stdio([editor, "--root", work], env)
    idle = rss(s)
    s.call("text_editor", {"command": "str_replace", "path": path, "old_str": "line 3\n", "new_str": "LINE 3\n"})
    loaded = rss(s)
    s.call("text_editor", {"command": "undo_edit", "path": path})
    s.close()
    print(f"the journal's index in memory: RSS {idle:.1f} MiB idle after the restart, {loaded:.1f} MiB once the {JOURNAL_CHANGES} changes are read")
    print(f"a restart on a journal of {JOURNAL_CHANGES} changes ({size / 1e6:.1f} MB): initialize answered in {fi * 1000:.1f} ms "
          f"({fi / ei:.2f}x a start on an empty journal, {ei * 1000:.1f} ms); the first edit done {ff * 1000:.1f} ms after the start "
          f"(it reads the journal; {ef * 1000:.1f} ms on an empty one) (medians of 10)")
    shutil.rmtree(state)


def main():
    with tempfile.TemporaryDirectory() as root:
        root = os.path.realpath(root)
        if os.environ.get("ONLY") != "journal":
            edits_case(root)
            tail_case(root)
            tools_list_case(root)
        journal_case(root)


if __name__ == "__main__":
    main()
