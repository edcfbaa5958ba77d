#!/usr/bin/env bash
# The OAuth test in one command: installs the pinned packages (npm ci from package-lock.json),
# then drives the debug text editor (target/debug, or MCP_BIN_DIR) against oidc-provider.
# Run `cargo build --workspace` (or `cargo test --workspace`) first.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
exec node run.mjs
