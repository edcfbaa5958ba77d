#!/usr/bin/env bash
# dist/cross.sh: cargo for another platform, run in the Debian unstable root of
# dist/toolchain.sh (set up on first use; `dist/toolchain.sh exec`).
#
#   dist/cross.sh TARGET CARGO-ARGS...     e.g. dist/cross.sh aarch64-unknown-linux-gnu build -p mcp-shared
#   dist/cross.sh TARGET prepare           set up the root (and zig) for TARGET, build nothing
#
# TARGET is one of
#   aarch64-unknown-linux-gnu   Debian's arm64 std; static glibc (+crt-static) like the x86_64 build;
#                               `cargo test`/`run` execute under qemu-aarch64
#   x86_64-pc-windows-gnu       std built from rust-src (-Zbuild-std, RUSTC_BOOTSTRAP=1), mingw-w64,
#                               static C runtime; `cargo test`/`run` execute under wine
#   aarch64-apple-darwin, x86_64-apple-darwin
#                               std built from rust-src, linked by zig (cargo-zigbuild and ziglang
#                               from PyPI, in a venv in the root: `cargo SUB` runs as
#                               `cargo zig<SUB>`), minimum macOS 11.0 / 10.12 as the wheel tags
#                               say; nothing here can run them
# Builds go to target/cross (CROSS_TARGET_DIR) so that the host's own builds are not invalidated.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${1:?usage: dist/cross.sh TARGET CARGO-ARGS...}"
shift
TARGET_DIR="${CROSS_TARGET_DIR:-$ROOT/target/cross}"
mkdir -p "$TARGET_DIR"

ENV=(
  "CARGO_HOME=/root/.cargo" "CARGO_TERM_COLOR=never" "CARGO_INCREMENTAL=0"
  "CARGO_TARGET_DIR=$TARGET_DIR"
)
# The caller's profile settings (dist/build.sh strips through CARGO_PROFILE_RELEASE_STRIP).
while IFS='=' read -r name value; do
  ENV+=("$name=$value")
done < <(env | grep -E '^CARGO_PROFILE_[A-Z_]+=' || true)
BUILD_STD=()
case "$TARGET" in
  aarch64-unknown-linux-gnu)
    ENV+=(
      "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc"
      "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=qemu-aarch64"
      "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS=-C target-feature=+crt-static -C relocation-model=static --cfg getrandom_backend=\"linux_getrandom\""
      "CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc"
    )
    ;;
  x86_64-pc-windows-gnu)
    ENV+=(
      "RUSTC_BOOTSTRAP=1"
      "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc-posix"
      "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine"
      "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS=-C target-feature=+crt-static"
      "CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix"
      "WINEPREFIX=/root/.wine" "WINEDEBUG=-all"
    )
    BUILD_STD=(-Zbuild-std=std,panic_unwind)
    ;;
  aarch64-apple-darwin | x86_64-apple-darwin)
    ENV+=(
      "RUSTC_BOOTSTRAP=1"
      "PATH=/opt/zig/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
      "MACOSX_DEPLOYMENT_TARGET=$([[ "$TARGET" == aarch64* ]] && echo 11.0 || echo 10.12)"
    )
    BUILD_STD=(-Zbuild-std=std,panic_unwind)
    ZIG=1
    ;;
  *)
    echo "dist/cross.sh: unknown target $TARGET" >&2
    exit 2
    ;;
esac

# cargo SUBCOMMAND [args] -> cargo SUBCOMMAND --target T [build-std] [args]
SUB="${1:?a cargo subcommand}"
shift
cd "$ROOT"
if [[ "${ZIG:-0}" == 1 ]]; then
  # zig as the linker for Apple targets: cargo-zigbuild and ziglang, pinned, from PyPI.
  bash "$ROOT/dist/toolchain.sh" exec sh -c 'test -x /opt/zig/bin/cargo-zigbuild || {
    python3 -m venv /opt/zig && /opt/zig/bin/pip install --quiet --no-cache-dir cargo-zigbuild==0.24.1 ziglang==0.17.1; }' >&2
  SUB="zig$SUB"
fi
# `dist/cross.sh TARGET prepare`: only set up what the target needs (the root, zig), build nothing.
if [[ "$SUB" == prepare || "$SUB" == zigprepare ]]; then
  exec bash "$ROOT/dist/toolchain.sh" exec true
fi
exec bash "$ROOT/dist/toolchain.sh" exec env "${ENV[@]}" cargo "$SUB" --target "$TARGET" "${BUILD_STD[@]}" "$@"
