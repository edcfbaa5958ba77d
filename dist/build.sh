#!/usr/bin/env bash
# dist/build.sh: the one command that builds every shipped artifact of mcp-suite, from a clean
# checkout, into dist/out/mcp-suite-<version>/ (version: the workspace's):
#
#   bin/x86_64-unknown-linux-gnu/   every server binary, static (glibc, +crt-static), stripped
#   archives/                       <crate>-<version>-<target>.tar.gz (cargo binstall's layout)
#   wheels/                         one wheel per server (PyPI: mcp-suite-<server>)
#   npm/                            per server a launcher and a linux-x64 platform package
#   image/mcp-suite-<version>.oci.tar   the FROM scratch image (also tagged mcp-suite:<version>
#                                   in local podman storage)
#   mcpb/manifest.json              an MCP Bundle manifest per server (validated by dist/test.sh)
#   SHA256SUMS, sizes.txt
#
# The release binaries are built once, in their own target folder (DIST_TARGET_DIR, default
# target/dist: the flags differ from a normal build, which must not be rebuilt because of them),
# and every package wraps those same files. dist/test.sh then tests each artifact.
#
# Needs: cargo (the x86_64-unknown-linux-gnu target), python3, npm, podman (DIST_NO_IMAGE=1 skips
# the image).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
START=$(date +%s)
TARGET=x86_64-unknown-linux-gnu
TARGET_DIR="${DIST_TARGET_DIR:-$ROOT/target/dist}"
VERSION="$(cargo metadata --no-deps --format-version 1 --offline 2>/dev/null \
  | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-shared"))')"
OUT="$ROOT/dist/out/mcp-suite-$VERSION"
BIN="$OUT/bin/$TARGET"

say() { printf '\n== %s\n' "$*" >&2; }

rm -rf "$OUT"
mkdir -p "$BIN"

say "static release binaries ($TARGET, +crt-static, stripped) in $TARGET_DIR"
# --target keeps build scripts and proc-macros dynamic (they run on this machine); only the
# shipped binaries are static. Strip through the environment: the workspace's release profile
# (used by the benchmarks) stays as it is.
# getrandom (the WebSocket keys of the ide-bridge, tokens) finds glibc's getrandom() with dlsym,
# which a static binary does not have, and then falls back to /dev/urandom: absent in an empty
# root, so the bridge panicked there. linux_getrandom calls the function directly (Linux 3.17+).
PACKAGES=()
for manifest in servers/*/Cargo.toml; do
  PACKAGES+=(-p "$(sed -n 's/^name = "\(.*\)"$/\1/p' "$manifest" | head -1)")
done
RUSTFLAGS="-C target-feature=+crt-static --cfg getrandom_backend=\"linux_getrandom\"" CARGO_PROFILE_RELEASE_STRIP=symbols \
  cargo build --release --locked --target "$TARGET" --target-dir "$TARGET_DIR" "${PACKAGES[@]}" --bins

BINARIES="$(cargo metadata --no-deps --format-version 1 --offline | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["manifest_path"].split("/")[-3] == "servers":
        for t in p["targets"]:
            if "bin" in t["kind"]:
                print(t["name"])')"
for b in $BINARIES; do
  cp "$TARGET_DIR/$TARGET/release/$b" "$BIN/$b"
  # A static executable has no program interpreter and needs no shared library.
  if readelf -lW "$BIN/$b" | grep -q 'Requesting program interpreter' || readelf -dW "$BIN/$b" | grep -q NEEDED; then
    echo "dist/build.sh: $b is not static:" >&2
    readelf -dW "$BIN/$b" | grep NEEDED >&2 || true
    exit 1
  fi
done

say "release archives, wheels, npm packages (dist/package.py)"
python3 dist/package.py --bin-dir "$BIN" --target "$TARGET" --out "$OUT"

say "MCP Bundle manifests"
python3 dist/mcpb.py --version "$VERSION" --out "$OUT/mcpb"

if [[ "${DIST_NO_IMAGE:-0}" != 1 ]]; then
  say "container image mcp-suite:$VERSION (FROM scratch)"
  CONTEXT="$OUT/image/context"
  mkdir -p "$CONTEXT/rootfs/workspace" "$CONTEXT/rootfs/tmp"
  chmod 1777 "$CONTEXT/rootfs/tmp"
  for b in $BINARIES; do cp "$BIN/$b" "$CONTEXT/rootfs/$b"; done
  podman build --quiet --build-arg "VERSION=$VERSION" -t "mcp-suite:$VERSION" -f Containerfile "$CONTEXT" >/dev/null
  rm -rf "$CONTEXT"
  podman save --quiet --format oci-archive -o "$OUT/image/mcp-suite-$VERSION.oci.tar" "mcp-suite:$VERSION"
  IMAGE_SIZE="$(podman image inspect --format '{{.Size}}' "mcp-suite:$VERSION")"
fi

say "checksums and sizes"
(cd "$OUT" && find . -type f ! -name SHA256SUMS ! -name sizes.txt | sort | sed 's|^\./||' | xargs sha256sum >SHA256SUMS)
{
  echo "mcp-suite $VERSION, built $(date -u +%Y-%m-%dT%H:%MZ) in $(($(date +%s) - START)) s"
  (cd "$OUT" && find . -type f ! -name sizes.txt ! -name SHA256SUMS | sort | sed 's|^\./||' | xargs du -b)
  if [[ -n "${IMAGE_SIZE:-}" ]]; then echo "$IMAGE_SIZE	image mcp-suite:$VERSION (podman image inspect .Size)"; fi
} >"$OUT/sizes.txt"
cat "$OUT/sizes.txt"
say "done: $OUT ($(($(date +%s) - START)) s)"
