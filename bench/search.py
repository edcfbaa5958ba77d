#!/usr/bin/env python3
"""bench/search.py: `search_text` through MCP against ripgrep itself, on a large real tree.

    python3 bench/search.py [--tree DIR] [--binary target/release/mcp-server-text-editor] [--runs 5]

The tree defaults to the crate sources cargo downloaded for this workspace
(~/.cargo/registry/src/*/). For each pattern, one run measures, alternating:
- `rg -n --no-heading --no-require-git PATTERN TREE` (ripgrep honours .gitignore outside a git
  repository only with --no-require-git, which is what search_text does), wall time of the
  process;
- `search_text {pattern}` as a `tools/call` in a running stdio session of
  mcp-server-text-editor --root TREE (request written -> answer read), the same tree.
It checks that both find the same number of matching lines and files (search_text shows the
first 1000 and counts the rest; each shown line must be one of rg's), and prints the medians and
their ratio. Needs Debian's `ripgrep`.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATTERNS = [
    ("literal", {"pattern": "unsafe impl", "literal": True}, ["-F", "unsafe impl"]),
    ("regex", {"pattern": r"fn\s+new\(\s*\)"}, [r"fn\s+new\(\s*\)"]),
    ("ignore_case", {"pattern": "deprecated", "ignore_case": True}, ["-i", "deprecated"]),
    ("rare", {"pattern": "xyzzy_not_there_42"}, ["xyzzy_not_there_42"]),
]


class Session:
    def __init__(self, binary, tree):
        self.proc = subprocess.Popen([binary, "--root", tree], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})

    def request(self, method, params):
        self.next += 1
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method,
                                           "params": params}) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("id") == self.next:
                return message

    def search(self, args):
        t0 = time.perf_counter()
        answer = self.request("tools/call", {"name": "search_text", "arguments": dict(args, limit=1000)})
        return time.perf_counter() - t0, answer["result"]["content"][0]["text"]

    def close(self):
        self.proc.kill()
        self.proc.wait()


def ours_counts(text):
    lines = [l for l in text.splitlines() if l and not l.startswith("[") and not l.startswith("No matches")]
    m = re.search(r"(\d+) matching lines in (\d+) files in all", text)
    if m:
        return int(m.group(1)), int(m.group(2)), lines
    return len(lines), len({l.split(":", 1)[0] for l in lines}), lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", default=(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/")) or ["."])[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/mcp-server-text-editor"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tree = os.path.realpath(args.tree)
    files = sum(len(f) for _, _, f in os.walk(tree))
    print(f"tree: {tree} ({files} files); ripgrep: {subprocess.run(['rg', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
    session = Session(args.binary, tree)
    worst = 0.0
    ok = True
    for name, ours_args, rg_args in PATTERNS:
        rg_times, our_times = [], []
        rg_out = our_text = None
        for _ in range(args.runs):
            t0 = time.perf_counter()
            rg = subprocess.run(["rg", "-n", "--no-heading", "--no-require-git", *rg_args, tree], capture_output=True)
            rg_times.append(time.perf_counter() - t0)
            rg_out = rg.stdout.decode("utf-8", "replace")
            seconds, our_text = session.search(ours_args)
            our_times.append(seconds)
        rg_lines = set(rg_out.splitlines())
        rg_files = {l.split(":", 1)[0] for l in rg_lines}
        matches, matched_files, shown = ours_counts(our_text)
        foreign = [l for l in shown if l.replace("\u00e9", "\u00e9") not in rg_lines]
        same = matches == len(rg_lines) and matched_files == len(rg_files)
        ok &= same
        rg_ms, our_ms = statistics.median(rg_times) * 1000, statistics.median(our_times) * 1000
        ratio = our_ms / rg_ms if rg_ms else float("inf")
        worst = max(worst, ratio)
        print(f"{name:12} rg {len(rg_lines):6} lines in {len(rg_files):5} files, {rg_ms:7.1f} ms | "
              f"search_text {matches:6} lines in {matched_files:5} files, {our_ms:7.1f} ms | "
              f"{ratio:.2f}x | {'same matches' if same else 'DIFFERENT'}"
              + (f" ({len(foreign)} shown lines not in rg's output, e.g. {foreign[:1]})" if foreign else ""))
    session.close()
    print(f"worst ratio {worst:.2f}x (target: within 1.5x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
