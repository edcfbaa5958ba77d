#!/usr/bin/env bash
# dist/build.sh: the one command that builds every shipped artifact of mcp-suite, from a clean
# checkout, into dist/out/mcp-suite-<version>/ (version: the workspace's):
#
#   bin/<target>/                   every server binary, stripped, per target (DIST_TARGETS, default
#                                   all three): x86_64-unknown-linux-gnu and
#                                   aarch64-unknown-linux-gnu static (glibc, +crt-static);
#                                   x86_64-pc-windows-gnu with the C runtime linked in (only
#                                   system DLLs); on request (DIST_TARGETS) also
#                                   aarch64-apple-darwin and x86_64-apple-darwin, linked by zig,
#                                   checked by dist/macho.py (nothing here can run them); the cross
#                                   targets built by dist/cross.sh in the Debian unstable root of
#                                   dist/toolchain.sh
#   archives/                       <crate>-<version>-<target>.tar.gz (.zip for Windows; cargo
#                                   binstall's layout)
#   wheels/                         one wheel per server and target (PyPI: mcp-suite-<server>)
#   npm/                            per server a launcher and a platform package per target
#   image/mcp-suite-<version>.oci.tar   the FROM scratch image index (linux/amd64 + linux/arm64;
#                                   in local podman storage the index mcp-suite:<version> and the
#                                   images mcp-suite:<version>-amd64, -arm64)
#   mcpb/<name>-<version>.mcpb      an MCP Bundle per server (Claude Desktop's one-click install)
#                                   with the Windows and Linux binaries (macOS where built)
#   SHA256SUMS, sizes.txt
#
# The release binaries are built once, in their own target folder (DIST_TARGET_DIR, default
# target/dist: the flags differ from a normal build, which must not be rebuilt because of them),
# and every package wraps those same files. dist/test.sh then tests each artifact.
#
# DIST_LTO=false builds every target without LTO and with 16 codegen units (each crate
# optimised alone, in parallel; no whole-program pass per binary). The per-commit CI (.ci/run)
# builds that way: the release profile's fat LTO optimises and generates each of the five
# binaries again as one unit, most of a release build on two cores. The release workflow builds
# what ships, with the profile as it is.
#
# Needs: cargo (the x86_64-unknown-linux-gnu target), python3, binutils (dist/static.sh),
# npm, podman (DIST_NO_IMAGE=1 skips the image); root for the cross targets (debootstrap and chroot, see dist/toolchain.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
START=$(date +%s)
TARGET=x86_64-unknown-linux-gnu
TARGETS="${DIST_TARGETS:-x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-pc-windows-gnu}"
TARGET_DIR="${DIST_TARGET_DIR:-$ROOT/target/dist}"
VERSION="$(cargo metadata --no-deps --format-version 1 --offline 2>/dev/null \
  | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-shared"))')"
OUT="$ROOT/dist/out/mcp-suite-$VERSION"

say() { printf '\n== %s\n' "$*" >&2; }

rm -rf "$OUT"
mkdir -p "$OUT/bin"

