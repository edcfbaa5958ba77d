#!/usr/bin/env bash
# Runs every cargo fuzz target for SECONDS each (default 300; CI runs 30), from the seed corpus
# in fuzz/seeds/<target> plus what earlier runs found (fuzz/corpus/<target>, not committed).
# Needs the nightly toolchain (libFuzzer and AddressSanitizer) and cargo-fuzz
# (`cargo install cargo-fuzz --locked`). A crash stops the run with the input that caused it
# under fuzz/artifacts/<target>/ and exit status 1.
#   bash fuzz/run.sh            # 5 minutes per target
#   bash fuzz/run.sh 30         # what CI runs
#   bash fuzz/run.sh 60 frontmatter encoding
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${1:-300}"
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  mapfile -t TARGETS < <(cargo +nightly fuzz list)
fi
# FUZZ_DEV=1: build the targets with the fuzz crate's dev profile (opt-level 1, still with ASan,
# coverage and debug assertions) instead of release: a shorter build (608 s against 703 s in CI),
# about as many inputs per second in CI's short runs. A campaign should use release.
BUILD=()
if [ "${FUZZ_DEV:-0}" = 1 ]; then
  BUILD=(--dev)
fi
start=$(date +%s)
cargo +nightly fuzz build "${BUILD[@]}" 2>&1 | tail -1
echo "built in $(( $(date +%s) - start )) s"
for target in "${TARGETS[@]}"; do
  mkdir -p "corpus/$target"
  t0=$(date +%s)
  # -rss_limit_mb: a target that needs more than this is a finding (the YAML bomb must stay bounded).
  out=$(cargo +nightly fuzz run "${BUILD[@]}" "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$SECONDS_EACH" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 2>&1) || {
    echo "$out" | tail -40
    echo "FUZZ FAILURE in $target: the input is under fuzz/artifacts/$target/"
    exit 1
  }
  runs=$(echo "$out" | grep -oE 'stat::number_of_executed_units: *[0-9]+' | grep -oE '[0-9]+$' || echo "?")
  echo "$target: $runs runs in $(( $(date +%s) - t0 )) s, no crash"
done
