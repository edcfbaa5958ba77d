#!/usr/bin/env bash
# Seed 002's client configuration, as written in its spec (`server_url: "http://localhost:8000"`,
# the token from `api_key_env`), through mcp-use against `mcp-server-sample-tool --http` with a
# token: the endpoint at / and the static bearer token; then mcp-server-draft-post --http
# --stateless driven as that agent would file a draft it holds in its container
# (draft_post_remote.py). Installs mcp-use (pinned) in a venv.
# Run `cargo build --workspace` (or `cargo test --workspace`) first; MCP_BIN_DIR overrides
# target/debug.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${MCP_BIN_DIR:-$ROOT/target/debug}/mcp-server-sample-tool"
cd "$HERE"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
WORK="$(mktemp -d)"
export GITHUB_MCP_TOKEN="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
"$BIN" --http "127.0.0.1:$PORT" --http-token "$GITHUB_MCP_TOKEN" 2>"$WORK/server.log" &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do
  if curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null; then break; fi
  sleep 0.05
done
sed "s/@PORT@/$PORT/" mcp_config.yaml.in >"$WORK/mcp_config.yaml"
.venv/bin/python client.py "$WORK/mcp_config.yaml" || { cat "$WORK/server.log"; exit 1; }

# draft-post for an agent that does not share the server's disk (a remote --http --stateless
# server): the manuscript by content, its image as an attachment, dry runs, an escape refused.
DRAFTS_BIN="${MCP_BIN_DIR:-$ROOT/target/debug}/mcp-server-draft-post"
DPORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
mkdir -p "$WORK/blog"
"$DRAFTS_BIN" --repo "$WORK/blog" --no-fsync --http "127.0.0.1:$DPORT" --stateless --http-token "$GITHUB_MCP_TOKEN" \
  2>"$WORK/drafts.log" &
DPID=$!
trap 'kill $PID $DPID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do
  if curl -sf "http://127.0.0.1:$DPORT/healthz" >/dev/null; then break; fi
  sleep 0.05
done
sed "s/@PORT@/$DPORT/" mcp_config.yaml.in >"$WORK/drafts_config.yaml"
.venv/bin/python draft_post_remote.py "$WORK/drafts_config.yaml" "$WORK/blog" || { cat "$WORK/drafts.log"; exit 1; }
