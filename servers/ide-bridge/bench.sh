#!/usr/bin/env bash
# servers/ide-bridge/bench.sh: the README's benchmark of the IDE bridge, reproducible.
#
#   bash servers/ide-bridge/bench.sh          # builds the release binaries if needed, then runs
#
# A temporary workspace holds big.txt (100,000 bytes of text) and small.txt (96 bytes). One
# ide-bridge-host serves it (port 0, its own discovery dir); mcp-bench then measures, each against
# the do-nothing mcp-baseline in the same run:
#   1. bridge read_file big.txt     (MCP client → bridge → host → disk and back)
#   2. text_editor view big.txt     (the direct, one-process read of the same file, unclipped)
#   3. bridge read_file small.txt   (small reads per second, CONCURRENCY in flight)
#   4. text_editor view small.txt
# Every call must succeed and return the whole file (mcp-bench fails otherwise), so the
# "64 in flight without error" target is checked by the run itself.
#
# Environment: SPAWNS (20), CALLS (2000), WARMUP (100), CONCURRENCY (64), PROFILE (release;
# `debug` checks the script quickly with the debug binaries, its figures mean nothing),
# NO_BUILD=1 (use the binaries as they are), JSON=1 (mcp-bench's JSON instead of its tables),
# BENCH_TMP (the temp dir, removed at the end unless KEEP=1). Needs cargo.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SPAWNS="${SPAWNS:-20}"
CALLS="${CALLS:-2000}"
WARMUP="${WARMUP:-100}"
CONCURRENCY="${CONCURRENCY:-64}"
PROFILE="${PROFILE:-release}"
KEEP="${KEEP:-0}"
WORK="${BENCH_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/ide-bridge-bench.XXXXXX")}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$TARGET_DIR/$PROFILE"
TOKEN="bench-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"

say() { printf '\n== %s\n' "$*" >&2; }

host_pid=""
cleanup() {
  if [[ -n "$host_pid" ]]; then
    kill -TERM "$host_pid" 2>/dev/null || true
    wait "$host_pid" 2>/dev/null || true
  fi
  if [[ "$KEEP" != 1 ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

if [[ "${NO_BUILD:-0}" != 1 ]]; then
  say "building ($PROFILE): mcp-server-ide-bridge, mcp-server-text-editor, mcp-bench, mcp-baseline"
  profile_flag=()
  [[ "$PROFILE" == release ]] && profile_flag=(--release)
  # Two invocations: `--bin` would narrow the first one to those binaries of every package.
  (cd "$ROOT" && cargo build "${profile_flag[@]}" -p mcp-server-ide-bridge -p mcp-server-text-editor --bins \
    && cargo build "${profile_flag[@]}" -p mcp-tests --bin mcp-bench --bin mcp-baseline)
fi
for b in ide-bridge-host mcp-server-ide-bridge mcp-server-text-editor mcp-bench mcp-baseline; do
  [[ -x "$BIN/$b" ]] || { echo "bench.sh: $BIN/$b is missing (run without NO_BUILD=1)" >&2; exit 1; }
done

mkdir -p "$WORK/ws" "$WORK/xdg"
chmod 700 "$WORK/xdg"
WS="$(cd "$WORK/ws" && pwd -P)"
# 100,000 bytes of source-like text whose last line marks the end (the whole file must come back).
python3 - "$WS" <<'EOF'
import sys
line = "    let value = compute(alpha, beta, \"quoted\", 'c', 42); // a comment\n"
end = "// END-OF-BIG-FILE\n"
body = (line * (100_000 // len(line) + 1))[: 100_000 - len(end)]
body = body[: body.rfind("\n") + 1]
body += "x" * (100_000 - len(end) - len(body) - 1) + "\n" + end
assert len(body.encode()) == 100_000, len(body)
open(f"{sys.argv[1]}/big.txt", "w").write(body)
small = "fn main() {\n    println!(\"hello from a small file\");\n}\n// SMALL-END\n"
small += "/" * (96 - len(small) - 1) + "\n"
assert len(small.encode()) == 96, len(small)
open(f"{sys.argv[1]}/small.txt", "w").write(small)
EOF

say "starting ide-bridge-host on $WS"
XDG_RUNTIME_DIR="$WORK/xdg" RUST_LOG=warn "$BIN/ide-bridge-host" --root "$WS" --port 0 --token "$TOKEN" \
  --no-fsync 2>"$WORK/host.log" &
host_pid=$!
port=""
for _ in $(seq 1 200); do
  port="$(sed -n 's#.*listening on ws://127\.0\.0\.1:\([0-9]*\).*#\1#p' "$WORK/host.log" | head -n1)"
  [[ -n "$port" ]] && break
  kill -0 "$host_pid" 2>/dev/null || { cat "$WORK/host.log" >&2; exit 1; }
  sleep 0.05
done
[[ -n "$port" ]] || { echo "bench.sh: the host did not start" >&2; cat "$WORK/host.log" >&2; exit 1; }
URL="ws://127.0.0.1:$port"

json_flag=()
[[ "${JSON:-0}" == 1 ]] && json_flag=(--json)
bench() {
  local label="$1" expect="$2"
  shift 2
  say "$label"
  "$BIN/mcp-bench" "${json_flag[@]}" --label "$label" --spawns "$SPAWNS" --calls "$CALLS" --warmup "$WARMUP" \
    --concurrency "$CONCURRENCY" --expect-text "$expect" "$@"
}

bridge=("$BIN/mcp-server-ide-bridge" --url "$URL" --token "$TOKEN")
# --max-output-chars 0: the whole file, as the bridge returns it (text_editor clips at 16,000
# characters by default, which would compare a 100 KB read with a 16 KB one).
editor=("$BIN/mcp-server-text-editor" --root "$WS" --max-output-chars 0)
bench "100 KB: bridge read_file" END-OF-BIG-FILE --tool read_file --args '{"path":"big.txt"}' -- "${bridge[@]}"
bench "100 KB: text_editor view" END-OF-BIG-FILE --tool text_editor \
  --args "{\"command\":\"view\",\"path\":\"$WS/big.txt\"}" -- "${editor[@]}"
bench "96 B: bridge read_file" SMALL-END --tool read_file --args '{"path":"small.txt"}' -- "${bridge[@]}"
bench "96 B: text_editor view" SMALL-END --tool text_editor \
  --args "{\"command\":\"view\",\"path\":\"$WS/small.txt\"}" -- "${editor[@]}"

kill -0 "$host_pid" 2>/dev/null || { echo "bench.sh: the host died during the run" >&2; cat "$WORK/host.log" >&2; exit 1; }
say "done (targets: 100 KB bridge median ≤ 1 ms; $CONCURRENCY in flight without error; ≥ 5,000 small reads/s)"
