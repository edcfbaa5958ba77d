#!/usr/bin/env bash
# bench/peers.sh: mcp-suite's servers against peer MCP servers, each figure also as a ratio to the
# do-nothing mcp-baseline measured in the same mcp-bench run.
#
#   bash bench/peers.sh            # installs the peers in a temp dir, builds ours in release, runs
#
# Scenarios:
#   sample-tool   mcp-server-sample-tool, tool `hoge` (calc 1 + 2)
#   edit-100      a 100-line file: an edit of line 50, then its reverse, call after call
#   read-1mib     a 1 MiB text file read whole
# Servers of the text scenarios:
#   ours          mcp-server-text-editor --root DIR, tool `text_editor` (skipped while the binary
#                 does not exist)
#   fs            @modelcontextprotocol/server-filesystem (npm): read_text_file / edit_file
#   te            mcp-text-editor (PyPI, tumf): get_text_file_contents / edit_text_file_contents
#                 (edits name lines and carry SHA-256 hashes of the file and of the range; both
#                 states of the file are known in advance, so the hashes are computed here)
#
# Environment: SPAWNS (10), CALLS (300), READ_CALLS (100), WARMUP (20; with CALLS it must be even
# so that the edit scenario leaves the file as it found it), FS_VERSION (npm version, default
# latest), TE_VERSION (1.0.2), PEERS_TMP (the temp dir, removed at the end unless KEEP=1),
# NO_PEERS=1 (ours only). Needs cargo, python3; node/npm for server-filesystem.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${PEERS_TMP:-${TMPDIR:-/tmp}/mcp-suite-peers}"
SPAWNS="${SPAWNS:-10}"
CALLS="${CALLS:-300}"
READ_CALLS="${READ_CALLS:-100}"
WARMUP="${WARMUP:-20}"
FS_VERSION="${FS_VERSION:-}"
TE_VERSION="${TE_VERSION:-1.0.2}"
KEEP="${KEEP:-0}"
NO_PEERS="${NO_PEERS:-0}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$TARGET_DIR/release"

if (( (WARMUP + CALLS) % 2 != 0 )); then
  echo "peers.sh: WARMUP + CALLS must be even (each edit is followed by its reverse)" >&2
  exit 2
fi

say() { printf '\n== %s\n' "$*" >&2; }
note() { printf '   note: %s\n' "$*" >&2; }

cleanup() { if [[ "$KEEP" != 1 ]]; then rm -rf "$WORK"; fi; }
rm -rf "$WORK"
mkdir -p "$WORK/results" "$WORK/data"
trap cleanup EXIT
: >"$WORK/results/manifest.tsv"
: >"$WORK/results/notes.txt"
# A remark is shown now and in the summary's notes, on one line.
remark() {
  local text
  text="$(printf '%s' "$*" | tr '\n' ' ')"
  note "$text"
  printf '%s\n' "$text" >>"$WORK/results/notes.txt"
}

# ---------------------------------------------------------------------------------------------
say "building ours (release)"
(cd "$ROOT" && cargo build --release -p mcp-tests --bins)
for pkg in mcp-server-sample-tool mcp-server-text-editor; do
  dir="$ROOT/servers/${pkg#mcp-server-}"
  if [[ -f "$dir/Cargo.toml" ]]; then
    (cd "$ROOT" && cargo build --release -p "$pkg") || remark "$pkg does not build; its benchmarks are skipped"
  fi
done

