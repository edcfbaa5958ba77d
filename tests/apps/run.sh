#!/usr/bin/env bash
# The MCP Apps views in a real browser: installs the pinned test host (npm ci: ext-apps's
# AppBridge, playwright-core, esbuild), bundles the bridge for the page, and runs host.mjs
# against the debug binaries (target/debug, or MCP_BIN_DIR) in Debian's chromium (CHROMIUM).
# Screenshots of every view go to target/apps (APPS_OUT). The bridge's views need a real language
# server: the VS Code e2e renders them (servers/ide-bridge/vscode-extension/e2e).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
printf 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";\n' >bridge-entry.js
node_modules/.bin/esbuild bridge-entry.js --bundle --format=esm --platform=browser --log-level=warning --outfile=bridge.js
# APPS_BUNDLE_ONLY=1: stop here (the VS Code e2e renders the bridge's views with apps-host.mjs).
if [ "${APPS_BUNDLE_ONLY:-0}" = 1 ]; then exit 0; fi
exec node host.mjs
