#!/usr/bin/env bash
# bench/flame.sh: a CPU flame graph (SVG) of `mcp-server-sample-tool --stateless --http` under the
# load of bench/floor.sh's `ours-stateless` row (wrk, the same `hoge` call, unique ids).
#
#   bash bench/flame.sh bench/flame-after.svg           # builds a profiling build first
#   MODE=2026 bash bench/flame.sh x.svg      # the 2026-07-28 sessionless call
#   MODE=session bash bench/flame.sh x.svg   # one 2025-11-25 session (SSE answers)
#
# The profiling build: release with frame pointers and line tables, in $PROFILE_TARGET
# (/tmp/mcp-prof), so perf can walk the stacks (`perf record -e cpu-clock --call-graph fp`: a
# software clock, which also works where the hardware counters are not exposed, as in VMs).
# Needs: perf (apt-get install linux-perf), wrk, inferno (cargo install inferno).
# Environment: CONNECTIONS (64), THREADS (2), SECONDS_RECORDED (8),
# MODE (stateless | 2026 | session), FOLDED (also keep the folded stacks there, for inferno or a
# script).
set -euo pipefail

OUT="${1:?usage: bench/flame.sh OUT.svg}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
SECONDS_RECORDED="${SECONDS_RECORDED:-8}"
MODE="${MODE:-stateless}"
PROFILE_TARGET="${PROFILE_TARGET:-/tmp/mcp-prof}"
for tool in perf wrk inferno-collapse-perf inferno-flamegraph; do
  command -v "$tool" >/dev/null || { echo "flame.sh: $tool is not installed (see the header)" >&2; exit 1; }
done

(cd "$ROOT" && CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
  RUSTFLAGS="-C force-frame-pointers=yes -C link-arg=-Wl,-z,pack-relative-relocs" CARGO_TARGET_DIR="$PROFILE_TARGET" \
  cargo build --release --locked -q -p mcp-server-sample-tool --bin mcp-server-sample-tool)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-flame.XXXXXX")"
DURATION="$((SECONDS_RECORDED + 4))s"
# shellcheck source=http-peers/lib.sh
source "$HERE/http-peers/lib.sh"
PORT="$(free_port)"
ARGS='{"action":"calc","args":{"x":1,"y":2}}'
if [[ "$MODE" == session ]]; then
  start "$PROFILE_TARGET/release/mcp-server-sample-tool" --http "127.0.0.1:$PORT"
  wait_port "$PORT"
  script "$WORK/load.lua" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hoge\",\"arguments\":$ARGS}}" \
    "MCP-Protocol-Version=2025-11-25" "Mcp-Session-Id=$(open_session "http://127.0.0.1:$PORT/mcp")"
elif [[ "$MODE" == 2026 ]]; then
  start "$PROFILE_TARGET/release/mcp-server-sample-tool" --http "127.0.0.1:$PORT"
  META='{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
  script "$WORK/load.lua" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":$META,\"name\":\"hoge\",\"arguments\":$ARGS}}" \
    "MCP-Protocol-Version=2026-07-28" "Mcp-Method=tools/call" "Mcp-Name=hoge"
else
  start "$PROFILE_TARGET/release/mcp-server-sample-tool" --stateless --http "127.0.0.1:$PORT"
  script "$WORK/load.lua" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hoge\",\"arguments\":$ARGS}}" \
    "MCP-Protocol-Version=2025-11-25"
fi
SERVER_PID=$LAST_PID
wait_port "$PORT"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$WORK/load.lua" "http://127.0.0.1:$PORT/mcp" >"$WORK/wrk.txt" &
WRK_PID=$!
sleep 2
perf record -q -F 1999 -e cpu-clock --call-graph fp -o "$WORK/perf.data" -p "$SERVER_PID" -- sleep "$SECONDS_RECORDED" 2>/dev/null
wait "$WRK_PID"
perf script -i "$WORK/perf.data" 2>/dev/null | inferno-collapse-perf >"$WORK/folded"
[[ -z "${FOLDED:-}" ]] || cp "$WORK/folded" "$FOLDED"
inferno-flamegraph --minwidth 0.2 --title "sample-tool $MODE tools/call under wrk -c$CONNECTIONS ($(date -u +%F))" <"$WORK/folded" >"$OUT"
grep -E 'Requests/sec' "$WORK/wrk.txt" >&2
echo "flame.sh: $OUT ($(wc -l <"$WORK/folded") stacks)" >&2
