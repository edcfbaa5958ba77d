#!/usr/bin/env bash
# tests/hosts/run.sh: real MCP hosts register every server the way the README says and connect
# to it; no model is needed.
# - Claude Code (npm @anthropic-ai/claude-code, pinned), in a scratch HOME: `claude mcp add` for
#   each server over stdio, and for sample-tool over `--http` with `--header "Authorization:
#   Bearer …"`; `claude mcp list` (which starts and initializes each server) must show every one
#   Connected, and the HTTP server registered without the header must not be, with the header
#   named in Claude Code's log of the failure.
# - Codex (npm @openai/codex, pinned): `codex app-server` with every server in a scratch
#   CODEX_HOME's config.toml (stdio, and sample-tool over --http with `bearer_token_env_var`);
#   `thread/start`, then `mcpServer/tool/call` of a good and a refused call per server, and
#   `mcpServerStatus/list` showing each connected (codex.py).
# - Gemini CLI (npm @google/gemini-cli, pinned): the README's recipe in a fresh folder:
#   `gemini mcp add -s user` for each server, the folder trusted as its trust dialog does, then
#   `gemini mcp list` must show all four enabled and Connected.
#
#   tests/hosts/run.sh [BIN_DIR]     (default target/debug, after cargo build or cargo test)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${1:-$ROOT/target/debug}"
CLAUDE_CODE_VERSION=2.1.197
CODEX_VERSION=0.169.0
GEMINI_CLI_VERSION=0.61.0
H="$(mktemp -d "${TMPDIR:-/tmp}/mcp-suite-hosts.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  # A process that is still exiting may create a file in there while it is being removed.
  for _ in 1 2 3 4 5; do
    rm -rf "$H" 2>/dev/null && return 0
    sleep 1
  done
  rm -rf "$H"
}
trap cleanup EXIT

# Both hosts from the npm registry; a failed download is tried again, and npm says why each time
# (a --silent install that fails says nothing at all).
for attempt in 1 2 3; do
  if npm install --loglevel=error --no-audit --no-fund --prefix "$H/npm" \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" \
    "@google/gemini-cli@$GEMINI_CLI_VERSION" >&2; then
    break
  fi
  if [ "$attempt" = 3 ]; then
    echo "FAIL npm could not install Claude Code $CLAUDE_CODE_VERSION, Codex $CODEX_VERSION and Gemini CLI $GEMINI_CLI_VERSION" >&2
    exit 1
  fi
  echo "npm install failed (attempt $attempt); trying again" >&2
  sleep 5
done
CLAUDE="$H/npm/node_modules/.bin/claude"
export HOME="$H/home"
mkdir -p "$HOME" "$H/project/blog" "$H/project/ws"
cd "$H/project"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT="$(free_port)"
"$BIN/mcp-server-sample-tool" --http "127.0.0.1:$PORT" --http-token s3cret 2>"$H/http.log" &
PIDS+=($!)
for _ in $(seq 100); do
  grep -q "/mcp" "$H/http.log" && break
  sleep 0.1
done

# claude_add NAME ARGS...: `claude mcp add`; what it printed is shown when it fails.
claude_add() {
  local out
  if ! out="$("$CLAUDE" mcp add "$@" 2>&1)"; then
    echo "FAIL claude mcp add $*:" >&2
    echo "$out" >&2
    exit 1
  fi
}
claude_add text-editor -- "$BIN/mcp-server-text-editor" --root "$H/project"
claude_add draft-post -- "$BIN/mcp-server-draft-post" --repo "$H/project/blog"
claude_add ide-bridge -- "$BIN/mcp-server-ide-bridge" --workspace "$H/project/ws"
claude_add sample-tool -- "$BIN/mcp-server-sample-tool"
claude_add --transport http sample-http "http://127.0.0.1:$PORT/mcp" --header "Authorization: Bearer s3cret"
claude_add --transport http no-token "http://127.0.0.1:$PORT/mcp"

LIST="$(timeout 120 "$CLAUDE" mcp list 2>&1)" || echo "claude mcp list: exit $? (a server that is not connected is reported below)" >&2
echo "$LIST" >&2
FAILED=0
for name in text-editor draft-post ide-bridge sample-tool sample-http; do
  if grep -q "^$name: .*Connected" <<<"$LIST"; then
    echo "ok   Claude Code $CLAUDE_CODE_VERSION: $name connected" >&2
  else
    echo "FAIL Claude Code $CLAUDE_CODE_VERSION: $name is not connected" >&2
    FAILED=1
  fi
done
if grep -q "^no-token: .*Connected" <<<"$LIST"; then
  echo "FAIL no-token: connected without the bearer token" >&2
  FAILED=1
elif grep -rqs "Authorization: Bearer" "$HOME/.cache/claude-cli-nodejs"/*/mcp-logs-no-token/; then
  echo "ok   no-token: refused, and Claude Code's log tells to send the Authorization header" >&2
else
  echo "FAIL no-token: refused, but Claude Code's log does not say what to do" >&2
  FAILED=1
fi
# Codex: its own scratch home; the drafts repository and the bridge's workspace as above.
if ! python3 "$ROOT/tests/hosts/codex.py" "$H/npm/node_modules/.bin/codex" "$BIN" "$H" \
  "http://127.0.0.1:$PORT/mcp" s3cret; then
  echo "FAIL Codex $CODEX_VERSION (its log: kept in $H/codex.log until this script exits)" >&2
  tail -20 "$H/codex.log" >&2 || true
  FAILED=1
fi
# Gemini CLI: the README's recipe, in a folder it has never seen (project scope there would keep
# only the last server, disabled, in a folder not trusted yet: hence `-s user` and the trust).
GEMINI="$H/npm/node_modules/.bin/gemini"
mkdir -p "$H/gemini-project"
(
  cd "$H/gemini-project"
  for args in "text-editor $BIN/mcp-server-text-editor --root $H/gemini-project" \
    "draft-post $BIN/mcp-server-draft-post --repo $H/project/blog" \
    "ide-bridge $BIN/mcp-server-ide-bridge --workspace $H/project/ws" \
    "sample-tool $BIN/mcp-server-sample-tool"; do
    # shellcheck disable=SC2086 # the words of one registration
    "$GEMINI" mcp add -s user $args >/dev/null
  done
)
# What answering "Trust folder" in Gemini's dialog writes.
printf '{"%s": "TRUST_FOLDER"}\n' "$H/gemini-project" >"$HOME/.gemini/trustedFolders.json"
GLIST="$(cd "$H/gemini-project" && timeout 120 "$GEMINI" mcp list 2>&1)" || true
echo "$GLIST" >&2
for name in text-editor draft-post ide-bridge sample-tool; do
  if grep -q "$name: .* - Connected" <<<"$GLIST"; then
    echo "ok   Gemini CLI $GEMINI_CLI_VERSION: $name enabled and connected" >&2
  else
    echo "FAIL Gemini CLI $GEMINI_CLI_VERSION: $name is not enabled and connected" >&2
    FAILED=1
  fi
done
exit "$FAILED"
