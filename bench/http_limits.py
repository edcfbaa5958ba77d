#!/usr/bin/env python3
"""bench/http_limits.py: hostile HTTP clients against an mcp-suite server, on loopback, bounded.

    python3 bench/http_limits.py [--binary target/release/mcp-server-sample-tool]

1. slowloris: the server started under `ulimit -n 1024` (soft and hard) with its default flags;
   1,100 connections each send half a request head and then nothing, and are held open; a
   legitimate client must still initialize and call `hoge` (timed), while the half-open
   connections are still held.
2. session flood: 10,000 `initialize` calls that never send `DELETE` (default flags): how many
   were accepted (at the cap each takes the place of the least recently used idle session that
   never got past `initialize`), how many got 503, the server's RSS before and after, whether
   the first session still works and whether a client that comes afterwards is served.
3. cost of an idle session: with `--max-sessions 20000`, the RSS growth per 1,000 abandoned
   sessions.

Only the standard library. Prints one line per figure and a JSON summary at the end.
"""

import argparse
import json
import os
import re
import resource
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}},
    }
)
CALL = json.dumps(
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hoge", "arguments": {"action": "calc", "args": {"x": 1, "y": 2}}}}
)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start(binary, args, nofile=None):
    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    proc = subprocess.Popen(
        [binary, "--http", "127.0.0.1:0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "RUST_LOG": "warn,mcp_shared::transport::http=info"},
        preexec_fn=limit,
    )
    deadline = time.time() + 20
    text = ""
    while time.time() < deadline:
        line = proc.stderr.readline().decode(errors="replace")
        text += line
        m = re.search(r"http://([0-9.]+:[0-9]+)/mcp", line)
        if m:
            host, port = m.group(1).split(":")
            return proc, (host, int(port))
    proc.kill()
    sys.exit(f"the server did not start:\n{text}")


def request(addr, body, session=None, keep=None, timeout=20):
    """One POST on a new (or the given) connection; (status, headers dict, body text)."""
    sock = keep or socket.create_connection(addr, timeout=timeout)
    sock.settimeout(timeout)
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {addr[0]}:{addr[1]}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
    )
    if session:
        head += f"Mcp-Session-Id: {session}\r\n"
    if keep is None:
        head += "Connection: close\r\n"
    sock.sendall((head + "\r\n" + body).encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head_text, _, rest = data.partition(b"\r\n\r\n")
    lines = head_text.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
    # read the body: until a JSON-RPC message with an id appears, or the end
    body_bytes = rest
    while b'"id"' not in body_bytes and b"\r\n0\r\n" not in body_bytes:
        if "content-length" in headers and len(body_bytes) >= int(headers["content-length"]):
            break
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        body_bytes += chunk
    if keep is None:
        sock.close()
    return status, headers, body_bytes.decode(errors="replace")


def open_session(addr):
    status, headers, body = request(addr, INIT)
    if status != 200:
        return status, None
    session = headers.get("mcp-session-id")
    request(addr, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), session)
    return status, session


def call_ok(addr, session):
    status, _, body = request(addr, CALL, session)
    return status == 200 and '"value":3' in body.replace(" ", "")


def slowloris(binary, held=1100, nofile=1024):
    proc, addr = start(binary, [], nofile=nofile)
    try:
        conns, refused = [], 0
        for _ in range(held):
            try:
                s = socket.create_connection(addr, timeout=5)
                s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
                conns.append(s)
            except OSError:
                refused += 1
        t0 = time.perf_counter()
        status, session = open_session(addr)
        ok = status == 200 and call_ok(addr, session)
        elapsed = (time.perf_counter() - t0) * 1000
        still_open = 0
        for s in conns:
            s.setblocking(False)
            try:
                still_open += 1 if s.recv(1) else 0
            except BlockingIOError:
                still_open += 1
            except OSError:
                pass
        for s in conns:
            s.close()
        print(
            f"slowloris: ulimit -n {nofile}, {held} half-open connections opened ({refused} refused by the OS), "
            f"{still_open} still held by the attacker; legitimate initialize + call: {'served' if ok else 'FAILED'} "
            f"in {elapsed:.1f} ms"
        )
        return {"held": held, "nofile": nofile, "still_open": still_open, "served": ok, "ms": elapsed}
    finally:
        proc.kill()
        proc.wait()


def flood(binary, sessions=10_000, args=()):
    proc, addr = start(binary, list(args))
    try:
        status, first = open_session(addr)
        assert status == 200, status
        before = rss_kib(proc.pid)
        accepted = refused = other = 0
        retry_after = None
        t0 = time.perf_counter()
        for _ in range(sessions):
            status, headers, _ = request(addr, INIT)
            if status == 200:
                accepted += 1
            elif status == 503:
                refused += 1
                retry_after = headers.get("retry-after")
            else:
                other += 1
        seconds = time.perf_counter() - t0
        time.sleep(0.5)
        after = rss_kib(proc.pid)
        works = call_ok(addr, first)
        status, late = open_session(addr)
        newcomer = status == 200 and call_ok(addr, late)
        return {
            "sessions": sessions,
            "accepted": accepted,
            "refused_503": refused,
            "other": other,
            "retry_after": retry_after,
            "seconds": seconds,
            "rss_before_kib": before,
            "rss_after_kib": after,
            "first_session_works": works,
            "new_client_served": newcomer,
        }
    finally:
        proc.kill()
        proc.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/mcp-server-sample-tool"))
    parser.add_argument("--sessions", type=int, default=10_000)
    args = parser.parse_args()
    summary = {"slowloris": slowloris(args.binary)}
    f = flood(args.binary, args.sessions)
    print(
        f"session flood (default flags): {f['sessions']} abandoned initializes in {f['seconds']:.1f} s: "
        f"{f['accepted']} sessions opened, {f['refused_503']} got 503 (Retry-After {f['retry_after']}), "
        f"{f['other']} other; RSS {f['rss_before_kib'] / 1024:.1f} -> {f['rss_after_kib'] / 1024:.1f} MiB; "
        f"first session {'still works' if f['first_session_works'] else 'BROKEN'}, "
        f"a new client {'is served' if f['new_client_served'] else 'is LOCKED OUT'}"
    )
    summary["flood"] = f
    c = flood(args.binary, 3000, ["--max-sessions", "20000"])
    per_1000 = (c["rss_after_kib"] - c["rss_before_kib"]) / c["accepted"] * 1000 / 1024
    print(f"idle session cost: {c['accepted']} sessions, RSS +{(c['rss_after_kib'] - c['rss_before_kib']) / 1024:.1f} MiB: "
          f"{per_1000:.1f} MiB per 1,000 idle sessions")
    summary["per_1000_idle_sessions_mib"] = per_1000
    print(json.dumps(summary))
    # The bound of the whole flood: 64 MiB of resident memory after 10,000 abandoned sessions.
    within = f["rss_after_kib"] <= 64 * 1024
    print(f"session flood within 64 MiB: {'yes' if within else 'NO'} ({f['rss_after_kib'] / 1024:.1f} MiB)")
    ok = summary["slowloris"]["served"] and f["first_session_works"] and f["new_client_served"] and within
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
