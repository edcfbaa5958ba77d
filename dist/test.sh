#!/usr/bin/env bash
# dist/test.sh: installs every artifact dist/build.sh made into a clean place and runs a real MCP
# session with each server through it (tests/artifacts/mcp_session.py: initialize, tools/list, one call that
# works, one refused call, clean exit on EOF). Any failure fails the script.
#
#   sudo bash dist/test.sh [dist/out/mcp-suite-<version>]
#
#   static      each binary has no interpreter and no NEEDED library, and serves from a chroot
#               holding nothing but itself and a work folder (a dynamic executable put in the same
#               chroot must fail: the check can fail)
#   archives    each release archive holds its crate's binaries where cargo binstall's metadata
#               (servers/*/Cargo.toml) says, and they serve
#   image       podman create + export of mcp-suite:<version>, each server run by chroot in it
#               (running containers is not possible on the build machine, see README)
#   recipe      dist/recipe.Containerfile: a busybox base + `COPY --from` of our image, exported,
#               servers started by name from PATH through the base's shell, in a chroot
#   wheels      pip install of each wheel file into a fresh venv, `uv tool install` of it, offline;
#               `twine check`
#   npm         `npm install --offline` of the launcher and platform tarballs into an empty
#               folder, the server started with `npx --no-install <command>`
#   mcpb        each .mcpb unpacked and `mcpb validate`d, and its server started from the
#               unpacked bundle as Claude Desktop does (the manifest's command for the platform,
#               ${__dirname} and ${user_config.*} filled): linux natively, win32 under wine;
#               `mcpb sign` of a copy of each with a throwaway certificate, its signature checked
#               (DIST_NO_MCPB=1 skips: it needs npm's registry for @anthropic-ai/mcpb)
#   server images  each server's own image mcp-suite-<server>:<version>: its entry point and
#               default arguments, exported and run by chroot
#   registry    each server.json against the vendored registry schema, and the ownership
#               markers in the npm packages, wheels and images (dist/registry.py check)
#   arm64       linux arm64 (aarch64-unknown-linux-gnu), through qemu-aarch64: each static binary
#               in an empty chroot with only the emulator beside it; the archives; the image
#               index (it names both images) and its arm64 image exported; the recipe built for
#               linux/arm64 (COPY --from the index); the wheels (pip --platform); the npm
#               packages (refused on x86_64, forced in, the launcher run as on arm64)
#   windows     Windows x64 (x86_64-pc-windows-gnu) under wine 10 in the root of
#               dist/toolchain.sh: the .zip archives, the wheels (pip --platform win_amd64) and
#               the npm packages (npm --os=win32, the launcher run as on win32), each with the
#               Windows path cases (drive paths outside, ..\, CON, NUL, streams, trailing dots)
#   Either is skipped when dist/build.sh did not build its target (DIST_TARGETS).
#
# Needs root (chroot), python3, npm, podman (DIST_NO_IMAGE=1 skips image and recipe), busybox
# (static, for the recipe's base), and uv + twine (installed from PyPI into a temp venv if absent).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$(ls -d "$ROOT"/dist/out/mcp-suite-* 2>/dev/null | sort -V | tail -1)}"
[[ -d "$OUT" ]] || { echo "dist/test.sh: no dist/out/mcp-suite-*; run dist/build.sh first" >&2; exit 2; }
OUT="$(cd "$OUT" && pwd)"
VERSION="${OUT##*/mcp-suite-}"
TARGET=x86_64-unknown-linux-gnu
BIN="$OUT/bin/$TARGET"
SESSION=(python3 "$ROOT/tests/artifacts/mcp_session.py")
# The official MCPB tools, pinned (as dist/build.sh packs with them).
MCPB=(npx --yes @anthropic-ai/mcpb@2.1.2)
TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcp-suite-dist-test.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
FAILED=0

say() { printf '\n== %s\n' "$*" >&2; }
fail() { echo "FAIL $*" >&2; FAILED=$((FAILED + 1)); }
[[ "$(id -u)" == 0 ]] || { echo "dist/test.sh: chroot needs root" >&2; exit 2; }

# session SERVER DIR_AS_SEEN HOST_DIR LABEL PREFIX... -- runs one server as `PREFIX BINARY`.
# PREFIX is the command that reaches the binary (`chroot R`, a venv's bin/, `npx --no-install`);
# the server's folder flags are added here, per server.
session() {
  local server="$1" work="$2" host_work="$3" label="$4" prefix="$5" bin_prefix="$6"
  local cmd host=()
  case "$server" in
    text-editor) cmd="${bin_prefix}mcp-server-text-editor --root $work" ;;
    draft-post) cmd="${bin_prefix}mcp-server-draft-post --repo $work" ;;
    sample-tool) cmd="${bin_prefix}mcp-server-sample-tool" ;;
    ide-bridge)
      cmd="${bin_prefix}mcp-server-ide-bridge --url ws://127.0.0.1:{PORT} --token {TOKEN}"
      host=(--host-cmd "$prefix ${bin_prefix}ide-bridge-host --root $work --port {PORT} --token {TOKEN} --no-discovery")
      ;;
    *) fail "$label: no session scenario for server $server (add one to tests/artifacts/mcp_session.py and here)"; return ;;
  esac
  # shellcheck disable=SC2086 # prefix and cmd are word lists
  "${SESSION[@]}" "$server" --work "$work" --host-work "$host_work" --label "$label" "${host[@]}" -- $prefix $cmd \
    || fail "$label"
}

