#!/usr/bin/env bash
# bench/http-replicas/run.sh: two `mcp-server-sample-tool --http --stateless` replicas behind
# HAProxy (Debian package; round robin, health checks on /healthz, a failed request retried on the
# other replica), one mcp-use client session (PyPI mcp-use, pinned) making CALLS calls through
# it; one replica is killed (SIGKILL) half-way. Every call must still succeed.
#
#   bash bench/http-replicas/run.sh        # CALLS (400)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CALLS="${CALLS:-400}"
command -v haproxy >/dev/null || { apt-get install -y -qq haproxy >/dev/null || { apt-get update -qq && apt-get install -y -qq haproxy >/dev/null; }; }
if [[ ! -x "$HERE/.venv/bin/python" ]]; then
  python3 -m venv "$HERE/.venv"
  "$HERE/.venv/bin/pip" install -q -r "$HERE/requirements.txt"
fi
cd "$ROOT"
cargo build --release --locked -q -p mcp-server-sample-tool
BIN="$ROOT/target/release/mcp-server-sample-tool"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-replicas.XXXXXX")"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
P1="$(port)"; P2="$(port)"; LB="$(port)"
"$BIN" --http "127.0.0.1:$P1" --stateless --allow-host "127.0.0.1:$LB" 2>"$WORK/r1.log" & PIDS+=("$!"); R1=$!
"$BIN" --http "127.0.0.1:$P2" --stateless --allow-host "127.0.0.1:$LB" 2>"$WORK/r2.log" & PIDS+=("$!")
cat >"$WORK/haproxy.cfg" <<CFG
global
  maxconn 256
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  retries 2
  option redispatch 1
  retry-on conn-failure empty-response response-timeout 503
frontend mcp
  bind 127.0.0.1:$LB
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /healthz
  http-check send hdr Host 127.0.0.1:$P1
  server r1 127.0.0.1:$P1 check inter 500ms fall 1 rise 1
  server r2 127.0.0.1:$P2 check inter 500ms fall 1 rise 1
CFG
haproxy -f "$WORK/haproxy.cfg" -db 2>"$WORK/haproxy.log" & PIDS+=("$!")
for _ in $(seq 1 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1',$LB),0.2)" 2>/dev/null && break
  sleep 0.05
done
echo "== mcp-use through HAProxy (127.0.0.1:$LB) to two stateless replicas; replica 1 killed after $((CALLS / 2)) calls"
"$HERE/.venv/bin/python" "$HERE/client.py" "http://127.0.0.1:$LB/mcp" "$CALLS" "$((CALLS / 2))" "$R1"