PACKAGES=()
for manifest in servers/*/Cargo.toml; do
  PACKAGES+=(-p "$(sed -n 's/^name = "\(.*\)"$/\1/p' "$manifest" | head -1)")
done
BINARIES="$(cargo metadata --no-deps --format-version 1 --offline | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["manifest_path"].split("/")[-3] == "servers":
        for t in p["targets"]:
            if "bin" in t["kind"]:
                print(t["name"])')"
# Windows' own DLLs: a binary that needs any other (libgcc, winpthread) would not start on a
# machine without MinGW.
# bcrypt.dll: Cryptography API: Next Generation (System32 since Vista), where ring (the TLS of the
# OAuth resource server's metadata fetch) gets its random numbers.
WINDOWS_SYSTEM_DLLS="kernel32.dll ntdll.dll msvcrt.dll ws2_32.dll userenv.dll bcryptprimitives.dll bcrypt.dll advapi32.dll api-ms-win-core-synch-l1-2-0.dll"
NPM_PLATFORMS=()
PROFILE_ENV=()
if [[ "${DIST_LTO:-}" == false ]]; then
  PROFILE_ENV=(CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16)
fi

for target in $TARGETS; do
  target_start=$(date +%s)
  bin="$OUT/bin/$target"
  mkdir -p "$bin"
  ext=""
  case "$target" in
    x86_64-unknown-linux-gnu)
      say "static release binaries ($target, +crt-static, stripped) in $TARGET_DIR (dist/static.sh)"
      # relocation-model=static: a static executable at a fixed address, not a static-pie. A
      # static-pie applies ~21,000 relocations to itself at every start, which writes every page
      # of its 400 KB of relocated read-only data (vtables, string tables): ~100 copy-on-write
      # page faults and 0.4 MiB of private memory before main. Measured (bench/floor.sh, the same
      # run): cold start 1.8x the do-nothing server instead of 2.3x, idle RSS 6.0 MiB instead of
      # 6.7. The price is that the executable's own image is not randomised (ASLR still places
      # the stack, the heap, every mapping and thread stacks), as for Go's static binaries; the
      # README says so.
      env "${PROFILE_ENV[@]}" bash "$ROOT/dist/static.sh" "$TARGET_DIR" "${PACKAGES[@]}"
      built="$TARGET_DIR/$target/shipped"
      ;;
    aarch64-unknown-linux-gnu | x86_64-pc-windows-gnu | aarch64-apple-darwin | x86_64-apple-darwin)
      say "release binaries ($target, stripped) in $TARGET_DIR-cross, by dist/cross.sh"
      # rustc strips a Mach-O with rust-objcopy, which Debian's rustc does not ship, and a strip
      # after the link would break the signature: macOS binaries keep their symbols (no debug
      # information) and are signed last (dist/macsign.sh).
      strip=symbols
      [[ "$target" == *apple* ]] && strip=none
      env CROSS_TARGET_DIR="$TARGET_DIR-cross" CARGO_PROFILE_RELEASE_STRIP="$strip" \
        "${PROFILE_ENV[@]}" \
        bash "$ROOT/dist/cross.sh" "$target" build --release --locked "${PACKAGES[@]}" --bins
      built="$TARGET_DIR-cross/$target/release"
      [[ "$target" == *windows* ]] && ext=".exe"
      ;;
    *)
      echo "dist/build.sh: no recipe for target $target" >&2
      exit 2
      ;;
  esac
  for b in $BINARIES; do
    cp "$built/$b$ext" "$bin/$b$ext"
    if [[ "$target" == *apple* ]]; then
      bash "$ROOT/dist/macsign.sh" "$bin/$b"
      python3 "$ROOT/dist/macho.py" --arch "$([[ "$target" == aarch64* ]] && echo arm64 || echo x86_64)" \
        --min-os "$([[ "$target" == aarch64* ]] && echo 11.0 || echo 10.12)" --signed "$bin/$b" >&2
    elif [[ "$target" == *linux* ]]; then
      # A static executable has no program interpreter and needs no shared library.
      if readelf -lW "$bin/$b" | grep -q 'Requesting program interpreter' || readelf -dW "$bin/$b" | grep -q NEEDED; then
        echo "dist/build.sh: $b ($target) is not static:" >&2
        readelf -dW "$bin/$b" | grep NEEDED >&2 || true
        exit 1
      fi
    else
      for dll in $(bash "$ROOT/dist/toolchain.sh" exec x86_64-w64-mingw32-objdump -p "$bin/$b$ext" | sed -n 's/.*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u); do
        if [[ " $WINDOWS_SYSTEM_DLLS " != *" $dll "* ]]; then
          echo "dist/build.sh: $b$ext needs $dll, which Windows does not have" >&2
          exit 1
        fi
      done
    fi
  done
  say "release archives, wheels, npm platform packages for $target (dist/package.py)"
  python3 dist/package.py --bin-dir "$bin" --target "$target" --out "$OUT" --no-launchers
  say "$target: $(($(date +%s) - target_start)) s"
  NPM_PLATFORMS+=("$(python3 -c 'import sys; sys.path.insert(0, "dist"); import package; print(package.TARGETS[sys.argv[1]][1])' "$target")")
done

# Both macOS architectures built: one universal binary of each for the bundles (what Claude
# Desktop runs on any Mac), stitched from the two signed ones (each slice keeps its signature).
if [[ -d "$OUT/bin/aarch64-apple-darwin" && -d "$OUT/bin/x86_64-apple-darwin" ]]; then
  say "universal macOS binaries (rcodesign macho-universal-create) for the bundles"
  mkdir -p "$OUT/bin/universal-apple-darwin"
  for b in $BINARIES; do
    "$ROOT/target/tools/bin/rcodesign" macho-universal-create --output "$OUT/bin/universal-apple-darwin/$b" \
      "$OUT/bin/aarch64-apple-darwin/$b" "$OUT/bin/x86_64-apple-darwin/$b" >&2
    "$ROOT/target/tools/bin/rcodesign" verify "$OUT/bin/universal-apple-darwin/$b" >/dev/null 2>&1 \
      || { echo "dist/build.sh: the universal $b's signatures do not verify" >&2; exit 1; }
  done
fi

say "npm launchers for ${NPM_PLATFORMS[*]}"
python3 dist/package.py --launchers-only --platforms "$(IFS=,; echo "${NPM_PLATFORMS[*]}")" --out "$OUT"

say "MCP Bundles (dist/mcpb.py, packed with the official mcpb; DIST_NO_MCPB=1: folders only) at $(($(date +%s) - START)) s"
python3 dist/mcpb.py --version "$VERSION" --out "$OUT/mcpb" --bin-root "$OUT/bin"
if [[ "${DIST_NO_MCPB:-0}" != 1 ]]; then
  for folder in "$OUT"/mcpb/*/; do
    name="$(basename "$folder")"
    npx --yes @anthropic-ai/mcpb@2.1.2 validate "$folder/manifest.json" >&2
    npx --yes @anthropic-ai/mcpb@2.1.2 pack "$folder" "$OUT/mcpb/$name-$VERSION.mcpb" >&2
    rm -rf "$folder"
  done
