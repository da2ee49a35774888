#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (default 60 s each):
#   fuzz/run.sh [SECONDS]
# Needs cargo-fuzz (`cargo install cargo-fuzz`). The machine's toolchain is
# stable, so nightly-only flags are unlocked with RUSTC_BOOTSTRAP and no
# sanitizer is used (Rust code is memory-safe; the targets look for panics
# and broken invariants). Crashes are saved under fuzz/artifacts/TARGET/.
set -euo pipefail
secs=${1:-60}
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
for t in pattern find_expr search; do
  echo "== fuzz $t for ${secs}s"
  cargo fuzz run --sanitizer none "$t" -- -max_total_time="$secs" -max_len=4096 2>&1 | tail -n 3
done
