#!/usr/bin/env bash
# GPU checks for lmbias-model, for a machine with a GPU (run by the lead; not in CI).
# Builds with `--features wgpu`, runs the wgpu-vs-CPU parity test on the tiny fixture, then
# the forward-pass throughput at batch 32/256/1024 of MiniLM-shaped and bert-base-shaped
# models with random weights (the example writes them itself: no download, no Python), and
# of the real all-MiniLM-L6-v2 when its folder is present. Output is also written under $OUT.
# A bare machine may need the Vulkan loader first (see the device notes); if wgpu finds no
# adapter the parity test fails with burn's message.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
MINILM=${LMBIAS_MINILM_DIR:-$HOME/.cache/lmbias/all-MiniLM-L6-v2}
TARGET=${CARGO_TARGET_DIR:-target}
SECS=${SECS:-10}
{
  nvidia-smi -L 2>/dev/null || true
  cargo test --release -p lmbias-model --features wgpu --test it wgpu_parity -- --nocapture
} 2>&1 | tee "$OUT/wgpu-parity.log"

cargo build --release -p lmbias-model --features wgpu --example throughput 2>&1 | tail -3
MODELS="random:minilm random:bert-base"
[ -f "$MINILM/model.safetensors" ] && MODELS="$MINILM $MODELS"
for model in $MODELS; do
  for batch in 32 256 1024; do
    "$TARGET/release/examples/throughput" "$model" "$batch" "$SECS" wgpu
  done
  # The CPU on the same machine, for the ratio.
  "$TARGET/release/examples/throughput" "$model" 32 "$SECS" cpu
done 2>&1 | tee "$OUT/throughput.jsonl"
