#!/usr/bin/env bash
# GPU checks for lmbias-model, for a machine with a GPU (run by the lead; not in CI).
# Builds with `--features wgpu`, runs the wgpu-vs-CPU parity test on the tiny fixture,
# then the throughput of MiniLM and a random bert-base-shaped model at batch 32/256/1024.
# Everything it prints is also written under $OUT (default ./gpu-check-out).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
MINILM=${LMBIAS_MINILM_DIR:-$HOME/.cache/lmbias/all-MiniLM-L6-v2}
BASE=${BERT_BASE_DIR:-${TMPDIR:-/tmp}/lmbias-bench/bert-base-random}
TARGET=${CARGO_TARGET_DIR:-target}
SECS=${SECS:-10}
{
  nvidia-smi -L 2>/dev/null || true
  cargo test --release -p lmbias-model --features wgpu --test wgpu_parity -- --nocapture
} 2>&1 | tee "$OUT/wgpu-parity.log"

[ -f "$BASE/model.safetensors" ] || python3 scripts/bench_torch.py make-bert-base "$BASE" "$MINILM"
cargo build --release -p lmbias-model --features wgpu --example throughput 2>&1 | tail -3
for model in "$MINILM" "$BASE"; do
  for batch in 32 256 1024; do
    "$TARGET/release/examples/throughput" "$model" "$batch" "$SECS" wgpu
  done
done 2>&1 | tee "$OUT/throughput.jsonl"