# ---------------------------------------------------------------------------------------------
FS_BIN=""
TE_BIN=""
if [[ "$NO_PEERS" != 1 ]]; then
  say "installing @modelcontextprotocol/server-filesystem${FS_VERSION:+@$FS_VERSION} (npm)"
  if command -v npm >/dev/null &&
    npm install --silent --no-audit --no-fund --prefix "$WORK/npm" \
      "@modelcontextprotocol/server-filesystem${FS_VERSION:+@$FS_VERSION}" >&2; then
    # The package's own bin (a node script): spawned directly, not through npx, so that the
    # process measured is the server itself.
    FS_BIN="$WORK/npm/node_modules/.bin/mcp-server-filesystem"
    FS_VER="$(node -p "require('$WORK/npm/node_modules/@modelcontextprotocol/server-filesystem/package.json').version")"
    remark "server-filesystem $FS_VER, node $(node --version)"
  else
    remark "server-filesystem could not be installed (npm); skipped"
  fi

  say "installing mcp-text-editor==$TE_VERSION (PyPI, in a venv)"
  # mcp-text-editor 1.0.2 asks for mcp>=1.1.2 but does not run on the mcp 2.x SDK
  # (`Server.list_tools` is gone): pin the SDK below 2.
  if python3 -m venv "$WORK/venv" &&
    "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check \
      "mcp-text-editor==$TE_VERSION" "mcp<2" >&2; then
    TE_BIN="$WORK/venv/bin/mcp-text-editor"
    TE_MCP="$("$WORK/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
    remark "mcp-text-editor $TE_VERSION (mcp SDK $TE_MCP), $("$WORK/venv/bin/python" --version)"
  else
    remark "mcp-text-editor could not be installed (PyPI); skipped"
  fi
fi

# ---------------------------------------------------------------------------------------------
# Fixtures: one copy of the files per server, so that no server sees another's edits.
LINE_A="line 050: the quick brown fox jumps over the lazy dog"
LINE_B="line 050: THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG"
python3 - "$WORK/data/original" <<'PY'
import os, sys
d = sys.argv[1]
os.makedirs(d)
with open(os.path.join(d, "doc.txt"), "w") as f:
    for i in range(1, 101):
        f.write(f"line {i:03}: the quick brown fox jumps over the lazy dog\n")
