#!/usr/bin/env bash
# CPU throughput of lmbias's BERT vs PyTorch, side by side on the same cores:
# MiniLM and a random bert-base-shaped model, batch 32 of ~10-token sentences.
# Results go to docs/benchmarks.md by hand, with the CPU and the load printed here.
#
#   scripts/bench-model.sh                         # default CPU backend (flex)
#   FEATURES=ndarray NO_DEFAULT=1 scripts/bench-model.sh   # burn-ndarray instead
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 2"}
SECS=${SECS:-20}
BATCH=${BATCH:-32}
MINILM=${LMBIAS_MINILM_DIR:-$HOME/.cache/lmbias/all-MiniLM-L6-v2}
BASE=${BERT_BASE_DIR:-${TMPDIR:-/tmp}/lmbias-bench/bert-base-random}
TARGET=${CARGO_TARGET_DIR:-target}

[ -f "$BASE/model.safetensors" ] || python3 scripts/bench_torch.py make-bert-base "$BASE" "$MINILM"
cargo build --release -p lmbias-model --example throughput ${NO_DEFAULT:+--no-default-features} ${FEATURES:+--features "$FEATURES"}
lscpu | grep 'Model name'
uptime
for threads in $THREADS; do
  for model in "$MINILM" "$BASE"; do
    RAYON_NUM_THREADS=$threads "$TARGET/release/examples/throughput" "$model" "$BATCH" "$SECS" cpu
    python3 scripts/bench_torch.py run "$model" "$BATCH" "$SECS" "$threads"
  done
done
uptime
