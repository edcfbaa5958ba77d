#!/usr/bin/env bash
# Runs every cargo fuzz target for SECONDS each (default 300; CI runs 20), from the seed corpus
# in fuzz/seeds/<target> plus what earlier runs found (fuzz/corpus/<target>, not committed).
# Needs the nightly toolchain (libFuzzer and AddressSanitizer) and cargo-fuzz
# (`cargo install cargo-fuzz --locked`). A crash stops the run with the input that caused it
# under fuzz/artifacts/<target>/ and exit status 1.
#   bash fuzz/run.sh            # 5 minutes per target
#   FUZZ_DEV=1 bash fuzz/run.sh 20   # what CI runs
#   bash fuzz/run.sh 60 frontmatter encoding
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${1:-300}"
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  mapfile -t TARGETS < <(cargo +nightly fuzz list)
fi
# FUZZ_DEV=1: build the targets with the fuzz crate's dev profile (opt-level 0, still with ASan,
# coverage and debug assertions) instead of release: a build of 204-276 s instead of 608 s, for
# CI's short runs that replay every seed; each target then runs 5-25x fewer inputs per second.
# A campaign uses release.
BUILD=()
if [ "${FUZZ_DEV:-0}" = 1 ]; then
  BUILD=(--dev)
fi
start=$(date +%s)
cargo +nightly fuzz build "${BUILD[@]}" 2>&1 | tail -1
echo "built in $(( $(date +%s) - start )) s"
# The targets run FUZZ_JOBS at a time (default: one per core; each libFuzzer run uses one).
JOBS="${FUZZ_JOBS:-$(nproc)}"
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
run_one() {
  local target="$1" t0
  t0=$(date +%s)
  mkdir -p "corpus/$target"
  # -rss_limit_mb: a target that needs more than this is a finding (the YAML bomb must stay bounded).
  if ! cargo +nightly fuzz run "${BUILD[@]}" "$target" "corpus/$target" "seeds/$target" -- \
      -max_total_time="$SECONDS_EACH" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 >"$LOGS/$target" 2>&1; then
    return 1
  fi
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$LOGS/$target" | grep -oE '[0-9]+$' || echo "?")
  echo "$target: $runs runs in $(( $(date +%s) - t0 )) s, no crash"
}
for ((i = 0; i < ${#TARGETS[@]}; i += JOBS)); do
  batch=("${TARGETS[@]:i:JOBS}")
  pids=()
  for target in "${batch[@]}"; do
    run_one "$target" &
    pids+=($!)
  done
  for j in "${!batch[@]}"; do
    if ! wait "${pids[$j]}"; then
      target="${batch[$j]}"
      # The batch's other targets end within SECONDS_EACH: let them, then report.
      wait || true
      tail -40 "$LOGS/$target"
      echo "FUZZ FAILURE in $target: the input is under fuzz/artifacts/$target/"
      exit 1
    fi
  done
done
