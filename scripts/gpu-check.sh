#!/usr/bin/env bash
# The GPU check (issue #51), in one go on a machine with a GPU. Needs only Rust (cargo, 1.95)
# and the GPU's Vulkan (or Metal/DX12) driver; no download, no Python. Without a GPU it runs on
# a software adapter (Debian's mesa-vulkan-drivers and libvulkan1, which .ci/run installs): the
# checks then hold as on a GPU, and the speeds mean nothing, which the summary says.
#
# 1. The wgpu-vs-CPU parity tests, release build: every family's vectors, fill-mask, the
#    likelihood measures' units, 20 training steps, and each study's command (tolerances in
#    crates/lmbias-model/tests/it/wgpu_parity.rs and crates/lmbias-cli/tests/it/wgpu.rs).
# 2. Training: `lmbias train-mlm --scratch` of SHAPE for STEPS steps on wgpu, then on this
#    machine's CPU; tokens/s from each run's timing.json.
# 3. CrowS: `lmbias crows` on the first PAIRS pairs of CrowS-Pairs with the model trained on
#    wgpu, on wgpu and on the CPU; pairs/s, and the two runs' per-pair decisions compared.
# 4. Forward pass: the throughput example at batch 32/256/1024 on wgpu and at 32 on the CPU,
#    random weights of MiniLM's and bert-base's shapes.
# Everything goes under $OUT; $OUT/summary.txt has the numbers for docs/benchmarks.md.
# PROFILE=dev builds with the dev profile instead of release (optimised too in this workspace;
# quicker where a dev build is already there, as on a developer's machine).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
PROFILE=${PROFILE:-release}
BIN=${CARGO_TARGET_DIR:-target}/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
SECS=${SECS:-10}
STEPS=${STEPS:-40}
PAIRS=${PAIRS:-200}
export CARGO_INCREMENTAL=0
# wgpu's OpenGL probe complains on every start where no session set this (a server, CI).
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
start=$SECONDS
summary="$OUT/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

{ nvidia-smi -L 2>/dev/null || true; lscpu | grep 'Model name' || true; uptime; } > "$OUT/machine.txt"
cargo build --profile "$PROFILE" -p lmbias-cli --features wgpu 2>&1 | tail -1
LMBIAS="$BIN/lmbias"
TINY=tests/fixtures/models/tiny-bert-mlm
# The adapter wgpu runs on, as lmbias names it on stderr.
adapter=$("$LMBIAS" embed --model "$TINY" --device wgpu x 2>&1 >/dev/null |
  sed -n 's/^lmbias: wgpu runs on //p')
say "adapter: ${adapter:?lmbias named no wgpu adapter}"
say "machine: $(tr -s ' \n' ' ;' < "$OUT/machine.txt") profile $PROFILE"
case "$adapter" in
  *"software, on the CPU"*)
    software=1
    say "NOTE: a software adapter (it runs on this machine's CPU): the checks hold as on a GPU;"
    say "      every speed below means nothing, and the shapes are small to keep the run short."
    SHAPE=${SHAPE:-"--layers 2 --hidden 128 --heads 2 --intermediate 512"}
    THROUGHPUT_MODELS=${THROUGHPUT_MODELS:-random:minilm}
    BATCHES=${BATCHES:-32}
    ;;
  *)
    software=0
    SHAPE=${SHAPE:-"--layers 12 --hidden 768 --heads 12 --intermediate 3072"}
    THROUGHPUT_MODELS=${THROUGHPUT_MODELS:-"random:minilm random:bert-base"}
    BATCHES=${BATCHES:-"32 256 1024"}
    ;;
esac

# 1. Parity.
cargo test --profile "$PROFILE" -p lmbias-model -p lmbias-cli --features lmbias-model/wgpu,lmbias-cli/wgpu \
  --test it wgpu -- --nocapture > "$OUT/parity.log" 2>&1 || { tail -30 "$OUT/parity.log"; exit 1; }
say "parity: $(grep -c '^test .* ok$' "$OUT/parity.log") wgpu tests passed (parity.log)"
grep '^wgpu vs cpu' "$OUT/parity.log" | cut -c1-300 >> "$summary"

# 2. Training from scratch, the same corpus, seed and steps on each device.
corpus="$OUT/train-corpus.txt"
# Any text will do for speed: the README and docs, one line a passage.
cat README.md docs/*.md | grep -v '^\s*$' > "$corpus"
for device in wgpu cpu; do
  rm -rf "$OUT/train-$device" "$OUT/train-$device.checkpoint"
  # shellcheck disable=SC2086
  "$LMBIAS" train-mlm --scratch --tokenizer "$TINY" $SHAPE --corpus "$corpus" \
    --output "$OUT/train-$device" --steps "$STEPS" --warmup-steps 4 --checkpoint-every 0 \
    --held-out 0.05 --log-every 10 --device "$device" > "$OUT/train-$device.log" 2>&1
  tokens=$(sed -n 's/.*"tokens_per_s": *\([0-9.e+-]*\).*/\1/p' "$OUT/train-$device/timing.json" |
    awk '{ printf "%.0f", $1 }')
  say "training ($SHAPE, $STEPS steps) on $device: $tokens tokens/s"
done

# 3. CrowS with the model trained on wgpu.
head -n $((PAIRS + 1)) datasets/crows-pairs/crows_pairs_anonymized.csv > "$OUT/pairs.csv"
for device in wgpu cpu; do
  t0=$(date +%s.%N)
  "$LMBIAS" crows --model "$OUT/train-wgpu" --pairs "$OUT/pairs.csv" --device "$device" --json \
    > "$OUT/crows-$device.json" 2> "$OUT/crows-$device.log"
  t1=$(date +%s.%N)
  say "crows ($PAIRS pairs, four measures) on $device: $(awk -v n="$PAIRS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", n / (b - a) }') pairs/s"
done
# Every pair's decision under each measure ("stereotypical" or not), in order, must agree.
decisions() { grep -o '"[a-z_]*": "[a-z_]*stereotypical"' "$1"; }
if [ "$(decisions "$OUT/crows-wgpu.json")" = "$(decisions "$OUT/crows-cpu.json")" ]; then
  say "crows: all $(decisions "$OUT/crows-cpu.json" | wc -l) decisions alike on wgpu and the CPU"
else
  say "crows: DECISIONS DIFFER between wgpu and the CPU (crows-wgpu.json, crows-cpu.json)"
fi

# 4. Forward-pass throughput.
cargo build --profile "$PROFILE" -p lmbias-model --features wgpu --example throughput 2>&1 | tail -1
for model in $THROUGHPUT_MODELS; do
  for batch in $BATCHES; do
    "$BIN/examples/throughput" "$model" "$batch" "$SECS" wgpu
  done
  "$BIN/examples/throughput" "$model" 32 "$SECS" cpu
done > "$OUT/throughput.jsonl" 2> "$OUT/throughput.log"
cat "$OUT/throughput.jsonl" >> "$summary"
uptime >> "$OUT/machine.txt"
say "gpu-check: done in $((SECONDS - start)) s$([ $software = 1 ] && echo ' (software adapter: speeds mean nothing)')"
