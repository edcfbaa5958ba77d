#!/usr/bin/env bash
# bench/http-peers/revisions.sh: the same tools/call (sample-tool's `hoge`, calc: x + y) over
# Streamable HTTP, driven by wrk (CONNECTIONS keep-alive connections for DURATION), in one run:
#
#   1. ours, MCP 2026-07-28: sessionless, the version and capabilities in the request's _meta
#      and the Mcp-Method / Mcp-Name headers (no initialize, no Mcp-Session-Id);
#   2. ours, MCP 2025-11-25: one session (initialize first), every call under its Mcp-Session-Id
#      (one client with CONNECTIONS calls in flight; every request has its own id);
#   3. the official TypeScript SDK 1.x server (ts_server.mjs), 2025-11-25, one session likewise.
#
# Prints calls/s and p99 of each, and the ratios. wrk counts an answer that is not 2xx as an
# error; the script fails if any call was not answered 200 with the result.
#
#   bash bench/http-peers/revisions.sh        # needs wrk (Debian: apt-get install wrk)
#
# Environment: CONNECTIONS (64), DURATION (10s), THREADS (2).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CONNECTIONS="${CONNECTIONS:-64}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
command -v wrk >/dev/null || { echo "revisions.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

cd "$ROOT"
cargo build --release --locked -q -p mcp-server-sample-tool
OURS="$ROOT/target/release/mcp-server-sample-tool"
(cd "$HERE" && [[ -d node_modules/@modelcontextprotocol/sdk ]] || npm ci --no-audit --no-fund --loglevel=error)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-revisions.XXXXXX")"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

OURS_PORT="$(free_port)"
"$OURS" --http "127.0.0.1:$OURS_PORT" >/dev/null 2>&1 &
PIDS+=("$!")
TS_PORT="$(free_port)"
node "$HERE/ts_server.mjs" "$TS_PORT" >/dev/null 2>&1 &
PIDS+=("$!")
wait_port "$OURS_PORT"
wait_port "$TS_PORT"

ARGS='{"action":"calc","args":{"x":1,"y":2}}'
META='{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'

script "$WORK/2026.lua" \
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":$META,\"name\":\"hoge\",\"arguments\":$ARGS}}" \
  "MCP-Protocol-Version=2026-07-28" "Mcp-Method=tools/call" "Mcp-Name=hoge"
SESSION="$(open_session "http://127.0.0.1:$OURS_PORT/mcp")"
script "$WORK/2025.lua" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hoge\",\"arguments\":$ARGS}}" \
  "MCP-Protocol-Version=2025-11-25" "Mcp-Session-Id=$SESSION"
TS_SESSION="$(open_session "http://127.0.0.1:$TS_PORT/mcp")"
script "$WORK/ts.lua" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hoge\",\"arguments\":$ARGS}}" \
  "MCP-Protocol-Version=2025-11-25" "Mcp-Session-Id=$TS_SESSION"

echo "== $CONNECTIONS connections, $DURATION each (wrk -t$THREADS)" >&2
RESULTS="$(
  run ours-2026-07-28 "http://127.0.0.1:$OURS_PORT/mcp" "$WORK/2026.lua"
  run ours-2025-11-25 "http://127.0.0.1:$OURS_PORT/mcp" "$WORK/2025.lua"
  run ts-sdk-2025-11-25 "http://127.0.0.1:$TS_PORT/mcp" "$WORK/ts.lua"
)"
python3 - "$RESULTS" <<'EOF'
import sys
rows = {}
for line in sys.argv[1].splitlines():
    label, requests, rate, p99, bad = line.split()[:5]
    rows[label] = (int(requests), float(rate), float(p99), int(bad))
for label, (requests, rate, p99, bad) in rows.items():
    print(f"{label:20} {rate:10.0f} calls/s   p99 {p99:7.2f} ms   ({requests} calls, {bad} without the result)")
modern, session, ts = rows["ours-2026-07-28"], rows["ours-2025-11-25"], rows["ts-sdk-2025-11-25"]
print(f"sessionless 2026-07-28 / session 2025-11-25: {modern[1] / session[1]:.2f}x the calls/s, p99 {modern[2] / session[2]:.2f}x")
print(f"ours 2026-07-28 / TS SDK: {modern[1] / ts[1]:.1f}x the calls/s; ours 2025-11-25 / TS SDK: {session[1] / ts[1]:.1f}x")
sys.exit(1 if any(bad for _, _, _, bad in rows.values()) else 0)
EOF
