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
#   - stripped (binutils' strip --strip-all).
#
# --target keeps build scripts and proc-macros dynamic (they run on this machine); only the
# shipped binaries are static. Needs cargo, python3 and strip (binutils).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ $# -ge 3 ]] || { echo "usage: dist/static.sh TARGET_DIR -p PACKAGE [-p PACKAGE ...]" >&2; exit 2; }
TARGET_DIR="$1"
shift
TARGET=x86_64-unknown-linux-gnu
OUT="$TARGET_DIR/$TARGET/release"
SHIPPED="$TARGET_DIR/$TARGET/shipped"
command -v strip >/dev/null || { echo "dist/static.sh: strip is not installed (apt-get install binutils)" >&2; exit 1; }

# getrandom (the WebSocket keys of the ide-bridge, tokens) finds glibc's getrandom() with dlsym,
# which a static binary does not have, and then falls back to /dev/urandom: absent in an empty
# root. linux_getrandom calls the function directly (Linux 3.17+).
export RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static --cfg getrandom_backend=\"linux_getrandom\""
t0=$(date +%s)
cargo build --quiet --release --locked --target "$TARGET" --target-dir "$TARGET_DIR" "$@" --bins
echo "dist/static.sh: release build $(( $(date +%s) - t0 )) s" >&2

BINARIES="$(cargo metadata --no-deps --format-version 1 --offline | python3 -c '
import json, sys
wanted = set(sys.argv[2::2])
for p in json.load(sys.stdin)["packages"]:
    if p["name"] in wanted:
        for t in p["targets"]:
            if "bin" in t["kind"]:
                print(t["name"])' "$@")"
mkdir -p "$SHIPPED"
for binary in $BINARIES; do
  rm -f "$SHIPPED/$binary"
  strip --strip-all -o "$SHIPPED/$binary" "$OUT/$binary"
done