line = "0123456789abcdef" * 3 + "the 1 MiB file.\n"   # 64 bytes
with open(os.path.join(d, "big.txt"), "w") as f:
    f.write(line * (1024 * 1024 // len(line) - 1))
    f.write("the last line of the 1 MiB file: every read must return it.\n".rjust(64, "-"))
PY
for who in ours fs te; do cp -r "$WORK/data/original" "$WORK/data/$who"; done

# run NAME SCENARIO SERVER -- mcp-bench options -- command...
# Runs mcp-bench --json into results/NAME.json; a failure is reported and the run goes on.
# Reads pass --expect-text "$BIG_END": every read must return the whole file.
run() {
  local name="$1" scenario="$2" server="$3"
  shift 3
  say "$scenario: $server"
  if "$BIN/mcp-bench" --json --label "$scenario: $server" "$@" >"$WORK/results/$name.json" \
    2>"$WORK/results/$name.err"; then
    printf '%s\t%s\t%s\n' "$scenario" "$server" "$name.json" >>"$WORK/results/manifest.tsv"
    return 0
  fi
  remark "$scenario: $server FAILED: $(tail -c 1500 "$WORK/results/$name.err")"
  return 1
}

# The edit scenario: one edit must change line 50 (and nothing else), the timed run (an even
# number of calls) must leave the file as it was.
edit_bench() {
  local name="$1" server="$2" dir="$3" tool="$4" fwd="$5" rev="$6"
  shift 6
  local edited="$WORK/data/edited.txt"
  sed "s/^$LINE_A\$/$LINE_B/" "$WORK/data/original/doc.txt" >"$edited"
  if ! "$BIN/mcp-bench" --json --spawns 1 --calls 1 --warmup 0 --no-baseline --tool "$tool" \
    --args "$fwd" "$@" >/dev/null 2>"$WORK/results/$name.check.err" ||
    ! cmp -s "$dir/doc.txt" "$edited"; then
    remark "edit-100: $server: one edit did not give the expected file; skipped ($(tail -c 800 "$WORK/results/$name.check.err"))"
    cp "$WORK/data/original/doc.txt" "$dir/doc.txt"
    return 0
  fi
  cp "$WORK/data/original/doc.txt" "$dir/doc.txt"
  if run "$name" edit-100 "$server" --spawns "$SPAWNS" --calls "$CALLS" --warmup "$WARMUP" \
    --tool "$tool" --args "$fwd" --args "$rev" "$@"; then
    if ! cmp -s "$dir/doc.txt" "$WORK/data/original/doc.txt"; then
      remark "edit-100: $server: after edit/reverse pairs the file is not as it was: some edits did not apply"
    fi
  fi
}

json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }

# ---------------------------------------------------------------------------------------------
if [[ -x "$BIN/mcp-server-sample-tool" ]]; then
  run sample-ours sample-tool mcp-server-sample-tool --spawns "$SPAWNS" --calls "$CALLS" \
    --warmup "$WARMUP" --tool hoge --args '{"action":"calc","args":{"x":1,"y":2}}' \
    -- "$BIN/mcp-server-sample-tool" || true
else
  remark "sample-tool: no mcp-server-sample-tool binary; skipped"
fi

BIG_END="every read must return it"
A="$(json_str "$LINE_A")"
B="$(json_str "$LINE_B")"

# ours: mcp-server-text-editor
D="$WORK/data/ours"
if [[ -x "$BIN/mcp-server-text-editor" ]]; then
  FWD="{\"command\":\"str_replace\",\"path\":\"$D/doc.txt\",\"old_str\":$A,\"new_str\":$B}"
  REV="{\"command\":\"str_replace\",\"path\":\"$D/doc.txt\",\"old_str\":$B,\"new_str\":$A}"
  # Ours fsyncs every write (file and directory) by default; the peers do not. Both are shown.
  edit_bench edit-ours ours "$D" text_editor "$FWD" "$REV" -- "$BIN/mcp-server-text-editor" --root "$D"
  edit_bench edit-ours-nofsync "ours --no-fsync" "$D" text_editor "$FWD" "$REV" \
    -- "$BIN/mcp-server-text-editor" --root "$D" --no-fsync
  # Ours cuts a view at 16,000 characters by default (Claude's max_characters); the peers return
  # the whole file, so the cut is lifted here. Ours also numbers the lines (cat -n).
  run read-ours read-1mib ours --spawns "$SPAWNS" --calls "$READ_CALLS" --warmup "$WARMUP" \
    --expect-text "$BIG_END" --tool text_editor --args "{\"command\":\"view\",\"path\":\"$D/big.txt\"}" \
    -- "$BIN/mcp-server-text-editor" --root "$D" --max-output-chars 0 || true
else
  remark "ours (mcp-server-text-editor): not built yet (no crate or no binary); its text benchmarks are skipped"
fi

# server-filesystem
D="$WORK/data/fs"
if [[ -n "$FS_BIN" ]]; then
  edit_bench edit-fs server-filesystem "$D" edit_file \
    "{\"path\":\"$D/doc.txt\",\"edits\":[{\"oldText\":$A,\"newText\":$B}]}" \
    "{\"path\":\"$D/doc.txt\",\"edits\":[{\"oldText\":$B,\"newText\":$A}]}" \
    -- "$FS_BIN" "$D"
  run read-fs read-1mib server-filesystem --spawns "$SPAWNS" --calls "$READ_CALLS" \
    --warmup "$WARMUP" --expect-text "$BIG_END" --tool read_text_file --args "{\"path\":\"$D/big.txt\"}" -- "$FS_BIN" "$D" || true
fi

# mcp-text-editor: hashes of the whole file and of line 50 in both states.
D="$WORK/data/te"
if [[ -n "$TE_BIN" ]]; then
  mapfile -t TE_EDITS < <(python3 - "$D/doc.txt" "$LINE_A" "$LINE_B" <<'PY'
import hashlib, json, sys
path, a, b = sys.argv[1], sys.argv[2] + "\n", sys.argv[3] + "\n"
h = lambda s: hashlib.sha256(s.encode()).hexdigest()
state_a = open(path).read()
state_b = state_a.replace(a, b)
def edit(before, old, new):
    return json.dumps({"files": [{"path": path, "file_hash": h(before), "patches": [
        {"line_start": 50, "line_end": 50, "contents": new, "range_hash": h(old)}]}]},
        separators=(",", ":"))
print(edit(state_a, a, b))
print(edit(state_b, b, a))
PY
  )
  # Its failures come back as text ("result": "error") without isError.
  edit_bench edit-te mcp-text-editor "$D" edit_text_file_contents "${TE_EDITS[0]}" "${TE_EDITS[1]}" \
    --error-text '"result": "error"' --error-text 'Error' -- "$TE_BIN"
  run read-te read-1mib mcp-text-editor --spawns "$SPAWNS" --calls "$READ_CALLS" \
    --warmup "$WARMUP" --tool get_text_file_contents --error-text 'Error' --expect-text "$BIG_END" \
    --args "{\"files\":[{\"file_path\":\"$D/big.txt\",\"ranges\":[{\"start\":1,\"end\":null}]}]}" \
    -- "$TE_BIN" || true
fi

# ---------------------------------------------------------------------------------------------
say "summary"
python3 - "$WORK/results" <<'PY'
import json, os, sys

res = sys.argv[1]
rows = []
with open(os.path.join(res, "manifest.tsv")) as f:
    for line in f:
        scenario, server, file = line.rstrip("\n").split("\t")
        with open(os.path.join(res, file)) as j:
            rows.append((scenario, server, json.load(j)))

FIELDS = [
    ("cold_start_median_ms", "cold start", "ms"),
    ("call_median_ms", "call median", "ms"),
    ("call_p99_ms", "call p99", "ms"),
    ("calls_per_sec", "calls/s", "rate"),
    ("idle_rss_kib", "idle RSS", "kib"),
    ("peak_rss_kib", "peak RSS", "kib"),
]

def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "ms":
        return f"{v * 1000:.0f} µs" if v < 1 else f"{v:.2f} ms" if v < 1000 else f"{v / 1000:.2f} s"
    if unit == "rate":
        return f"{v:.0f}"
    return f"{v / 1024:.1f} MiB"

def ratio(a, b):
    if a is None or not b:
        return "n/a"
    r = a / b
    return f"{r:.0f}x" if r >= 100 else f"{r:.1f}x" if r >= 1 else f"{r:.2f}x" if r >= 0.01 else f"{r:.4f}x"

def table(header, lines):
    widths = [max(len(r[i]) for r in [header] + lines) for i in range(len(header))]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in lines]
    print("\n".join(out))

