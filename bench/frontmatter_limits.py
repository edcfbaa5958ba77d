#!/usr/bin/env python3
"""bench/frontmatter_limits.py: what one hostile manuscript costs mcp-server-draft-post.

    python3 bench/frontmatter_limits.py [--binary target/release/mcp-server-draft-post]

In a fresh repository, through a real stdio session, one run:
1. `draft_post` of manuscripts whose frontmatter has 10,000 and 104,000 short keys (the second
   ~1 MB, under the manuscript size limit) and of a 9-level YAML bomb: the answer, its time, and
   the server's RSS after it (VmHWM, the peak, and VmRSS).
2. An article with a 104,000-key frontmatter already in `projects/` (filed by hand or by an
   older version): the time of the next unrelated `draft_post` (a 3-line manuscript) and of a
   fresh process's first call (spawn -> `initialize` -> `list_posts` answered).

Only the standard library.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def b36(i):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        out = digits[i % 36] + out
        i //= 36
        if i == 0:
            return out


def many_keys(n, extra=""):
    return "---\n" + extra + "title: many\n" + "".join(f"k{b36(i)}: 1\n" for i in range(n)) + "---\nbody\n"


def bomb():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 10):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


class Server:
    def __init__(self, binary, repo, cwd):
        self.proc = subprocess.Popen(
            [binary, "--repo", repo, "--no-fsync"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next = 0

    def call(self, method, params):
        self.next += 1
        msg = {"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            line = json.loads(self.proc.stdout.readline())
            if line.get("id") == self.next:
                return line

    def initialize(self):
        self.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})

    def tool(self, name, args):
        t0 = time.perf_counter()
        answer = self.call("tools/call", {"name": name, "arguments": args})
        return answer["result"], (time.perf_counter() - t0) * 1000

    def memory(self):
        fields = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    fields[key] = int(value.split()[0]) / 1024
        return fields

    def close(self):
        self.proc.kill()
        self.proc.wait()


def outcome(result):
    error = (result.get("structuredContent") or {}).get("error")
    if error:
        return f"{error['code']}: {error['message'][:110]}..."
    return (result.get("structuredContent") or {}).get("action", "?")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/mcp-server-draft-post"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        drafts = os.path.join(tmp, "drafts")
        os.makedirs(repo)
        os.makedirs(drafts)
        files = {
            "k10000.md": many_keys(10_000),
            "k104000.md": many_keys(104_000),
            "bomb.md": bomb(),
            "small.md": "---\ntitle: Small\n---\nbody\n",
            "other.md": "---\ntitle: Other\n---\nbody\n",
        }
        for name, text in files.items():
            with open(os.path.join(drafts, name), "w") as f:
                f.write(text)
        server = Server(args.binary, repo, tmp)
        server.initialize()
        result, ms = server.tool("draft_post", {"source": "drafts/small.md", "project": "2026-01"})
        print(f"baseline: a 3-line manuscript filed in {ms:.2f} ms ({outcome(result)}); RSS {server.memory()}")
        for name in ["k10000.md", "k104000.md", "bomb.md"]:
            size = os.path.getsize(os.path.join(drafts, name))
            result, ms = server.tool("draft_post", {"source": f"drafts/{name}", "project": "2026-01"})
            mem = server.memory()
            print(f"{name} ({size / 1024:.0f} KiB): {ms:.2f} ms -> {outcome(result)}; "
                  f"RSS peak {mem['VmHWM']:.1f} MiB, now {mem['VmRSS']:.1f} MiB")
        # An article with a huge frontmatter already in the repository.
        planted = os.path.join(repo, "projects", "2026-01", "07-huge")
        os.makedirs(planted)
        with open(os.path.join(planted, "article.md"), "w") as f:
            f.write(many_keys(104_000, "source_id: 0123456789abcdef\n"))
        result, ms = server.tool("draft_post", {"source": "drafts/other.md", "project": "2026-01"})
        print(f"with a 104,000-key article in projects/: next unrelated draft_post {ms:.2f} ms ({outcome(result)})")
        result, ms = server.tool("draft_post", {"source": "drafts/other.md", "project": "2026-01"})
        print(f"  and again (unchanged): {ms:.2f} ms ({outcome(result)})")
        server.close()
        t0 = time.perf_counter()
        fresh = Server(args.binary, repo, tmp)
        fresh.initialize()
        result, _ = fresh.tool("list_posts", {"project": "2026-01"})
        ms = (time.perf_counter() - t0) * 1000
        warnings = len((result.get("structuredContent") or {}).get("warnings", []))
        print(f"  a fresh process: spawn -> initialize -> list_posts answered in {ms:.1f} ms ({warnings} warning)")
        fresh.close()


if __name__ == "__main__":
    sys.exit(main())
