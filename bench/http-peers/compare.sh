#!/usr/bin/env bash
# bench/http-peers/compare.sh: mcp-server-sample-tool --http against the official TypeScript SDK's
# Streamable HTTP server and the official Python SDK's FastMCP, the same trivial tool (`hoge`,
# calc: x + y) on loopback, the same client (mcp-http-load), in one run:
#
#   1. sequential: one client, one keep-alive connection, call after call (per-call latency),
#      next to the stdio figure of the same server (mcp-bench, median);
#   2. sustained: CLIENTS (64) concurrent clients, each its own keep-alive connection and
#      session, CALLS calls each: calls/s, p50/p99, the server's RSS before and after.
#
#   bash bench/http-peers/compare.sh      # installs the pinned peers on first use (npm ci, venv)
#
# Environment: CLIENTS (64), CALLS (200 per client), SEQ_CALLS (500), OURS_ARGS (extra flags
# for our server, e.g. --stateless), KEEP_PEERS=1 (leave the venv and node_modules).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CLIENTS="${CLIENTS:-64}"
CALLS="${CALLS:-200}"
SEQ_CALLS="${SEQ_CALLS:-500}"
read -r -a OURS_EXTRA <<<"${OURS_ARGS:-}"

cd "$ROOT"
cargo build --release --locked -q -p mcp-server-sample-tool -p mcp-tests --bins
LOAD="$ROOT/target/release/mcp-http-load"
BENCH="$ROOT/target/release/mcp-bench"
OURS="$ROOT/target/release/mcp-server-sample-tool"

(cd "$HERE" && [[ -d node_modules/@modelcontextprotocol/sdk ]] || npm ci --no-audit --no-fund --loglevel=error)
if [[ ! -x "$HERE/.venv/bin/python" ]]; then
  python3 -m venv "$HERE/.venv"
  "$HERE/.venv/bin/pip" install -q -r "$HERE/requirements.txt"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-compare.XXXXXX")"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

declare -A URL PID
start_peer() { # name command...
  local name="$1" port
  shift
  port="$(free_port)"
  "${@//\{PORT\}/$port}" >/dev/null 2>&1 &
  PID[$name]=$!
  PIDS+=("$!")
  URL[$name]="http://127.0.0.1:$port/mcp"
  wait_port "$port"
}

start_peer ours "$OURS" --http "127.0.0.1:{PORT}" "${OURS_EXTRA[@]}"
start_peer ts node "$HERE/ts_server.mjs" "{PORT}"
start_peer fastmcp "$HERE/.venv/bin/python" "$HERE/fastmcp_server.py" "{PORT}"

echo "== stdio, for reference: mcp-server-sample-tool, hoge (mcp-bench, median of $SEQ_CALLS calls)"
STDIO_MS="$("$BENCH" --no-baseline --spawns 3 --calls "$SEQ_CALLS" --tool hoge \
  --args '{"action":"calc","args":{"x":1,"y":2}}' --json -- "$OURS" \
  | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["server"]["call_median_ms"])' 2>/dev/null || echo nan)"
echo "stdio median ${STDIO_MS} ms"

declare -A SEQ_P50 RATE P99
for name in ours ts fastmcp; do
  echo "== $name: sequential, 1 client, keep-alive"
  out="$("$LOAD" --url "${URL[$name]}" --clients 1 --calls "$SEQ_CALLS" --label "$name" --json)"
  echo "$out"
  SEQ_P50[$name]="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["p50_ms"])' "$out")"
  echo "== $name: $CLIENTS clients, one session each, $CALLS calls each"
  out="$("$LOAD" --url "${URL[$name]}" --clients "$CLIENTS" --calls "$CALLS" --pid "${PID[$name]}" --label "$name" --json)"
  echo "$out"
  RATE[$name]="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["calls_per_second"])' "$out")"
  P99[$name]="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["p99_ms"])' "$out")"
done

python3 - "$STDIO_MS" "${SEQ_P50[ours]}" "${SEQ_P50[ts]}" "${SEQ_P50[fastmcp]}" \
  "${RATE[ours]}" "${RATE[ts]}" "${RATE[fastmcp]}" "${P99[ours]}" "${P99[ts]}" "${P99[fastmcp]}" "$CLIENTS" <<'EOF'
import sys
stdio, s_o, s_t, s_f, r_o, r_t, r_f, p_o, p_t, p_f = map(float, sys.argv[1:11])
clients = sys.argv[11]
print()
print(f"sequential keep-alive p50: ours {s_o:.3f} ms (stdio {stdio:.3f} ms, +{s_o - stdio:.3f} ms), "
      f"TS SDK {s_t:.3f} ms, FastMCP {s_f:.3f} ms")
print(f"{clients} clients: ours {r_o:.0f} calls/s (p99 {p_o:.2f} ms), TS SDK {r_t:.0f}/s (p99 {p_t:.2f} ms), "
      f"FastMCP {r_f:.0f}/s (p99 {p_f:.2f} ms)")
print(f"throughput ratios: {r_o / r_t:.1f}x the TS SDK server, {r_o / r_f:.1f}x FastMCP; "
      f"p99 ratios: {p_t / p_o:.1f}x / {p_f / p_o:.1f}x lower")
EOF
