#!/usr/bin/env bash
# Runs Cohort's fuzz targets with cargo-fuzz (libFuzzer; needs a nightly toolchain and
# `cargo install cargo-fuzz`), each for SECONDS (default 60), from its seed corpus.
#
#   fuzz/run.sh                 # every target, 60 s each
#   fuzz/run.sh scenario 600    # one target, 10 minutes
#
# A crash is written to fuzz/artifacts/TARGET/; replay it with
# `cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-…` (run from the repository root).
set -euo pipefail
cd "$(dirname "$0")"
targets=(frame_decoder snapshot replay_reader report_reader scenario map ruleset)
if [[ -n "${1:-}" ]]; then targets=("$1"); fi
seconds="${2:-60}"
cargo +nightly run --quiet --bin write_seeds
for t in "${targets[@]}"; do
  echo "== $t ($seconds s)"
  cargo +nightly fuzz run --fuzz-dir . "$t" "corpus/$t" -- \
    -max_total_time="$seconds" -max_len=1048576 -rss_limit_mb=4096 -timeout=20
done
