#!/usr/bin/env python3
"""bench/platforms.py: size and cold start of each platform's binaries, as ratios to x86_64.

    python3 bench/platforms.py [--out dist/out/mcp-suite-VERSION] [--runs 20]

For every server binary that dist/build.sh made under OUT/bin/<target>/: its size, and its cold
start (spawn -> `initialize` answered, the median of RUNS alternating runs) natively
(x86_64-unknown-linux-gnu), under qemu-aarch64 (aarch64-unknown-linux-gnu) and under wine
(x86_64-pc-windows-gnu), each as a ratio to the x86_64 figure of the same run. The emulated
figures measure the emulator as much as the binary: they say that a binary starts and how much
an emulated run costs here, not how fast it is on real arm64 or Windows hardware.

Run it inside the root of dist/toolchain.sh, which has qemu and wine (a wine process is started
there once first, so that creating the prefix is not measured):

    bash dist/toolchain.sh exec python3 bench/platforms.py

Only the standard library.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNERS = {
    "x86_64-unknown-linux-gnu": ([], ""),
    "aarch64-unknown-linux-gnu": (["qemu-aarch64"], ""),
    "x86_64-pc-windows-gnu": (["wine"], ".exe"),
}
SERVERS = {
    "mcp-server-sample-tool": [],
    "mcp-server-text-editor": ["--root", "."],
    "mcp-server-draft-post": ["--repo", "."],
}
INIT = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}},
        }
    )
    + "\n"
).encode()


def cold_start(argv, cwd):
    """Seconds from spawn to the `initialize` answer; the process is then closed."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    proc.stdin.write(INIT)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - t0
    proc.stdin.close()
    proc.wait(timeout=60)
    if b'"result"' not in line:
        raise SystemExit(f"{argv}: no initialize result: {line[:200]!r}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    outs = sorted(glob.glob(os.path.join(ROOT, "dist", "out", "mcp-suite-*")))
    parser.add_argument("--out", default=outs[-1] if outs else None)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if not args.out:
        sys.exit("no dist/out/mcp-suite-*: run dist/build.sh first")
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=os.environ.get("WINEPREFIX", "/root/.wine-mcp-suite"))
    os.environ.update(env)
    subprocess.run(["wine", "cmd", "/c", "exit"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    work = os.path.join(ROOT, "target", "bench-platforms")
    os.makedirs(work, exist_ok=True)
    targets = [t for t in RUNNERS if os.path.isdir(os.path.join(args.out, "bin", t))]
    results = {}
    for server, flags in SERVERS.items():
        runs = {t: [] for t in targets}
        for _ in range(args.runs):
            for target in targets:
                runner, ext = RUNNERS[target]
                binary = os.path.join(args.out, "bin", target, server + ext)
                runs[target].append(cold_start(runner + [binary] + flags, work))
        base = statistics.median(runs["x86_64-unknown-linux-gnu"])
        for target in targets:
            runner, ext = RUNNERS[target]
            size = os.path.getsize(os.path.join(args.out, "bin", target, server + ext))
            median = statistics.median(runs[target])
            results.setdefault(server, {})[target] = {"bytes": size, "cold_start_ms": round(median * 1000, 2)}
            print(
                f"{server:24} {target:28} {size / 1e6:5.1f} MB  cold start {median * 1000:8.2f} ms"
                f"  {median / base:6.1f}x x86_64 ({' '.join(runner) or 'native'})"
            )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
