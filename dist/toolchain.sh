#!/usr/bin/env bash
# dist/toolchain.sh: the cross toolchain for the other platforms, from Debian's packages only.
#
# The machine's rustup toolchain has only the x86_64-unknown-linux-gnu std, and rustup's download
# server is not a registry this project may use. Debian unstable packages the rest: rustc/cargo
# with rust-src (Windows and macOS std built from it with -Zbuild-std), mingw-w64, the arm64 std
# (libstd-rust-dev:arm64) with gcc-aarch64-linux-gnu, and wine for running Windows binaries. This
# script debootstraps a Debian unstable root into $MCP_TOOLCHAIN (default target/toolchain/sid;
# .ci/run keeps it in its cache, keyed by this script)
# from the mirror apt already uses and installs those packages there. dist/cross.sh runs cargo
# inside it with the checkout bind-mounted at the same path.
#
# Idempotent: a finished root (the stamp file) is reused. Needs root (debootstrap, chroot).
#   dist/toolchain.sh                 set up (or reuse) the root; prints its path
#   dist/toolchain.sh exec CMD ARGS   run CMD in the root (set up first if needed), this checkout
#                                     bind-mounted at the same path and the host's cargo registry
#                                     shared, in a private mount namespace (nothing stays mounted)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SID="${MCP_TOOLCHAIN:-$ROOT/target/toolchain/sid}"
STAMP="$SID/.mcp-suite-toolchain-v1"
PACKAGES=(
  ca-certificates rustc cargo rust-src
  gcc-mingw-w64-x86-64-posix mingw-w64-x86-64-dev
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  wine wine64 qemu-user python3 python3-venv file binutils
)

enter() {
  local cargo_home="${CARGO_HOME:-$HOME/.cargo}"
  mkdir -p "$cargo_home/registry"
  exec unshare --mount --propagation private bash -c '
    set -euo pipefail
    sid="$1"; root="$2"; cargo_home="$3"; shift 3
    mkdir -p "$sid$root" "$sid/root/.cargo/registry" "$sid/proc" "$sid/dev" "$sid/tmp"
    mount --bind "$root" "$sid$root"
    # A checkout whose target/ is a link to a build cache elsewhere (.ci/run): the cache too,
    # at its own path, so that the link resolves inside the root as outside.
    if [ -L "$root/target" ]; then
      real="$(readlink -f "$root/target")"
      mkdir -p "$real" "$sid$real"
      mount --bind "$real" "$sid$real"
    fi
    mount --bind "$cargo_home/registry" "$sid/root/.cargo/registry"
    mount -t proc proc "$sid/proc"
    mount --rbind /dev "$sid/dev"
    chmod 1777 "$sid/tmp"
    exec chroot "$sid" /usr/bin/env --chdir="$PWD" \
      HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
  ' enter "$SID" "$ROOT" "$cargo_home" "$@"
}

if [[ -f "$STAMP" ]]; then
  if [[ "${1:-}" == exec ]]; then
    shift
    enter "$@"
  fi
  echo "$SID"
  exit 0
fi

if [[ "$(id -u)" != 0 ]]; then
  echo "dist/toolchain.sh: needs root (debootstrap and chroot)" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# The mirror apt already uses (deb822 or one-line sources).
MIRROR="$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)"
if [[ -z "$MIRROR" ]]; then
  MIRROR="$(sed -n 's/^deb \(http[^ ]*debian\)\/* .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -1)"
fi
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

start=$(date +%s)
rm -rf "$SID"
mkdir -p "$SID"
echo "dist/toolchain.sh: debootstrap unstable from $MIRROR into $SID" >&2
debootstrap --variant=minbase --include=ca-certificates unstable "$SID" "$MIRROR" >"$SID.debootstrap.log" 2>&1 || {
  tail -20 "$SID.debootstrap.log" >&2
  exit 1
}
# A snapshot mirror's Release file may be past its Valid-Until.
cat >"$SID/etc/apt/apt.conf.d/90mcp-suite" <<'EOF'
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
EOF
# The host's resolver and CA bundle (cargo in the root fetches crates).
cp /etc/resolv.conf "$SID/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$SID/etc/ssl/certs/ca-certificates.crt" 2>/dev/null || true
chroot "$SID" dpkg --add-architecture arm64
chroot "$SID" apt-get update -qq
chroot "$SID" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${PACKAGES[@]}" libstd-rust-dev:arm64 >"$SID.apt.log" 2>&1 || {
  tail -30 "$SID.apt.log" >&2
  exit 1
}
chroot "$SID" rustc --version >&2
touch "$STAMP"
echo "dist/toolchain.sh: ready in $(( $(date +%s) - start )) s" >&2
if [[ "${1:-}" == exec ]]; then
  shift
  enter "$@"
fi
echo "$SID"
