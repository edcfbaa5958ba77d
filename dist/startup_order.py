#!/usr/bin/env python3
"""dist/startup_order.py: the link order of a server's start, for the linker.

A server's stdio start (exec -> `initialize` answered) and a first session (`tools/list`, a tool
call that works, one that fails) run about 1 MB of the binary's 8 MB of code. The linker places
functions crate by crate, so that 1 MB is spread over the whole text segment, and every page
fault on it maps the 64 KB around it (the kernel's fault-around): measured on the sample tool,
5.8 MiB of its 6.4 MiB idle RSS was code, from ~90 scattered faults. Placed first and together,
in the order the start runs them (lld's --symbol-ordering-file), the same work touches ~1 MB of
contiguous code: fewer page faults before the first answer, and less memory at rest.

This script records which functions run: it serves one session to the (unstripped) binary under
valgrind's lackey tool (`--trace-superblocks`: the address of every block of code as it is first
and then again executed), maps the addresses to the binary's function symbols (`nm`) and writes
their names, first run first, one per line: the symbol ordering file. A name the final link does
not have is skipped by the linker, so an order is never wrong, only less effective.

    python3 dist/startup_order.py BINARY OUT_FILE
    python3 dist/startup_order.py --check LINKED_BINARY ORDER_FILE

The second form checks that a link took the order: the ordered functions must all be in the
linked (still unstripped) binary and lie together, in an address span close to their total size.

BINARY's file name (mcp-server-sample-tool, ...) selects the session below; a binary with none
(ide-bridge-host, which is not a stdio server) is an error, exit 2. Needs valgrind and nm.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "startup-order", "version": "1"},
}


def sessions(work: Path) -> dict[str, tuple[list[str], list[dict]]]:
    """Per binary: its arguments and the tool calls of a typical first session (each a
    `tools/call` params object); initialize, initialized and tools/list come first for all."""
    (work / "root").mkdir()
    (work / "root" / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (work / "repo").mkdir()
    return {
        "mcp-server-sample-tool": (
            [],
            [
                {"name": "hoge", "arguments": {"action": "calc", "args": {"x": 1, "y": 2}}},
                {"name": "hoge", "arguments": {}},
            ],
        ),
        "mcp-server-text-editor": (
            ["--root", str(work / "root")],
            [
                {"name": "text_editor", "arguments": {"command": "view", "path": "notes.txt"}},
                {
                    "name": "text_editor",
                    "arguments": {"command": "str_replace", "path": "notes.txt", "old_str": "beta", "new_str": "delta"},
                },
                {"name": "text_editor", "arguments": {"command": "view", "path": "../outside"}},
            ],
        ),
        "mcp-server-draft-post": (
            ["--repo", str(work / "repo")],
            [
                {"name": "draft_post", "arguments": {}},
            ],
        ),
        "mcp-server-ide-bridge": (
            ["--workspace", str(work / "root")],
            [
                {"name": "list_files", "arguments": {"path": "."}},
            ],
        ),
    }


def run_session(binary: Path, args: list[str], calls: list[dict], trace: Path, env: dict[str, str], stderr: Path) -> None:
    """Serves the session to `binary` under lackey, one message at a time (each answer read
    before the next request), stdout a pipe as with a real client; then closes stdin. The
    server's stderr (its log) goes to `stderr`, shown if the session fails."""
    command = [
        "valgrind",
        "--tool=lackey",
        "--trace-superblocks=yes",
        f"--log-file={trace}",
        str(binary),
        *args,
    ]
    with stderr.open("wb") as log:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    # A server that stops answering must fail the build, not hang it: killed after 5 minutes
    # (the session takes seconds under valgrind), its stdout then ends.
    watchdog = threading.Timer(300, proc.kill)
    watchdog.start()
    messages: list[dict] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    messages += [{"jsonrpc": "2.0", "id": 3 + i, "method": "tools/call", "params": c} for i, c in enumerate(calls)]
    messages.append({"jsonrpc": "2.0", "id": 100, "method": "ping"})
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
            if "id" not in message:
                continue
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise SystemExit(f"startup_order.py: {binary.name} closed stdout before answering {message['method']}")
                answer = json.loads(line)
                if answer.get("id") == message["id"]:
                    if "error" in answer:
                        raise SystemExit(f"startup_order.py: {binary.name} answered {message['method']} with {answer['error']}")
                    break
        proc.stdin.close()
        proc.stdout.read()
        if proc.wait(timeout=120) != 0:
            raise SystemExit(f"startup_order.py: {binary.name} under valgrind exited with {proc.returncode}")
    except BaseException:
        sys.stderr.write(stderr.read_text(errors="replace"))
        raise
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def function_symbols(binary: Path) -> list[tuple[int, int, str]]:
    """(address, size, name) of every function symbol, by address."""
    out = subprocess.run(["nm", "-n", "-S", "--defined-only", str(binary)], capture_output=True, text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in ("t", "T", "w", "W"):
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    if not symbols:
        raise SystemExit(f"startup_order.py: {binary} has no function symbols (stripped?)")
    return symbols


# glibc picks its string functions at start by the CPU (ifuncs: __memmove_avx512_unaligned_erms,
# __strlen_evex, ...), and valgrind's virtual CPU has no AVX-512: the trace names the AVX2
# variants where this machine, or the user's, runs others. Each traced variant brings its
# siblings along, right after it.
IFUNC_VARIANT = re.compile(r"^(__[a-z0-9]+)_(?:sse2|ssse3|sse4_1|sse4_2|avx|avx2|avx512|evex|erms)")


def order(symbols: list[tuple[int, int, str]], trace: Path) -> tuple[list[str], int]:
    """The functions the trace ran, first run first (each glibc ifunc variant followed by its
    siblings), and their total size in bytes."""
    starts = [s[0] for s in symbols]
    siblings: dict[str, list[tuple[int, int, str]]] = {}
    for symbol in symbols:
        family = IFUNC_VARIANT.match(symbol[2])
        if family:
            siblings.setdefault(family.group(1), []).append(symbol)
    seen: set[str] = set()
    names: list[str] = []
    size = 0
    with trace.open() as f:
        for line in f:
            if not line.startswith("SB "):
                continue
            address = int(line[3:], 16)
            i = bisect.bisect_right(starts, address) - 1
            if i < 0 or address >= symbols[i][0] + max(symbols[i][1], 1):
                continue  # not in a sized function symbol (valgrind's own code, the vDSO)
            name = symbols[i][2]
            if name in seen:
                continue
            family = IFUNC_VARIANT.match(name)
            for _, length, member in [symbols[i]] + (siblings.get(family.group(1), []) if family else []):
                if member not in seen:
                    seen.add(member)
                    names.append(member)
                    size += length
    return names, size


def check(binary: Path, order_file: Path) -> int:
    """Fails (exit 1) unless the functions of `order_file` lie together in `binary`."""
    wanted = [n for n in order_file.read_text().splitlines() if n]
    by_name: dict[str, tuple[int, int]] = {}
    for address, size, name in function_symbols(binary):
        by_name.setdefault(name, (address, size))
    found = [by_name[n] for n in wanted if n in by_name]
    if len(found) < 0.95 * len(wanted):
        print(f"startup_order.py: {binary.name} has {len(found)} of the {len(wanted)} ordered functions", file=sys.stderr)
        return 1
    total = sum(size for _, size in found)
    span = max(a + s for a, s in found) - min(a for a, _ in found)
    print(
        f"startup_order.py: {binary.name}: {len(found)} ordered functions, {total / 1024:.0f} KiB, "
        f"within {span / 1024:.0f} KiB of code",
        file=sys.stderr,
    )
    # Whole object files move with a libc function (libc.a's objects are not split per function),
    # and alignment pads each function: some slack, but a link that ignored the order spreads
    # them over the whole text segment (8+ MB).
    if span > 1.3 * total + 64 * 1024:
        print(f"startup_order.py: {binary.name}: the link did not take the order", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        return check(Path(sys.argv[2]), Path(sys.argv[3]))
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="startup-order.") as tmp:
        work = Path(tmp)
        table = sessions(work)
        if binary.name not in table:
            print(f"startup_order.py: no session for {binary.name}", file=sys.stderr)
            return 2
        args, calls = table[binary.name]
        (work / "xdg").mkdir()
        # As a client starts it: no RUST_LOG (the default filter is its own code path).
        env = {k: v for k, v in os.environ.items() if k != "RUST_LOG"}
        env["XDG_RUNTIME_DIR"] = str(work / "xdg")
        trace = work / "lackey.txt"
        run_session(binary, args, calls, trace, env, work / "stderr.txt")
        names, size = order(function_symbols(binary), trace)
    if len(names) < 100:
        raise SystemExit(f"startup_order.py: only {len(names)} functions ran in {binary.name}'s session: not a real trace")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(names) + "\n")
    print(f"startup_order.py: {binary.name}: {len(names)} functions, {size / 1024:.0f} KiB, in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
