#!/usr/bin/env bash
# bench/http-peers/auth.sh: what authentication costs on --http, in one run. The same tools/call
# (sample-tool's `hoge`, --stateless, plain JSON) driven by wrk (CONNECTIONS keep-alive
# connections for DURATION) against three servers started side by side:
#
#   1. no authentication (loopback, no token);
#   2. the static token (--http-token): a constant-time comparison;
#   3. OAuth (--auth-issuer, --public-url): an ES256 JWT checked against the authorization
#      server's key (signature, iss, aud, exp) on every request; the issuer is a stand-in
#      (auth_issuer.mjs) that serves OpenID discovery and the JWKS once.
#
# Prints calls/s and p99 of each, and the ratios to the unauthenticated server. Needs wrk.
#
#   bash bench/http-peers/auth.sh
#
# Environment: CONNECTIONS (64), DURATION (10s), THREADS (2).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CONNECTIONS="${CONNECTIONS:-64}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
command -v wrk >/dev/null || { echo "auth.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

cd "$ROOT"
cargo build --release --locked -q -p mcp-server-sample-tool
OURS="$ROOT/target/release/mcp-server-sample-tool"
(cd "$HERE" && [[ -d node_modules/jose ]] || npm ci --no-audit --no-fund --loglevel=error)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-auth.XXXXXX")"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 200); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "auth.sh: nothing listens on port $1" >&2
  return 1
}

NONE_PORT="$(free_port)"; TOKEN_PORT="$(free_port)"; OAUTH_PORT="$(free_port)"; AS_PORT="$(free_port)"
RESOURCE="http://127.0.0.1:$OAUTH_PORT/mcp"
STATIC="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
node "$HERE/auth_issuer.mjs" "$AS_PORT" "$RESOURCE" >"$WORK/jwt" &
PIDS+=("$!")
wait_port "$AS_PORT"
JWT="$(head -1 "$WORK/jwt")"
"$OURS" --stateless --http "127.0.0.1:$NONE_PORT" >/dev/null 2>&1 &
PIDS+=("$!")
"$OURS" --stateless --http "127.0.0.1:$TOKEN_PORT" --http-token "$STATIC" >/dev/null 2>&1 &
PIDS+=("$!")
"$OURS" --stateless --http "127.0.0.1:$OAUTH_PORT" --auth-issuer "http://127.0.0.1:$AS_PORT" --public-url "$RESOURCE" >/dev/null 2>&1 &
PIDS+=("$!")
wait_port "$NONE_PORT"; wait_port "$TOKEN_PORT"; wait_port "$OAUTH_PORT"

BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hoge","arguments":{"action":"calc","args":{"x":1,"y":2}}}}'
script() { # file [authorization]
  {
    echo 'wrk.method = "POST"'
    printf 'wrk.body = [==[%s]==]\n' "$BODY"
    echo 'wrk.headers["Content-Type"] = "application/json"'
    echo 'wrk.headers["Accept"] = "application/json, text/event-stream"'
    echo 'wrk.headers["MCP-Protocol-Version"] = "2025-11-25"'
    if [[ -n "${2:-}" ]]; then printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$2"; fi
    cat <<'LUA'
local bad = 0
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"value":3', 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("RESULT %d %.1f %.3f %d\n", summary.requests,
    summary.requests / (summary.duration / 1e6), latency:percentile(99) / 1000, bad))
end
LUA
  } >"$1"
}
script "$WORK/none.lua"
script "$WORK/token.lua" "$STATIC"
script "$WORK/oauth.lua" "$JWT"

run() { # label url script
  local out
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$3" "$2")"
  echo "$out" | sed 's/^/  /' >&2
  grep '^RESULT' <<<"$out" | sed "s/^RESULT/$1/"
}

echo "== $CONNECTIONS connections, $DURATION each (wrk -t$THREADS), --stateless" >&2
RESULTS="$(
  run none "http://127.0.0.1:$NONE_PORT/mcp" "$WORK/none.lua"
  run static-token "http://127.0.0.1:$TOKEN_PORT/mcp" "$WORK/token.lua"
  run oauth-jwt "http://127.0.0.1:$OAUTH_PORT/mcp" "$WORK/oauth.lua"
)"
python3 - "$RESULTS" <<'EOF'
import sys
rows = {}
for line in sys.argv[1].splitlines():
    label, requests, rate, p99, bad = line.split()
    rows[label] = (int(requests), float(rate), float(p99), int(bad))
base = rows["none"]
for label, (requests, rate, p99, bad) in rows.items():
    print(f"{label:14} {rate:10.0f} calls/s ({rate / base[1]:.2f}x)   p99 {p99:7.2f} ms   ({requests} calls, {bad} without the result)")
sys.exit(1 if any(bad for _, _, _, bad in rows.values()) else 0)
EOF