fi

# The image holds the Linux binaries: none built, no image.
if [[ "${DIST_NO_IMAGE:-0}" != 1 && " $TARGETS " == *-linux-gnu\ * ]]; then
  # One image per Linux architecture built (FROM scratch + COPY: nothing runs at build time, so
  # no emulation is needed for arm64), tagged mcp-suite:<version>-<arch>, and one OCI image
  # index mcp-suite:<version> over them (what `docker pull` resolves per machine), saved whole.
  # Each server also gets its own image index, mcp-suite-<server>:<version>: the same layers, the
  # server's binary as the entry point, and the label the MCP Registry reads to prove who owns
  # the image (io.modelcontextprotocol.server.name, its registry name).
  ARCHES=()
  SERVER_IMAGES="$(python3 dist/registry.py images)"
  for index in "mcp-suite" $(cut -d' ' -f1 <<<"$SERVER_IMAGES" | sed 's/^/mcp-suite-/'); do
    podman manifest rm "$index:$VERSION" >/dev/null 2>&1 || podman rmi "$index:$VERSION" >/dev/null 2>&1 || true
    podman manifest create "$index:$VERSION" >/dev/null
  done
  for target in $TARGETS; do
    case "$target" in
      x86_64-unknown-linux-gnu) arch=amd64 ;;
      aarch64-unknown-linux-gnu) arch=arm64 ;;
      *) continue ;;
    esac
    say "container image mcp-suite:$VERSION-$arch (FROM scratch, linux/$arch) at $(($(date +%s) - START)) s"
    CONTEXT="$OUT/image/context-$arch"
    mkdir -p "$CONTEXT/rootfs/workspace" "$CONTEXT/rootfs/tmp"
    chmod 1777 "$CONTEXT/rootfs/tmp"
    for b in $BINARIES; do cp "$OUT/bin/$target/$b" "$CONTEXT/rootfs/$b"; done
    podman build --quiet --platform "linux/$arch" --build-arg "VERSION=$VERSION" -t "mcp-suite:$VERSION-$arch" \
      -f Containerfile "$CONTEXT" >/dev/null
    rm -rf "$CONTEXT"
    podman manifest add "mcp-suite:$VERSION" "containers-storage:localhost/mcp-suite:$VERSION-$arch" >/dev/null
    mkdir -p "$CONTEXT"
    while read -r short binary name flag; do
      {
        echo "FROM localhost/mcp-suite:$VERSION-$arch"
        echo "LABEL io.modelcontextprotocol.server.name=\"$name\""
        echo "ENTRYPOINT [\"/$binary\"]"
        if [[ -n "$flag" ]]; then echo "CMD [\"$flag\", \"/workspace\"]"; else echo "CMD []"; fi
      } >"$CONTEXT/Containerfile"
      podman build --quiet --platform "linux/$arch" -t "mcp-suite-$short:$VERSION-$arch" -f "$CONTEXT/Containerfile" "$CONTEXT" >/dev/null
      podman manifest add "mcp-suite-$short:$VERSION" "containers-storage:localhost/mcp-suite-$short:$VERSION-$arch" >/dev/null
    done <<<"$SERVER_IMAGES"
    rm -rf "$CONTEXT"
    ARCHES+=("$arch")
    IMAGE_SIZE="${IMAGE_SIZE:-}${IMAGE_SIZE:+, }$arch $(podman image inspect --format '{{.Size}}' "mcp-suite:$VERSION-$arch")"
  done
  say "image index mcp-suite:$VERSION (${ARCHES[*]}) saved as an OCI archive"
  rm -f "$OUT/image/mcp-suite-$VERSION.oci.tar"
  podman manifest push --quiet --all "mcp-suite:$VERSION" "oci-archive:$OUT/image/mcp-suite-$VERSION.oci.tar"
  while read -r short _; do
    say "image index mcp-suite-$short:$VERSION (${ARCHES[*]}) saved as an OCI archive"
    rm -f "$OUT/image/mcp-suite-$short-$VERSION.oci.tar"
    podman manifest push --quiet --all "mcp-suite-$short:$VERSION" "oci-archive:$OUT/image/mcp-suite-$short-$VERSION.oci.tar"
  done <<<"$SERVER_IMAGES"
fi

say "server.json per server for the MCP Registry (dist/registry.py)"
python3 dist/registry.py write "$OUT"

say "checksums and sizes at $(($(date +%s) - START)) s"
(cd "$OUT" && find . -type f ! -name SHA256SUMS ! -name sizes.txt | sort | sed 's|^\./||' | xargs sha256sum >SHA256SUMS)
{
  echo "mcp-suite $VERSION, built $(date -u +%Y-%m-%dT%H:%MZ) in $(($(date +%s) - START)) s"
  (cd "$OUT" && find . -type f ! -name sizes.txt ! -name SHA256SUMS | sort | sed 's|^\./||' | xargs du -b)
  if [[ -n "${IMAGE_SIZE:-}" ]]; then echo "image mcp-suite:$VERSION: $IMAGE_SIZE bytes (podman image inspect .Size)"; fi
} >"$OUT/sizes.txt"
cat "$OUT/sizes.txt"
say "done: $OUT ($(($(date +%s) - START)) s)"
