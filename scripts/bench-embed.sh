#!/usr/bin/env bash
# Issue #12's side-by-side: `lmbias embed` against transformers on the 4,985 distinct texts of
# datasets/seat/en (all-MiniLM-L6-v2, CLS pooling, the same number of threads), each timed as a
# whole command, back to back, three times. transformers runs the way a notebook would: input
# order, batches of 32 padded to their longest (scripts/bench_torch.py embed).
# PRECISIONS="f32 bf16" (default "f32") runs each side in each: `lmbias embed --precision`, and
# transformers in f32 or under bf16 autocast (TORCH_DTYPE, scripts/bench_torch.py).
# Results go to docs/benchmarks.md by hand, with the CPU and the load printed here.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
PYTHON=${PYTHON:-python3}
PRECISIONS=${PRECISIONS:-f32}
MINILM=${LMBIAS_MINILM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lmbias/all-MiniLM-L6-v2}
TARGET=${CARGO_TARGET_DIR:-target}
TEXTS=${TMPDIR:-/tmp}/lmbias-seat-en-texts.txt

python3 scripts/seat_en_texts.py "$TEXTS"
cargo build --release -p lmbias-cli
lscpu | grep 'Model name'
uptime
for _ in $(seq "$RUNS"); do
  for precision in $PRECISIONS; do
    /usr/bin/time -f "lmbias embed $precision: %e s wall, %U s user" env RAYON_NUM_THREADS="$THREADS" \
      "$TARGET/release/lmbias" embed --model "$MINILM" --pooling cls --precision "$precision" --json --input "$TEXTS" > /dev/null
    /usr/bin/time -f "transformers $precision: %e s wall, %U s user" env TORCH_DTYPE="$precision" \
      "$PYTHON" scripts/bench_torch.py embed "$MINILM" "$TEXTS" "$THREADS" 2>&1 | grep -v '^Loading weights'
  done
done
uptime
