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
# Each: calls/s, p50, p99, the server's peak RSS; ratios to the floor.
#
# stdio: each server's cold start (spawn -> initialize answered, median of SPAWNS), spawn -> the
# first tools/list answered (when the client can first use it), and idle RSS
# against the do-nothing mcp-baseline, alternating spawns (mcp-bench); and mcp-baseline-tokio
# against it too (the same answers on a tokio runtime and rmcp's stdio pipes: what the async
# stack alone costs before any server code), for the binaries as they
# ship: static executables, start-ordered and stripped (dist/static.sh, as dist/build.sh), built in
# target/static; the baseline built the same way. STATIC=0 measures the dynamic release builds.
#
#   bash bench/floor.sh        # needs wrk (apt-get install wrk), node (for the TS peer), valgrind
#
# Environment: CONNECTIONS (64), DURATION (10s), THREADS (2), SPAWNS (40), STATIC (1).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
CONNECTIONS="${CONNECTIONS:-64}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
SPAWNS="${SPAWNS:-40}"
command -v wrk >/dev/null || { echo "floor.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

cd "$ROOT"
cargo build --release --locked -q -p mcp-server-sample-tool -p mcp-server-text-editor -p mcp-server-draft-post \
  -p mcp-server-ide-bridge -p mcp-tests --bins
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
(cd "$PEERS" && [[ -d node_modules/@modelcontextprotocol/sdk ]] || npm ci --no-audit --no-fund --loglevel=error)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-floor.XXXXXX")"
# shellcheck source=http-peers/lib.sh
source "$PEERS/lib.sh"

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

echo "== HTTP: $CONNECTIONS connections, $DURATION each (wrk -t$THREADS)" >&2
HTTP="$(
  run floor "http://127.0.0.1:$FLOOR_PORT/" "$WORK/floor.lua" "$FLOOR_PID"
  run ours-stateless "http://127.0.0.1:$STATELESS_PORT/mcp" "$WORK/stateless.lua" "$STATELESS_PID"
  run ours-session "http://127.0.0.1:$SESSION_PORT/mcp" "$WORK/session.lua" "$SESSION_PID"
  run ours-2026-07-28 "http://127.0.0.1:$SESSION_PORT/mcp" "$WORK/2026.lua" "$SESSION_PID"
  run ts-sdk-session "http://127.0.0.1:$TS_PORT/mcp" "$WORK/ts.lua" "$TS_PID"
)"

echo "== stdio: cold start and idle RSS against mcp-baseline ($SPAWNS spawns each, $STDIO_BIN)" >&2
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
import json, sys
rows = {}
for line in sys.argv[1].splitlines():
    f = line.split()
    rows[f[0]] = dict(requests=int(f[1]), rate=float(f[2]), p99=float(f[3]), bad=int(f[4]), p50=float(f[5]), rss=float(f[6]))
floor = rows["floor"]
print(f"HTTP (wrk, same run)       calls/s   vs floor   p50 ms   p99 ms  p99 vs floor  peak RSS MiB")
for label, r in rows.items():
    print(f"{label:20} {r['rate']:12.0f} {r['rate'] / floor['rate']:9.2f}x {r['p50']:8.2f} {r['p99']:8.2f} {r['p99'] / floor['p99']:9.2f}x {r['rss']:10.1f}")
ts = rows["ts-sdk-session"]
for label in ("ours-stateless", "ours-session", "ours-2026-07-28"):
    print(f"{label} / TS SDK: {rows[label]['rate'] / ts['rate']:.1f}x the calls/s")
print()
print(f"stdio (mcp-bench)          cold start ms   vs baseline   to tools/list ms   vs baseline   idle RSS MiB   vs baseline")
for line in sys.argv[2].splitlines():
    name, path = line.split(" ", 1)
    report = json.load(open(path))
    server, ratio = report["server"], report.get("ratio") or {}
    rss = (server.get("idle_rss_kib") or 0) / 1024
    print(f"{name:20} {server['cold_start_median_ms']:14.2f} {ratio.get('cold_start_median_ms') or 0:12.2f}x {server['ready_median_ms']:18.2f} {ratio.get('ready_median_ms') or 0:12.2f}x {rss:14.1f} {ratio.get('idle_rss_kib') or 0:12.2f}x")
sys.exit(1 if any(r["bad"] for r in rows.values()) else 0)
PY
