#!/usr/bin/env bash
# dist/macsign.sh: code-signs macOS executables here, without a Mac, with rcodesign (crate
# apple-codesign, pinned, built from crates.io into target/tools on first use), then verifies each
# signature with `rcodesign verify`.
#
#   bash dist/macsign.sh BINARY...
#
# An arm64 macOS executable without a valid signature is killed at launch, and a signature
# stops being valid when the file changes after it (stripping after linking does): so this runs
# last, on the binaries as they ship. With MACOS_SIGNING_P12 (a Developer ID Application
# certificate and key, PKCS#12) and MACOS_SIGNING_P12_PASSWORD the binaries are signed with it,
# hardened runtime and a secure timestamp (the release workflow, where they are then notarized).
# Without one they are signed with a throwaway self-signed certificate made for this build
# (target/macos-signing/): a valid signature, which the kernel accepts as it does an ad-hoc one,
# but one that Gatekeeper does not trust for a quarantined download (README: Install). Not an
# ad-hoc signature: `rcodesign verify` 0.29 cannot verify those ("CMS error").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ $# -ge 1 ]] || { echo "usage: dist/macsign.sh BINARY..." >&2; exit 2; }
TOOLS="$ROOT/target/tools"
RCODESIGN="$TOOLS/bin/rcodesign"
if [[ ! -x "$RCODESIGN" ]] || [[ "$("$RCODESIGN" --version 2>/dev/null)" != *0.29.0* ]]; then
  echo "dist/macsign.sh: building rcodesign (apple-codesign 0.29.0) into $TOOLS" >&2
  cargo install --quiet --locked apple-codesign --version 0.29.0 --no-default-features --root "$TOOLS" >&2
fi

SIGN=()
if [[ -n "${MACOS_SIGNING_P12:-}" ]]; then
  SIGN=(--p12-file "$MACOS_SIGNING_P12" --p12-password "${MACOS_SIGNING_P12_PASSWORD:-}"
        --code-signature-flags runtime)
else
  KEYS="$ROOT/target/macos-signing"
  if [[ ! -f "$KEYS/throwaway.key" ]]; then
    mkdir -p "$KEYS"
    "$RCODESIGN" generate-self-signed-certificate --person-name "mcp-suite build (self-signed)" \
      --validity-days 3650 --pem-filename "$KEYS/throwaway" >&2
  fi
  # No timestamp: it would come from Apple's server, for a certificate Apple did not issue.
  SIGN=(--pem-file "$KEYS/throwaway.crt" --pem-file "$KEYS/throwaway.key" --timestamp-url none)
fi
for binary in "$@"; do
  "$RCODESIGN" sign "${SIGN[@]}" "$binary" >/dev/null 2>&1 \
    || { "$RCODESIGN" sign "${SIGN[@]}" "$binary" >&2; exit 1; }
  if ! "$RCODESIGN" verify "$binary" >/dev/null 2>&1; then
    echo "dist/macsign.sh: $binary: rcodesign verify refuses its signature" >&2
    "$RCODESIGN" verify "$binary" >&2 || true
    exit 1
  fi
  echo "dist/macsign.sh: $(basename "$binary"): signed, rcodesign verify accepts it" >&2
done