SERVERS=()
for dir in "$ROOT"/servers/*/; do
  [[ -f "$dir/Cargo.toml" ]] && SERVERS+=("$(basename "$dir")")
done
bins_of() { # the binaries of a server crate, from the binstall archive names' crate
  case "$1" in ide-bridge) echo "mcp-server-ide-bridge ide-bridge-host" ;; *) echo "mcp-server-$1" ;; esac
}

# ---------------------------------------------------------------------------------------------
say "static binaries in an empty chroot"
for server in "${SERVERS[@]}"; do
  R="$TMP/chroot-$server"
  mkdir -p "$R/work"
  for b in $(bins_of "$server"); do
    if [[ ! -f "$BIN/$b" ]]; then fail "static: $b missing from $BIN"; continue; fi
    if readelf -lW "$BIN/$b" | grep -q 'program interpreter' || readelf -dW "$BIN/$b" | grep -q NEEDED; then
      fail "static: $b is dynamically linked"
    fi
    cp "$BIN/$b" "$R/$b"
    printf '   %-26s %9d bytes\n' "$b" "$(stat -c %s "$BIN/$b")" >&2
  done
  [[ "$(ls -A "$R" | sort | tr '\n' ' ')" == "$(printf '%s\n' work $(bins_of "$server") | sort | tr '\n' ' ')" ]] \
    || fail "static: the chroot holds more than the binaries and work/"
  session "$server" /work "$R/work" "static $server (chroot, empty root)" "chroot $R" /
done
# The control: a dynamically linked program in the same kind of root cannot even start, so the
# chroot check above does detect a dynamic dependency.
R="$TMP/chroot-control"
mkdir -p "$R/work"
CONTROL="$(type -P true)"
readelf -dW "$CONTROL" | grep -q NEEDED || fail "static: the control $CONTROL is not a dynamic executable"
cp "$CONTROL" "$R/mcp-server-sample-tool"
if "${SESSION[@]}" sample-tool --work /work --host-work "$R/work" --label control -- chroot "$R" /mcp-server-sample-tool 2>/dev/null; then
  fail "static: the control (a dynamic executable in an empty chroot) passed: the chroot check proves nothing"
else
  echo "ok   control: a dynamic executable in the same empty root fails the session" >&2
fi

# ---------------------------------------------------------------------------------------------
say "release archives (cargo binstall layout)"
for server in "${SERVERS[@]}"; do
  crate="mcp-server-$server"
  archive="$OUT/archives/$crate-$VERSION-$TARGET.tar.gz"
  # The archive name and the binaries' place inside come from the crate's binstall metadata.
  if ! python3 - "$ROOT/servers/$server/Cargo.toml" "$crate" "$VERSION" "$TARGET" "$archive" $(bins_of "$server") <<'PY'
import re, sys, tarfile
manifest, name, version, target, archive, *bins = sys.argv[1:]
text = open(manifest).read()
section = re.search(r"^\[package\.metadata\.binstall\]\n(.*?)(?=^\[|\Z)", text, re.S | re.M)
if not section:
    sys.exit(f"{manifest}: no [package.metadata.binstall]")
fields = dict(re.findall(r'^([\w-]+)\s*=\s*"(.*)"\s*$', section.group(1), re.M))
vars = {"repo": "REPO", "name": name, "version": version, "target": target, "archive-suffix": ".tar.gz", "binary-ext": ""}
render = lambda t: re.sub(r"\{\s*([\w-]+)\s*\}", lambda m: vars[m.group(1)], t)
url = render(fields["pkg-url"])
if fields.get("pkg-fmt") != "tgz" or not url.endswith("/" + archive.rsplit("/", 1)[1]):
    sys.exit(f"binstall metadata points at {url} (pkg-fmt {fields.get('pkg-fmt')}), dist made {archive}")
members = {m.name: m for m in tarfile.open(archive)}
for b in bins:
    vars["bin"] = b
    path = render(fields["bin-dir"])
    if path not in members or not members[path].mode & 0o111:
        sys.exit(f"{archive}: no executable {path} (binstall bin-dir); it holds {sorted(members)}")
PY
  then
    fail "archive $crate"
    continue
  fi
  X="$TMP/archive-$server"
  mkdir -p "$X/work"
  tar -xzf "$archive" -C "$X"
  session "$server" "$X/work" "$X/work" "archive $crate-$VERSION-$TARGET.tar.gz" "" "$X/"
done

# ---------------------------------------------------------------------------------------------
if [[ "${DIST_NO_IMAGE:-0}" != 1 ]]; then
  say "container image mcp-suite:$VERSION (podman create + export, chroot)"
  IMG="$TMP/image"
  mkdir -p "$IMG"
  if cid="$(podman create "mcp-suite:$VERSION")"; then
    podman export "$cid" | tar -x -C "$IMG"
    podman rm "$cid" >/dev/null
    printf '   image size %s bytes (podman image inspect)\n' "$(podman image inspect --format '{{.Size}}' "mcp-suite:$VERSION")" >&2
    for server in "${SERVERS[@]}"; do
      rm -rf "$IMG/workspace" && mkdir -p "$IMG/workspace"
      session "$server" /workspace "$IMG/workspace" "image $server (exported root)" "chroot $IMG" /
    done
  else
    fail "image: podman create mcp-suite:$VERSION"
  fi

  say "each server's own image mcp-suite-<server>:$VERSION (entry point and arguments; exported, chroot)"
  while read -r server binary _ flag; do
    image="mcp-suite-$server:$VERSION"
    expected="[\"/$binary\"] ${flag:+[\"$flag\",\"/workspace\"]}"
    [[ -n "$flag" ]] || expected+="null"
    actual="$(podman image inspect --format '{{json .Config.Entrypoint}} {{json .Config.Cmd}}' "$image" 2>/dev/null | tr -d ' ')" \
      || { fail "image $image: not built"; continue; }
    if [[ "$actual" != "$(tr -d ' ' <<<"$expected")" ]]; then
      fail "image $image: entry point and arguments $actual, expected $expected"
      continue
    fi
    SIMG="$TMP/image-$server"
    mkdir -p "$SIMG"
    if cid="$(podman create "$image")"; then
      podman export "$cid" | tar -x -C "$SIMG"
      podman rm "$cid" >/dev/null
      # What `docker run -i -v DIR:/workspace IMAGE` runs: the entry point and its arguments.
      rm -rf "$SIMG/workspace" && mkdir -p "$SIMG/workspace"
      session "$server" /workspace "$SIMG/workspace" "image $image (its entry point, exported root)" "chroot $SIMG" /
    else
      fail "image: podman create $image"
    fi
    rm -rf "$SIMG"
  done < <(python3 "$ROOT/dist/registry.py" images)

  say "execution-image recipe: a base image + COPY --from=mcp-suite:$VERSION"
  BASE="$TMP/base"
  BUSYBOX="$(command -v busybox || true)"
  if [[ -z "$BUSYBOX" ]] || readelf -dW "$BUSYBOX" | grep -q NEEDED; then
    fail "recipe: a static busybox is needed for the offline base image (apt-get install busybox-static)"
  else
    mkdir -p "$BASE/bin" "$BASE/usr/local/bin" "$BASE/tmp" "$BASE/workspace"
    cp "$BUSYBOX" "$BASE/bin/busybox"
    for applet in sh ls cat env; do ln -s busybox "$BASE/bin/$applet"; done
    tar -C "$BASE" -c . | podman import --quiet - "mcp-suite-test-base:$VERSION" >/dev/null
    if podman build --quiet --build-arg "SUITE_IMAGE=localhost/mcp-suite:$VERSION" \
      --build-arg "BASE=localhost/mcp-suite-test-base:$VERSION" -t "mcp-suite-test-recipe:$VERSION" \
      -f "$ROOT/dist/recipe.Containerfile" "$TMP" >/dev/null; then
      RIMG="$TMP/recipe"
      mkdir -p "$RIMG"
      cid="$(podman create "mcp-suite-test-recipe:$VERSION" /bin/sh)"
      podman export "$cid" | tar -x -C "$RIMG"
      podman rm "$cid" >/dev/null
      for server in text-editor draft-post sample-tool; do
        rm -rf "$RIMG/workspace" && mkdir -p "$RIMG/workspace"
        # Started by name, found on the base's PATH, as an agent's image would start it.
        session "$server" /workspace "$RIMG/workspace" "recipe $server (busybox base, by PATH)" \
          "chroot $RIMG /bin/env PATH=/usr/local/bin:/bin" ""
      done
      podman rmi "mcp-suite-test-recipe:$VERSION" >/dev/null || true
    else
      fail "recipe: podman build of dist/recipe.Containerfile"
    fi
    podman rmi "mcp-suite-test-base:$VERSION" >/dev/null || true
  fi
fi

# ---------------------------------------------------------------------------------------------
say "Python wheels (pip into a fresh venv, uv tool install; offline)"
TOOLS="$TMP/tools"
UV="$(command -v uv || true)"
TWINE="$(command -v twine || true)"
if [[ -z "$UV" || -z "$TWINE" ]]; then
  python3 -m venv "$TOOLS" && "$TOOLS/bin/pip" install --quiet --disable-pip-version-check uv twine >&2
  UV="$TOOLS/bin/uv"
  TWINE="$TOOLS/bin/twine"
fi
"$TWINE" check --strict "$OUT"/wheels/*.whl >&2 || fail "wheels: twine check"
for server in "${SERVERS[@]}"; do
  wheel="$(ls "$OUT"/wheels/mcp_suite_${server//-/_}-"$VERSION"-py3-none-manylinux_2_17_x86_64.*.whl 2>/dev/null | head -1)"
  if [[ -z "$wheel" ]]; then fail "wheel of $server missing"; continue; fi
  V="$TMP/venv-$server"
  python3 -m venv "$V"
  if PIP_NO_INDEX=1 "$V/bin/pip" install --quiet --disable-pip-version-check "$wheel" >&2; then
    mkdir -p "$V/work"
    session "$server" "$V/work" "$V/work" "wheel $server (pip, venv)" "" "$V/bin/"
    # The package's own command (`uvx mcp-suite-<server>`, the MCP Registry's PyPI entry): the
    # same session through it.
    A="$V/alias"
    mkdir -p "$A" "$V/work-alias"
    ln -sf "$V/bin/mcp-suite-$server" "$A/mcp-server-$server"
    ln -sf "$V/bin/ide-bridge-host" "$A/ide-bridge-host"
    session "$server" "$V/work-alias" "$V/work-alias" "wheel $server (its package's command mcp-suite-$server)" "" "$A/"
  else
    fail "wheel $server: pip install"
  fi
  U="$TMP/uv-$server"
  mkdir -p "$U/work"
  if UV_TOOL_DIR="$U/tools" UV_TOOL_BIN_DIR="$U/bin" UV_CACHE_DIR="$U/cache" UV_OFFLINE=1 \
    "$UV" tool install --quiet "$wheel" >&2; then
    session "$server" "$U/work" "$U/work" "wheel $server (uv tool install)" "" "$U/bin/"
  else
    fail "wheel $server: uv tool install"
  fi
done

# ---------------------------------------------------------------------------------------------
say "npm packages (npm install --offline of both tarballs, npx --no-install)"
for server in "${SERVERS[@]}"; do
  launcher="$OUT/npm/mcp-suite-$server-$VERSION.tgz"
  platform="$OUT/npm/mcp-suite-$server-linux-x64-$VERSION.tgz"
  N="$TMP/npm-$server"
  mkdir -p "$N/work"
  if (cd "$N" && npm install --offline --silent --no-audit --no-fund "$launcher" "$platform" >&2); then
    session "$server" "$N/work" "$N/work" "npm $server (npx)" "" "npx --prefix $N --no-install "
    # The package's own name as the command (what `npx -y mcp-suite-<server>` and the MCP
    # Registry's npm entry run): the server's binary, also when the package has two commands.
    [[ "$(npx --prefix "$N" --no-install "mcp-suite-$server" --version 2>/dev/null)" == "mcp-server-$server "* ]] \
      || fail "npm $server: npx mcp-suite-$server is not the server"
  else
    fail "npm $server: npm install of $launcher and $platform"
  fi
done

# ---------------------------------------------------------------------------------------------
# Other platforms. Their folders live under the checkout, which the toolchain root (wine) sees at
# the same path; the npm launcher is run by a preload that makes Node report the other platform
# and start the binary through the emulator, so the launcher's own lookup is what is tested.
# Not under target/: .ci/run links it to its build cache under ~/.cache, and draft-post refuses
# a manuscript inside a hidden directory.
XTMP="$ROOT/dist/out/foreign-test"
rm -rf "$XTMP" && mkdir -p "$XTMP"
cat >"$XTMP/foreign.js" <<'JS'
// Node as if on FOREIGN_PLATFORM/FOREIGN_ARCH, starting binaries through FOREIGN_RUNNER (JSON argv).
const cp = require('child_process');
Object.defineProperty(process, 'platform', { value: process.env.FOREIGN_PLATFORM });
Object.defineProperty(process, 'arch', { value: process.env.FOREIGN_ARCH });
const runner = JSON.parse(process.env.FOREIGN_RUNNER);
const spawn = cp.spawn;
cp.spawn = (file, args, options) => spawn(runner[0], [...runner.slice(1), file, ...args], options);
JS
# foreign_npm SERVER NPM_PLATFORM OS CPU WORK_AS_SEEN RUNNER_JSON LABEL [--windows]
foreign_npm() {
  local server="$1" platform="$2" os="$3" cpu="$4" seen="$5" runner="$6" label="$7" flag="${8:-}"
  local N="$XTMP/npm-$platform-$server" launcher="$OUT/npm/mcp-suite-$server-$VERSION.tgz"
  local tarball="$OUT/npm/mcp-suite-$server-$platform-$VERSION.tgz"
  mkdir -p "$N/work"
  # npm must refuse the platform package on this machine (its os/cpu say where it belongs) ...
  if (cd "$N" && npm install --offline --silent --no-audit --no-fund "$tarball" >/dev/null 2>&1); then
    fail "npm $platform $server: npm installed $tarball on $(uname -m) Linux: its os/cpu fields do not restrict it"
  fi
  # ... and, forced as if on that platform, install it beside the launcher.
  if ! (cd "$N" && npm install --offline --silent --no-audit --no-fund --force --os="$os" --cpu="$cpu" "$launcher" "$tarball" >&2); then
    fail "npm $platform $server: npm install --force --os=$os --cpu=$cpu"
    return
  fi
  local first
  first="$(bins_of "$server" | cut -d' ' -f1)"
  # shellcheck disable=SC2086
  FOREIGN_PLATFORM="$os" FOREIGN_ARCH="$cpu" FOREIGN_RUNNER="$runner" \
    "${SESSION[@]}" "$server" --work "$seen/work" --host-work "$N/work" --label "$label" $flag \
    --host-cmd "$(host_cmd_for "$server" "$seen/work" "node -r $XTMP/foreign.js $N/node_modules/mcp-suite-$server/bin/" .js)" \
    -- node -r "$XTMP/foreign.js" "$N/node_modules/mcp-suite-$server/bin/$first.js" $(server_flags "$server" "$seen/work") \
    || fail "$label"
}
# The folder flags of a server, and the ide-bridge host command, as session() builds them.
server_flags() {
  case "$1" in
    text-editor) echo "--root $2" ;;
    draft-post) echo "--repo $2" ;;
    ide-bridge) echo "--url ws://127.0.0.1:{PORT} --token {TOKEN}" ;;
    *) echo "" ;;
  esac
}
host_cmd_for() { # SERVER WORK PREFIX: the ide-bridge-host command line (empty for other servers)
  [[ "$1" == ide-bridge ]] && echo "$3ide-bridge-host${4:-} --root $2 --port {PORT} --token {TOKEN} --no-discovery"
}
# xsession SERVER WORK_AS_SEEN HOST_WORK LABEL RUNNER BIN_PREFIX EXT [--windows]: one session of a
# foreign binary run as `RUNNER BIN_PREFIX<binary>EXT`.
xsession() {
  local server="$1" seen="$2" host_work="$3" label="$4" runner="$5" bin_prefix="$6" ext="$7" flag="${8:-}"
  local first
  first="$(bins_of "$server" | cut -d' ' -f1)"
  local host=()
  [[ "$server" == ide-bridge ]] && host=(--host-cmd "$runner $(host_cmd_for "$server" "$seen" "$bin_prefix" "$ext")")
  # shellcheck disable=SC2086
  "${SESSION[@]}" "$server" --work "$seen" --host-work "$host_work" --label "$label" $flag "${host[@]}" \
    -- $runner "$bin_prefix$first$ext" $(server_flags "$server" "$seen") || fail "$label"
}

ARM="$OUT/bin/aarch64-unknown-linux-gnu"
if [[ -d "$ARM" ]]; then
  say "linux arm64 through qemu-aarch64"
  SID="$(bash "$ROOT/dist/toolchain.sh")"
  QEMU="$SID/usr/bin/qemu-aarch64" # static: it runs inside an empty chroot
  for server in "${SERVERS[@]}"; do
    R="$XTMP/arm64-chroot-$server"
    mkdir -p "$R/work"
    cp "$QEMU" "$R/qemu-aarch64"
    for b in $(bins_of "$server"); do
      if readelf -hW "$ARM/$b" | grep -q 'Machine:.*AArch64' && ! readelf -lW "$ARM/$b" | grep -q 'program interpreter' \
        && ! readelf -dW "$ARM/$b" | grep -q NEEDED; then
        cp "$ARM/$b" "$R/$b"
        printf '   %-26s %9d bytes (arm64)\n' "$b" "$(stat -c %s "$ARM/$b")" >&2
      else
        fail "arm64: $b is not a static AArch64 executable"
      fi
    done
    xsession "$server" /work "$R/work" "arm64 static $server (qemu, empty root)" "chroot $R /qemu-aarch64" / ""
    A="$XTMP/arm64-archive-$server"
    mkdir -p "$A/work"
    tar -xzf "$OUT/archives/mcp-server-$server-$VERSION-aarch64-unknown-linux-gnu.tar.gz" -C "$A"
    xsession "$server" "$A/work" "$A/work" "arm64 archive $server (qemu)" "$QEMU" "$A/" ""
    W="$XTMP/arm64-wheel-$server"
    wheel="$(ls "$OUT"/wheels/mcp_suite_${server//-/_}-"$VERSION"-py3-none-manylinux_2_17_aarch64.*.whl 2>/dev/null | head -1)"
    if [[ -n "$wheel" ]] && python3 -m pip install --quiet --disable-pip-version-check --no-index --no-deps \
      --platform manylinux2014_aarch64 --only-binary=:all: --target "$W/site" "$wheel" >&2; then
      mkdir -p "$W/work"
      xsession "$server" "$W/work" "$W/work" "arm64 wheel $server (pip --platform, qemu)" "$QEMU" "$W/site/bin/" ""
    else
      fail "arm64 wheel $server: pip install --platform manylinux2014_aarch64 of ${wheel:-(missing)}"
    fi
    foreign_npm "$server" linux-arm64 linux arm64 "$XTMP/npm-linux-arm64-$server" "[\"$QEMU\"]" \
      "arm64 npm $server (launcher as on linux-arm64, qemu)"
  done
  if [[ "${DIST_NO_IMAGE:-0}" != 1 ]]; then
    say "the image index's linux/arm64 image (exported, each server through qemu in it)"
    IMG="$XTMP/image-arm64"
    mkdir -p "$IMG"
    # The index must name the arm64 image for linux/arm64 (and the amd64 one for linux/amd64).
    python3 - "$(podman manifest inspect "mcp-suite:$VERSION")" \
      "$(podman image inspect --format '{{.Digest}}' "mcp-suite:$VERSION-arm64")" \
      "$(podman image inspect --format '{{.Digest}}' "mcp-suite:$VERSION-amd64")" <<'PY' || fail "image index: wrong platforms"
import json, sys
index, arm64, amd64 = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
got = {(m["platform"]["os"], m["platform"]["architecture"]): m["digest"] for m in index["manifests"]}
want = {("linux", "arm64"): arm64, ("linux", "amd64"): amd64}
if got != want:
    sys.exit(f"the index lists {got}, not {want}")
PY
    if cid="$(podman create "mcp-suite:$VERSION-arm64")"; then
      podman export "$cid" | tar -x -C "$IMG"
      podman rm "$cid" >/dev/null
      readelf -hW "$IMG/mcp-server-text-editor" | grep -q 'AArch64' || fail "image: mcp-suite:$VERSION-arm64 holds non-arm64 binaries"
      cp "$QEMU" "$IMG/qemu-aarch64"
      for server in "${SERVERS[@]}"; do
        rm -rf "$IMG/workspace" && mkdir -p "$IMG/workspace"
        xsession "$server" /workspace "$IMG/workspace" "arm64 image $server (exported root, qemu)" "chroot $IMG /qemu-aarch64" / ""
      done
    else
      fail "image: podman create mcp-suite:$VERSION-arm64"
    fi

    say "execution-image recipe on linux/arm64: an arm64 base + COPY --from the image index"
    # The recipe unchanged, built for linux/arm64: `COPY --from` must take the index's arm64
    # image. The base is an empty arm64 root (nothing in a base runs under qemu without
    # binfmt_misc), so the servers are started by path through the emulator.
    RB="$XTMP/recipe-arm64-base"
    mkdir -p "$RB/usr/local/bin" "$RB/workspace" "$RB/tmp"
    tar -C "$RB" -c . | podman import --quiet --arch arm64 - "mcp-suite-test-base:$VERSION-arm64" >/dev/null
    if podman build --quiet --platform linux/arm64 --build-arg "SUITE_IMAGE=localhost/mcp-suite:$VERSION" \
      --build-arg "BASE=localhost/mcp-suite-test-base:$VERSION-arm64" -t "mcp-suite-test-recipe:$VERSION-arm64" \
      -f "$ROOT/dist/recipe.Containerfile" "$XTMP" >/dev/null; then
      RIMG="$XTMP/recipe-arm64"
      mkdir -p "$RIMG"
      cid="$(podman create --platform linux/arm64 "mcp-suite-test-recipe:$VERSION-arm64" /usr/local/bin/mcp-server-sample-tool)"
      podman export "$cid" | tar -x -C "$RIMG"
      podman rm "$cid" >/dev/null
      cp "$QEMU" "$RIMG/qemu-aarch64"
      readelf -hW "$RIMG/usr/local/bin/mcp-server-text-editor" | grep -q AArch64 \
        || fail "recipe arm64: COPY --from took a non-arm64 binary from the index"
      for server in text-editor draft-post sample-tool; do
        rm -rf "$RIMG/workspace" && mkdir -p "$RIMG/workspace"
        xsession "$server" /workspace "$RIMG/workspace" "arm64 recipe $server (COPY --from the index, qemu)" \
          "chroot $RIMG /qemu-aarch64" /usr/local/bin/ ""
      done
      podman rmi "mcp-suite-test-recipe:$VERSION-arm64" >/dev/null || true
    else
      fail "recipe arm64: podman build --platform linux/arm64 of dist/recipe.Containerfile"
    fi
    podman rmi "mcp-suite-test-base:$VERSION-arm64" >/dev/null || true
  fi
fi

WIN="$OUT/bin/x86_64-pc-windows-gnu"
if [[ -d "$WIN" ]]; then
  say "Windows x64 under wine (the root of dist/toolchain.sh)"
  WINE="bash $ROOT/dist/toolchain.sh exec env WINEPREFIX=/root/.wine-mcp-suite WINEDEBUG=-all wine"
  # The first start creates the wine prefix (tens of seconds): not inside a session's timeout.
  $WINE cmd /c exit >/dev/null 2>&1 || true
  # A host path as the Windows binaries see it (wine maps / to Z:); `/` is a separator on
  # Windows too, and survives the shell-word splitting of the host command.
  winpath() { printf 'Z:%s' "$1"; }
  for server in "${SERVERS[@]}"; do
    Z="$XTMP/win-zip-$server"
    mkdir -p "$Z/work"
    if python3 -m zipfile -e "$OUT/archives/mcp-server-$server-$VERSION-x86_64-pc-windows-gnu.zip" "$Z" >&2; then
      xsession "$server" "$(winpath "$Z/work")" "$Z/work" "windows zip $server (wine)" "$WINE" "$Z/" .exe --windows
    else
      fail "windows zip $server: cannot extract"
    fi
    W="$XTMP/win-wheel-$server"
    wheel="$(ls "$OUT"/wheels/mcp_suite_${server//-/_}-"$VERSION"-py3-none-win_amd64.whl 2>/dev/null | head -1)"
    if [[ -n "$wheel" ]] && python3 -m pip install --quiet --disable-pip-version-check --no-index --no-deps \
      --platform win_amd64 --only-binary=:all: --target "$W/site" "$wheel" >&2 && [[ -f "$W/site/bin/mcp-server-$server.exe" ]]; then
      mkdir -p "$W/work"
      xsession "$server" "$(winpath "$W/work")" "$W/work" "windows wheel $server (pip --platform win_amd64, wine)" \
        "$WINE" "$W/site/bin/" .exe --windows
    else
      fail "windows wheel $server: pip install --platform win_amd64 of ${wheel:-(missing)} (or no .exe script)"
    fi
    N="$XTMP/npm-win32-x64-$server"
    foreign_npm "$server" win32-x64 win32 x64 "$(winpath "$N")" "$(python3 -c 'import json,shlex,sys; print(json.dumps(shlex.split(sys.argv[1])))' "$WINE")" \
      "windows npm $server (launcher as on win32, wine)" --windows
  done
fi

# ---------------------------------------------------------------------------------------------
if [[ "${DIST_NO_MCPB:-0}" != 1 ]]; then
  say "MCP Bundles (mcpb unpack + validate; each platform's command started as Claude Desktop would)"
  for bundle in "$OUT"/mcpb/*.mcpb; do
    name="$(basename "$bundle" "-$VERSION.mcpb")"
    server="${name#mcp-suite-}"
    B="$XTMP/mcpb-$server"
    mkdir -p "$B/work" "$B/work-win"
    if ! "${MCPB[@]}" unpack "$bundle" "$B/bundle" >&2 \
      || ! "${MCPB[@]}" validate "$B/bundle/manifest.json" >&2; then
      fail "mcpb $name: unpack or validate"
      continue
    fi
    # PLATFORM WORK -> the command line the manifest gives there, one word per line
    # (${__dirname}, ${user_config.*} filled).
    launch() {
      python3 - "$B/bundle" "$1" "$2" <<'PY'
import json, re, sys
bundle, platform, work = sys.argv[1:]
m = json.load(open(f"{bundle}/manifest.json"))
if platform not in m["compatibility"]["platforms"]:
    sys.exit(f"{platform} not in the bundle's platforms {m['compatibility']['platforms']}")
config = m["server"]["mcp_config"]
config = config.get("platform_overrides", {}).get(platform, config)
values = {"__dirname": bundle, **{f"user_config.{k}": work for k in m.get("user_config", {})}}
fill = lambda w: re.sub(r"\$\{([^}]+)\}", lambda x: values[x.group(1)], w)
print("\n".join([fill(config["command"])] + [fill(a) for a in config["args"]]))
PY
    }
    if [[ "$server" == ide-bridge ]]; then
      # The bundle's bridge finds its host by discovery (--workspace); the sessions above cover
      # the bridge with a host. Here: the bundled binaries start and answer on each platform.
      for platform in linux win32; do
        [[ "$platform" == win32 && ! -d "$WIN" ]] && continue
        mapfile -t argv < <(launch "$platform" "$B/work")
        runner=()
        [[ "$platform" == win32 ]] && read -ra runner <<<"$WINE"
        if [[ ${#argv[@]} == 0 ]] || ! "${runner[@]}" "${argv[0]}" --version >/dev/null 2>&1; then
          fail "mcpb $name: the $platform binary does not start"
        fi
      done
      echo "ok   mcpb $name: the bundled binaries start" >&2
      continue
    fi
    mapfile -t argv < <(launch linux "$B/work")
    "${SESSION[@]}" "$server" --work "$B/work" --manifest "$B/bundle/manifest.json" --label "mcpb $name (linux)" -- "${argv[@]}" \
      || fail "mcpb $name (linux)"
    if [[ -d "$WIN" ]]; then
      W="$(winpath "$B/work-win")"
      mapfile -t argv < <(launch win32 "$W")
      read -ra runner <<<"$WINE"
      "${SESSION[@]}" "$server" --work "$W" --host-work "$B/work-win" --windows --label "mcpb $name (win32, wine)" \
        -- "${runner[@]}" "${argv[@]}" || fail "mcpb $name (win32)"
    fi
  done
fi

# ---------------------------------------------------------------------------------------------
if [[ "${DIST_NO_MCPB:-0}" != 1 ]]; then
  say "MCP Bundle signatures (mcpb sign with a throwaway certificate; the signature checked by openssl)"
  # `mcpb verify` on Linux trusts a certificate only through `openssl verify -purpose
  # codesigning`, a purpose name OpenSSL does not have (3.0 here): it reports every bundle
  # unsigned. So: the unsigned bundle must be refused by it, and the signed copy's PKCS#7
  # signature (the block `mcpb sign` appends) is verified by openssl against the throwaway
  # certificate and the bundle's bytes; `mcpb unsign` must give the built file back exactly.
  S="$XTMP/mcpb-sign"
  rm -rf "$S" && mkdir -p "$S"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$S/key.pem" -out "$S/cert.pem" -days 1 \
    -subj "/CN=mcp-suite CI throwaway" -addext "extendedKeyUsage=codeSigning" 2>/dev/null
  for bundle in "$OUT"/mcpb/*.mcpb; do
    name="$(basename "$bundle")"
    copy="$S/$name"
    cp "$bundle" "$copy"
    if "${MCPB[@]}" verify "$copy" >/dev/null 2>&1; then fail "mcpb $name: an unsigned bundle passed mcpb verify"; fi
    "${MCPB[@]}" sign "$copy" --cert "$S/cert.pem" --key "$S/key.pem" >&2 || { fail "mcpb $name: sign"; continue; }
    python3 - "$copy" "$S/content" "$S/signature.der" <<'PY' || { fail "mcpb $name: no signature block"; continue; }
import struct, sys
data = open(sys.argv[1], "rb").read()
head, foot = data.rfind(b"MCPB_SIG_V1"), data.rfind(b"MCPB_SIG_END")
if head < 0 or foot < head:
    sys.exit(1)
(length,) = struct.unpack_from("<I", data, head + 11)
open(sys.argv[2], "wb").write(data[:head])
open(sys.argv[3], "wb").write(data[head + 15 : head + 15 + length])
PY
    openssl cms -verify -binary -inform DER -in "$S/signature.der" -content "$S/content" \
      -CAfile "$S/cert.pem" -purpose any -out /dev/null 2>/dev/null || fail "mcpb $name: the signature does not verify"
    printf 'x' >>"$S/content"
    if openssl cms -verify -binary -inform DER -in "$S/signature.der" -content "$S/content" \
      -CAfile "$S/cert.pem" -purpose any -out /dev/null 2>/dev/null; then fail "mcpb $name: a changed bundle verified"; fi
    "${MCPB[@]}" info "$copy" >/dev/null 2>&1 || fail "mcpb $name: info"
    "${MCPB[@]}" unsign "$copy" >/dev/null 2>&1 && cmp -s "$copy" "$bundle" || fail "mcpb $name: unsign did not give the bundle back"
    echo "ok   mcpb $name: signed, the signature verified, a change detected, unsigned back to the built file" >&2
  done
fi

# ---------------------------------------------------------------------------------------------
say "MCP Registry: each server.json against the vendored schema, the ownership markers (dist/registry.py check)"
REGISTRY_PY=python3
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  python3 -m venv "$TMP/registry-venv" && "$TMP/registry-venv/bin/pip" install --quiet --disable-pip-version-check \
    jsonschema==4.26.0 >&2
  REGISTRY_PY="$TMP/registry-venv/bin/python"
fi
"$REGISTRY_PY" "$ROOT/dist/registry.py" check "$OUT" || fail "registry: server.json or a marker"

if ((FAILED)); then
  say "$FAILED artifact test(s) FAILED"
  exit 1
fi
say "every artifact passed"