print("Each cell: the figure, and its ratio to mcp-baseline measured in the same run.\n")
header = ["scenario", "server"] + [label for _, label, _ in FIELDS]
lines = []
seen = set()
for scenario, server, r in rows:
    if scenario not in seen and r.get("baseline"):
        seen.add(scenario)
        b = r["baseline"]
        lines.append([scenario, "(mcp-baseline)"] + [fmt(b[k], u) for k, _, u in FIELDS])
    s, b = r["server"], r.get("baseline") or {}
    lines.append([scenario, server] + [f"{fmt(s[k], u)} ({ratio(s[k], b.get(k))})" for k, _, u in FIELDS])
table(header, lines)

by_scenario = {}
for scenario, server, r in rows:
    by_scenario.setdefault(scenario, []).append((server, r["server"]))
cmp_lines = []
for scenario, servers in by_scenario.items():
    if len(servers) < 2:
        continue
    ref_name, ref = next(((n, s) for n, s in servers if n == "ours"), servers[0])
    for name, s in servers:
        if name != ref_name:
            cmp_lines.append([scenario, f"{name} / {ref_name}"] + [ratio(s[k], ref[k]) for k, _, _ in FIELDS])
if cmp_lines:
    print("\nPeers relative to each other (a peer's figure divided by the reference's; for calls/s,")
    print("below 1 means slower; for everything else, above 1 means slower or bigger).\n")
    table(["scenario", "ratio"] + [label for _, label, _ in FIELDS], cmp_lines)

notes = open(os.path.join(res, "notes.txt")).read().strip()
if notes:
    print("\nNotes:")
    for n in notes.splitlines():
        print(f"  - {n}")
PY
