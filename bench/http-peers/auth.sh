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
# shellcheck source=lib.sh
source "$HERE/lib.sh"

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
script "$WORK/none.lua" "$BODY" "MCP-Protocol-Version=2025-11-25"
script "$WORK/token.lua" "$BODY" "MCP-Protocol-Version=2025-11-25" "Authorization=Bearer $STATIC"
script "$WORK/oauth.lua" "$BODY" "MCP-Protocol-Version=2025-11-25" "Authorization=Bearer $JWT"

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
    label, requests, rate, p99, bad = line.split()[:5]
    rows[label] = (int(requests), float(rate), float(p99), int(bad))
base = rows["none"]
for label, (requests, rate, p99, bad) in rows.items():
    print(f"{label:14} {rate:10.0f} calls/s ({rate / base[1]:.2f}x)   p99 {p99:7.2f} ms   ({requests} calls, {bad} without the result)")
sys.exit(1 if any(bad for _, _, _, bad in rows.values()) else 0)
EOF
