#!/usr/bin/env bash
# GPU checks for lmbias-model, for a machine with a GPU (run by the lead; not in CI).
# Builds with `--features wgpu`, runs the wgpu-vs-CPU parity test and a 20-step training run on
# the tiny fixture, then a short `lmbias train-mlm --device wgpu` of the period-model recipe on
# all-MiniLM-L6-v2 (when present) against the same run on the CPU, then
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
  cargo test --release -p lmbias-model --features wgpu --test it wgpu_ -- --nocapture
} 2>&1 | tee "$OUT/wgpu-parity.log"

# Training: the period models' settings (scripts/bench-train.sh has them), 40 steps, on the GPU
# and on this machine's CPU; each run's training.json (tokens/s, losses) comes back under $OUT.
if [ -f "$MINILM/model.safetensors" ]; then
  cargo build --release -p lmbias-cli --features wgpu 2>&1 | tail -1
  CORPUS="$OUT/train-corpus.txt"
  # Any text will do for speed: the README and docs, one line a passage.
  cat README.md docs/*.md | grep -v '^\s*$' > "$CORPUS"
  for device in wgpu cpu; do
    rm -rf "$OUT/train-$device" "$OUT/train-$device.checkpoint"
    "$TARGET/release/lmbias" train-mlm --from "$MINILM" --corpus "$CORPUS" --output "$OUT/train-$device" \
      --steps 40 --warmup-steps 4 --checkpoint-every 0 --held-out 0.05 --log-every 10 --device "$device"
    rm -f "$OUT/train-$device/model.safetensors"
  done 2>&1 | tee "$OUT/train.log"
fi

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
