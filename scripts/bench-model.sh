#!/usr/bin/env bash
# CPU throughput of lmbias vs PyTorch, side by side on the same cores: MiniLM and random
# models of bert-base's, roberta-base's and ModernBERT-base's shapes, batch 32 of ~10-token
# sentences. MODELS="minilm bert-base" (etc.) picks some; PYTHON names a Python with torch
# and transformers.
# PRECISIONS="f32 bf16" (the default) runs each side in each: lmbias with `--precision`, PyTorch
# in f32 or under bf16 autocast (TORCH_DTYPE, scripts/bench_torch.py).
# Results go to docs/benchmarks.md by hand, with the CPU and the load printed here.
#
#   scripts/bench-model.sh                         # default CPU backend (flex)
#   FEATURES=ndarray NO_DEFAULT=1 scripts/bench-model.sh   # burn-ndarray instead
#   FEATURES=onednn scripts/bench-model.sh                 # --precision bf16 through oneDNN
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 2"}
PRECISIONS=${PRECISIONS:-"f32 bf16"}
SECS=${SECS:-20}
BATCH=${BATCH:-32}
MINILM=${LMBIAS_MINILM_DIR:-$HOME/.cache/lmbias/all-MiniLM-L6-v2}
BENCH=${TMPDIR:-/tmp}/lmbias-bench
BASE=${BERT_BASE_DIR:-$BENCH/bert-base-random}
ROBERTA=$BENCH/roberta-base-random
MODERNBERT=$BENCH/modernbert-base-random
TARGET=${CARGO_TARGET_DIR:-target}
PYTHON=${PYTHON:-python3}
MODELS=${MODELS:-"minilm bert-base roberta-base modernbert-base"}
FIXTURES=tests/fixtures/models

[ -f "$BASE/model.safetensors" ] || "$PYTHON" scripts/bench_torch.py make-bert-base "$BASE" "$MINILM"
[ -f "$ROBERTA/model.safetensors" ] || "$PYTHON" scripts/bench_torch.py make-roberta-base "$ROBERTA" "$FIXTURES/tiny-roberta-base"
[ -f "$MODERNBERT/model.safetensors" ] || "$PYTHON" scripts/bench_torch.py make-modernbert-base "$MODERNBERT" "$FIXTURES/tiny-modernbert-mlm"
cargo build --release -p lmbias-model --example throughput ${NO_DEFAULT:+--no-default-features} ${FEATURES:+--features "$FEATURES"}
lscpu | grep 'Model name'
uptime
for threads in $THREADS; do
  for name in $MODELS; do
    case $name in
      minilm) model=$MINILM ;; bert-base) model=$BASE ;;
      roberta-base) model=$ROBERTA ;; modernbert-base) model=$MODERNBERT ;;
      *) echo "unknown model $name" >&2; exit 2 ;;
    esac
    for precision in $PRECISIONS; do
      RAYON_NUM_THREADS=$threads "$TARGET/release/examples/throughput" "$model" "$BATCH" "$SECS" cpu "$precision"
      TORCH_DTYPE=$precision "$PYTHON" scripts/bench_torch.py run "$model" "$BATCH" "$SECS" "$threads"
    done
  done
done
uptime
