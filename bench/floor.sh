#!/usr/bin/env bash
# bench/floor.sh: our servers against the floor, in one run (issue: "At the floor").
#
# HTTP: wrk (CONNECTIONS keep-alive connections for DURATION, THREADS threads, every request its
# own id) POSTing the same tools/call (`hoge`, calc 1 + 2) to
#   - floor: mcp-floor-http, a bare hyper server that parses the body and answers a fixed result;
#   - ours --stateless (plain JSON, no session);
#   - ours in one 2025-11-25 session (SSE answers);
#   - ours at 2026-07-28, sessionless (version in _meta, the Mcp-Method/Mcp-Name headers);
#   - the TypeScript SDK 1.x server in one session (the peer).
# Each: calls/s, p50, p99, the server's peak RSS; ratios to the floor. In ROUNDS rounds (floor, then
# ours), reported as medians, each ratio the median of the rounds' own ratios (see below).
#
# stdio: each server's cold start (spawn -> initialize answered, median of SPAWNS), spawn -> the
# first tools/list answered (when the client can first use it), and idle RSS
# against the do-nothing mcp-baseline, alternating spawns (mcp-bench); and mcp-baseline-tokio
# against it too (the same answers on a tokio runtime and rmcp's stdio pipes: what the async
# stack alone costs before any server code), for the binaries as they
# ship: static executables, stripped (dist/static.sh, as dist/build.sh), built in
# target/static; the baseline built the same way. STATIC=0 measures the dynamic release builds.
#
#   bash bench/floor.sh        # needs wrk (apt-get install wrk), node (for the TS peer)
#
# Environment: CONNECTIONS (64), DURATION (10s), THREADS (2), ROUNDS (3; 0 measures stdio alone),
# SPAWNS (1000), STATIC (1).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
CONNECTIONS="${CONNECTIONS:-64}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
# A cold start is ~0.7 ms and this machine's speed drifts: with 300 spawns a server's ratio
# moved by up to 0.13x between two runs a minute apart, with 1000 by at most 0.03x over three
# runs (2026-11-27). 1000 spawns of each of five servers and of the baseline take about 25 s.
SPAWNS="${SPAWNS:-1000}"
ROUNDS="${ROUNDS:-3}"
command -v wrk >/dev/null || { echo "floor.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

cd "$ROOT"
# The dynamic release builds serve the HTTP rounds (and stdio with STATIC=0).
if [[ "$ROUNDS" != 0 || "${STATIC:-1}" != 1 ]]; then
  cargo build --release --locked -q -p mcp-server-sample-tool -p mcp-server-text-editor -p mcp-server-draft-post \
    -p mcp-server-ide-bridge -p mcp-tests --bins
fi
REL="$ROOT/target/release"
STDIO_BIN="$REL"
if [[ "${STATIC:-1}" == 1 ]]; then
  # The four servers in one build, as dist/build.sh builds them: a build that also had the test
  # tools in it would unify other features into the servers' dependencies (a different binary).
  bash "$ROOT/dist/static.sh" "$ROOT/target/static" -p mcp-server-sample-tool -p mcp-server-text-editor \
    -p mcp-server-draft-post -p mcp-server-ide-bridge
  bash "$ROOT/dist/static.sh" "$ROOT/target/static" -p mcp-tests
  STDIO_BIN="$ROOT/target/static/x86_64-unknown-linux-gnu/shipped"
fi
PEERS="$HERE/http-peers"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-floor.XXXXXX")"
# shellcheck source=http-peers/lib.sh
source "$PEERS/lib.sh"

HTTP=""
if [[ "$ROUNDS" != 0 ]]; then  # ROUNDS=0: the stdio step alone
  (cd "$PEERS" && [[ -d node_modules/@modelcontextprotocol/sdk ]] || npm ci --no-audit --no-fund --loglevel=error)
  FLOOR_PORT="$(free_port)"; STATELESS_PORT="$(free_port)"; SESSION_PORT="$(free_port)"; TS_PORT="$(free_port)"
  start "$REL/mcp-floor-http" "127.0.0.1:$FLOOR_PORT"; FLOOR_PID=$LAST_PID
  start "$REL/mcp-server-sample-tool" --stateless --http "127.0.0.1:$STATELESS_PORT"; STATELESS_PID=$LAST_PID
  start "$REL/mcp-server-sample-tool" --http "127.0.0.1:$SESSION_PORT"; SESSION_PID=$LAST_PID
  start node "$PEERS/ts_server.mjs" "$TS_PORT"; TS_PID=$LAST_PID
  for port in "$FLOOR_PORT" "$STATELESS_PORT" "$SESSION_PORT" "$TS_PORT"; do wait_port "$port"; done

  ARGS='{"action":"calc","args":{"x":1,"y":2}}'
  CALL="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hoge\",\"arguments\":$ARGS}}"
  META='{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
  script "$WORK/floor.lua" "$CALL"
  script "$WORK/stateless.lua" "$CALL" "MCP-Protocol-Version=2025-11-25"
  script "$WORK/session.lua" "$CALL" "MCP-Protocol-Version=2025-11-25" "Mcp-Session-Id=$(open_session "http://127.0.0.1:$SESSION_PORT/mcp")"
  script "$WORK/2026.lua" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":$META,\"name\":\"hoge\",\"arguments\":$ARGS}}" \
    "MCP-Protocol-Version=2026-07-28" "Mcp-Method=tools/call" "Mcp-Name=hoge"
  script "$WORK/ts.lua" "$CALL" "MCP-Protocol-Version=2025-11-25" "Mcp-Session-Id=$(open_session "http://127.0.0.1:$TS_PORT/mcp")"

  echo "== HTTP: $CONNECTIONS connections, $DURATION each (wrk -t$THREADS), $ROUNDS rounds" >&2
  # Rounds: this machine's speed moves by up to 20% from one minute to the next, so one run of each
  # compares servers measured in different minutes. Each round measures the floor and then ours
  # right after it; the report gives each row's median over the rounds and the median of its
  # per-round ratios to the floor (with their range). The TypeScript SDK once, in the first round.
  HTTP="$(
    for round in $(seq 1 "$ROUNDS"); do
      run "floor@$round" "http://127.0.0.1:$FLOOR_PORT/" "$WORK/floor.lua" "$FLOOR_PID"
      run "ours-stateless@$round" "http://127.0.0.1:$STATELESS_PORT/mcp" "$WORK/stateless.lua" "$STATELESS_PID"
      run "ours-session@$round" "http://127.0.0.1:$SESSION_PORT/mcp" "$WORK/session.lua" "$SESSION_PID"
      run "ours-2026-07-28@$round" "http://127.0.0.1:$SESSION_PORT/mcp" "$WORK/2026.lua" "$SESSION_PID"
      [[ "$round" != 1 ]] || run "ts-sdk-session@$round" "http://127.0.0.1:$TS_PORT/mcp" "$WORK/ts.lua" "$TS_PID"
    done
  )"

  # The HTTP servers go before the stdio step: idle, the TypeScript SDK's node still wakes up.
  for pid in "$FLOOR_PID" "$STATELESS_PID" "$SESSION_PID" "$TS_PID"; do kill "$pid" 2>/dev/null || true; done
