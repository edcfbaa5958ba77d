#!/usr/bin/env bash
# dist/static.sh: the x86_64 Linux release binaries as they ship, for dist/build.sh and
# bench/floor.sh alike:
#
#   bash dist/static.sh TARGET_DIR -p PACKAGE [-p PACKAGE ...]
#
# leaves every binary of those packages, as shipped, in TARGET_DIR/x86_64-unknown-linux-gnu/shipped/
# (cargo's release/ next to it keeps them unstripped, for profiles):
#   - static executables: +crt-static, relocation-model=static (not a static-pie; see
#     dist/build.sh for why), getrandom's linux_getrandom backend;
#   - each stdio server's code in the order its start runs it: dist/startup_order.py records the
#     functions a first session runs (under valgrind); then the binary is linked again with that
#     order (lld's --symbol-ordering-file): dist/ordering-gcc, the linker here, kept the first
#     link's inputs and links them again (the same objects, so the same symbol names). Without a
#     kept link, the binary's output is removed so that cargo compiles and links that one crate
#     again (its dependencies stay); checked here on the linked binary's symbols;
#   - stripped (binutils' strip --strip-all, after the check).
# A binary with no recorded session (ide-bridge-host, not a stdio server; the test tools) is
# only stripped.
#
# --target keeps build scripts and proc-macros dynamic (they run on this machine); only the
# shipped binaries are static. Needs cargo, python3, valgrind, nm and strip (binutils).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ $# -ge 3 ]] || { echo "usage: dist/static.sh TARGET_DIR -p PACKAGE [-p PACKAGE ...]" >&2; exit 2; }
TARGET_DIR="$1"
shift
TARGET=x86_64-unknown-linux-gnu
OUT="$TARGET_DIR/$TARGET/release"
SHIPPED="$TARGET_DIR/$TARGET/shipped"
export STARTUP_ORDER_DIR="$TARGET_DIR/startup-order"
for tool in valgrind nm strip; do
  command -v "$tool" >/dev/null || { echo "dist/static.sh: $tool is not installed (apt-get install valgrind binutils)" >&2; exit 1; }
done

# getrandom (the WebSocket keys of the ide-bridge, tokens) finds glibc's getrandom() with dlsym,
# which a static binary does not have, and then falls back to /dev/urandom: absent in an empty
# root. linux_getrandom calls the function directly (Linux 3.17+).
export RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static --cfg getrandom_backend=\"linux_getrandom\""
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER="$ROOT/dist/ordering-gcc"
build() { cargo build --quiet --release --locked --target "$TARGET" --target-dir "$TARGET_DIR" "$@" --bins; }
t0=$(date +%s)
build "$@"
echo "dist/static.sh: release build $(( $(date +%s) - t0 )) s" >&2

BINARIES="$(cargo metadata --no-deps --format-version 1 --offline | python3 -c '
import json, sys
wanted = set(sys.argv[2::2])
for p in json.load(sys.stdin)["packages"]:
    if p["name"] in wanted:
        for t in p["targets"]:
            if "bin" in t["kind"]:
                print(t["name"])' "$@")"

# Record each server's start; where the binary was linked without an order that covers it,
# remove the binary so that the second build links it again, with the order.
mkdir -p "$STARTUP_ORDER_DIR" "$SHIPPED"
t0=$(date +%s)
relink=0
ORDERED=()
for binary in $BINARIES; do
  order="$STARTUP_ORDER_DIR/$binary.txt"
  if python3 dist/startup_order.py "$OUT/$binary" "$order.new"; then
    ORDERED+=("$binary")
    # Already linked with an order that covers this start: the functions it ran lie together.
    if [[ -f "$order" ]] && python3 dist/startup_order.py --check "$OUT/$binary" "$order.new" 2>/dev/null; then
      rm -f "$order.new"
      continue
    fi
    mv "$order.new" "$order"
    # The link dist/ordering-gcc kept: linked again with the order, in about a second.
    if [[ -f "$STARTUP_ORDER_DIR/link/$binary/link.json" ]] \
      && linked="$(python3 dist/ordering-gcc --relink "$STARTUP_ORDER_DIR" "$binary")"; then
      ln -f "$linked" "$OUT/$binary"
      continue
    fi
    # No kept link (or it failed): cargo compiles and links that crate again.
    find "$OUT/deps" -maxdepth 1 -type f -name "${binary//-/_}-*" ! -name '*.*' -delete
    rm -f "$OUT/$binary"
    relink=1
  else
    status=$?
    [[ $status -eq 2 ]] || exit "$status"
    rm -f "$order" "$order.new"
  fi
done
echo "dist/static.sh: starts recorded and linked in start order $(( $(date +%s) - t0 )) s" >&2
if [[ $relink -eq 1 ]]; then
  build "$@"
  echo "dist/static.sh: built again for the start order (no kept link) $(( $(date +%s) - t0 )) s" >&2
fi

for binary in "${ORDERED[@]}"; do
  python3 dist/startup_order.py --check "$OUT/$binary" "$STARTUP_ORDER_DIR/$binary.txt"
done
for binary in $BINARIES; do
  rm -f "$SHIPPED/$binary"
  strip --strip-all -o "$SHIPPED/$binary" "$OUT/$binary"
done
