#!/usr/bin/env bash
# bench/static.sh: the shipped static binaries against the ordinary (dynamic) release build, with the
# project's benchmark (mcp-bench) in one run per server: the dynamic binary is mcp-bench's baseline,
# so every ratio printed is static / dynamic, measured side by side on the same machine state.
#
#   bash bench/static.sh [dist/out/mcp-suite-<version>]
#
# Scenarios: sample-tool `hoge` (cold start + a trivial call), text-editor `str_replace` on a
# 100-line file and back (cold start + a real edit, fsync on). Environment: SPAWNS (20), CALLS (1000).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$(ls -d "$ROOT"/dist/out/mcp-suite-* 2>/dev/null | sort -V | tail -1)}"
[[ -d "$OUT" ]] || { echo "bench/static.sh: no dist/out/mcp-suite-*; run dist/build.sh first" >&2; exit 2; }
STATIC="$OUT/bin/x86_64-unknown-linux-gnu"
SPAWNS="${SPAWNS:-20}"
CALLS="${CALLS:-1000}"

cd "$ROOT"
cargo build --release --locked -q -p mcp-server-sample-tool -p mcp-server-text-editor -p mcp-tests --bins
DYNAMIC="$ROOT/target/release"
BENCH="$DYNAMIC/mcp-bench"
for b in mcp-server-sample-tool mcp-server-text-editor; do
  readelf -dW "$DYNAMIC/$b" | grep -q NEEDED || { echo "bench/static.sh: $DYNAMIC/$b is not dynamic" >&2; exit 1; }
  if readelf -dW "$STATIC/$b" | grep -q NEEDED; then echo "bench/static.sh: $STATIC/$b is not static" >&2; exit 1; fi
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-suite-dist-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

echo "== sample-tool hoge: static (server) vs dynamic (baseline)"
"$BENCH" --spawns "$SPAWNS" --calls "$CALLS" --label "static vs dynamic: sample-tool" \
  --tool hoge --args '{"action":"calc","args":{"x":1,"y":2}}' \
  --baseline-cmd "$DYNAMIC/mcp-server-sample-tool" --baseline-tool hoge \
  -- "$STATIC/mcp-server-sample-tool"

echo "== text-editor str_replace on a 100-line file: static (server) vs dynamic (baseline)"
mkdir -p "$WORK/static" "$WORK/dynamic"
for d in static dynamic; do
  for i in $(seq 1 100); do echo "line $i of the file"; done >"$WORK/$d/a.txt"
done
EDIT='{"command":"str_replace","path":"a.txt","old_str":"line 50 of","new_str":"LINE 50 of"}'
BACK='{"command":"str_replace","path":"a.txt","old_str":"LINE 50 of","new_str":"line 50 of"}'
"$BENCH" --spawns "$SPAWNS" --calls "$CALLS" --label "static vs dynamic: text-editor" \
  --tool text_editor --args "$EDIT" --args "$BACK" \
  --baseline-cmd "$DYNAMIC/mcp-server-text-editor --root $WORK/dynamic" --baseline-tool text_editor \
  -- "$STATIC/mcp-server-text-editor" --root "$WORK/static"