fi
echo "== stdio: cold start and idle RSS against mcp-baseline ($SPAWNS spawns each, $STDIO_BIN)" >&2
# The binaries leave the page cache first, and the first (untimed) start reads them back, as a
# start after an install or a reboot does. Just written by the build, a file's cached pages
# can be mapped by more than the 64 KiB a fault maps otherwise: the sample tool's idle RSS read
# 4.0 MiB right after a build, 2.1 MiB once its binary was read back (2026-11-28).
python3 - "$STDIO_BIN"/mcp-server-* "$STDIO_BIN"/mcp-baseline* <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)  # written pages are dropped only once they are on disk
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
PY
mkdir -p "$WORK/repo" "$WORK/xdg"
STDIO=""
for spec in "sample-tool:$STDIO_BIN/mcp-server-sample-tool" \
            "text-editor:$STDIO_BIN/mcp-server-text-editor --root $WORK" \
            "draft-post:$STDIO_BIN/mcp-server-draft-post --repo $WORK/repo" \
            "ide-bridge:$STDIO_BIN/mcp-server-ide-bridge --workspace $WORK" \
            "baseline-tokio:$STDIO_BIN/mcp-baseline-tokio"; do
  name="${spec%%:*}"
  read -r -a cmd <<<"${spec#*:}"
  "$STDIO_BIN/mcp-bench" --json --spawns "$SPAWNS" --calls 20 --warmup 5 --allow-errors --env "XDG_RUNTIME_DIR=$WORK/xdg" \
    -- "${cmd[@]}" >"$WORK/stdio-$name.json"
  STDIO+="$name $WORK/stdio-$name.json"$'\n'
done

python3 - "$HTTP" "$STDIO" <<'PY'
import json, statistics, sys
runs = {}  # label -> round -> figures
for line in sys.argv[1].splitlines():
    f = line.split()
    label, round_ = f[0].split("@")
    runs.setdefault(label, {})[round_] = dict(
        requests=int(f[1]), rate=float(f[2]), p99=float(f[3]), bad=int(f[4]), p50=float(f[5]), rss=float(f[6]))
floor = runs.get("floor", {})
med = statistics.median
if floor:
    print(f"HTTP (wrk, {len(floor)} rounds)  calls/s   vs floor (range)     p50 ms   p99 ms  p99 vs floor  peak RSS MiB")
for label, rounds in runs.items():
    rate = med(r["rate"] for r in rounds.values())
    ratios = [r["rate"] / floor[k]["rate"] for k, r in rounds.items()]
    p99s = [r["p99"] / floor[k]["p99"] for k, r in rounds.items()]
    spread = f"({min(ratios):.2f}-{max(ratios):.2f})"
    print(f"{label:20} {rate:10.0f} {med(ratios):7.2f}x {spread:11} {med(r['p50'] for r in rounds.values()):8.2f}"
          f" {med(r['p99'] for r in rounds.values()):8.2f} {med(p99s):9.2f}x {max(r['rss'] for r in rounds.values()):10.1f}")
if floor:
    ts = runs["ts-sdk-session"]["1"]
    for label in ("ours-stateless", "ours-session", "ours-2026-07-28"):
        print(f"{label} / TS SDK: {runs[label]['1']['rate'] / ts['rate']:.1f}x the calls/s (round 1)")
    print()
print(f"stdio (mcp-bench)          cold start ms   vs baseline   to tools/list ms   vs baseline   idle RSS MiB   vs baseline")
for line in sys.argv[2].splitlines():
    name, path = line.split(" ", 1)
    report = json.load(open(path))
    server, ratio = report["server"], report.get("ratio") or {}
    rss = (server.get("idle_rss_kib") or 0) / 1024
    print(f"{name:20} {server['cold_start_median_ms']:14.2f} {ratio.get('cold_start_median_ms') or 0:12.2f}x {server['ready_median_ms']:18.2f} {ratio.get('ready_median_ms') or 0:12.2f}x {rss:14.1f} {ratio.get('idle_rss_kib') or 0:12.2f}x")
sys.exit(1 if any(r["bad"] for rounds in runs.values() for r in rounds.values()) else 0)
PY
