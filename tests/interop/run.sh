#!/usr/bin/env bash
# The interop test in one command: installs the pinned MCP clients (npm ci from package-lock.json,
# a virtualenv from requirements.txt), then drives every server's debug binaries (target/debug,
# or MCP_BIN_DIR) through the TypeScript SDK 1.x and 2.x clients and the Python SDK client.
# Run `cargo build --workspace` (or `cargo test --workspace`) first.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
exec node run.mjs
