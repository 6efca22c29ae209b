#!/usr/bin/env bash
# Issue #24's side-by-side for training (item 6): `lmbias train-mlm --from all-MiniLM-L6-v2`
# against the PyTorch loop a transformers user writes for the same job
# (scripts/bench_train_torch.py): the same model with the same fresh MLM head, the same corpus
# slice, settings (blocks of 32 tokens, batch 32, 15 % masking, AdamW lr 5e-4, warm-up, clipping
# 1.0, loss at the masked positions only, dropout on, f32) and number of threads. Each side runs
# RUNS times, alternating, so a change of load hits both; the table gives the training loop's
# tokens/s of each run (lmbias: its training.json; torch: after one warm-up step), the whole
# command's wall time, and the ratio lmbias/torch of the mean tokens/s.
#
# The machine should be quiet: nothing else running on its cores (no build, no test, no other
# benchmark), or the ratio measures the load. The CPU and the load before and after are printed;
# write them into docs/benchmarks.md with the ratio, whatever it is.
#
#   scripts/bench-train.sh [CORPUS]     # default: the KJV, one verse a line (xtask/src/corpora.rs)
#   PYTHON=/path/to/venv/bin/python STEPS=100 LINES=4000 THREADS=2 RUNS=2 scripts/bench-train.sh
#
# PYTHON needs torch and transformers (the versions .ci/run installs).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/lmbias
CORPUS=${1:-$CACHE/corpora/kjv.txt}
MINILM=${LMBIAS_MINILM_DIR:-$CACHE/all-MiniLM-L6-v2}
PYTHON=${PYTHON:-python3}
STEPS=${STEPS:-100}
LINES=${LINES:-4000}
THREADS=${THREADS:-2}
RUNS=${RUNS:-2}
WARMUP=${WARMUP:-10}
TARGET=${CARGO_TARGET_DIR:-target}
WORK=${TMPDIR:-/tmp}/lmbias-bench-train
SETTINGS=(--max-len 32 --batch 32 --lr 5e-4 --warmup-steps "$WARMUP" --weight-decay 0.01 --clip 1.0 --seed 0)

[ -f "$CORPUS" ] || { echo "error: $CORPUS not found: pass a corpus, one passage a line" >&2; exit 1; }
[ -f "$MINILM/model.safetensors" ] || { echo "error: $MINILM: no all-MiniLM-L6-v2 (set LMBIAS_MINILM_DIR)" >&2; exit 1; }
"$PYTHON" -c 'import torch, transformers' || { echo "error: $PYTHON has no torch/transformers (set PYTHON)" >&2; exit 1; }
mkdir -p "$WORK"
# Both sides train on every line of the slice: lmbias holds nothing out (--held-out 0).
head -n "$LINES" "$CORPUS" > "$WORK/corpus.txt"
cargo build --release -p lmbias-cli
lscpu | grep 'Model name'
uptime
: > "$WORK/runs.jsonl"
for run in $(seq "$RUNS"); do
  out="$WORK/lmbias-model"
  rm -rf "$out" "$out.checkpoint"
  start=$EPOCHREALTIME
  RAYON_NUM_THREADS=$THREADS "$TARGET/release/lmbias" train-mlm --from "$MINILM" --corpus "$WORK/corpus.txt" \
    --output "$out" --steps "$STEPS" "${SETTINGS[@]}" --held-out 0 --checkpoint-every 0 --log-every "$STEPS" >&2
  wall=$("$PYTHON" -c "print($EPOCHREALTIME - $start)")
  "$PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(json.dumps({"impl": "lmbias", "run": int(sys.argv[2]),
    "tokens_per_s": r["tokens_per_s"], "loss": r["losses"][-1], "wall_s": float(sys.argv[3])}))' \
    "$out/training.json" "$run" "$wall" >> "$WORK/runs.jsonl"

  start=$EPOCHREALTIME
  torch_json=$("$PYTHON" scripts/bench_train_torch.py "$MINILM" "$WORK/corpus.txt" --steps "$STEPS" --threads "$THREADS" "${SETTINGS[@]}")
  wall=$("$PYTHON" -c "print($EPOCHREALTIME - $start)")
  "$PYTHON" -c 'import json, sys; r = json.loads(sys.argv[1]); print(json.dumps({"impl": r["impl"], "run": int(sys.argv[2]),
    "tokens_per_s": r["tokens_per_s"], "loss": r["loss"], "wall_s": float(sys.argv[3])}))' \
    "$torch_json" "$run" "$wall" >> "$WORK/runs.jsonl"
done
uptime
"$PYTHON" - "$WORK/runs.jsonl" "$STEPS" "$THREADS" <<'PY'
import json, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
print(f"\n{sys.argv[2]} steps of batch 32 x 32 tokens, {sys.argv[3]} threads\n")
print("| run | implementation | tokens/s (training loop) | final loss | wall (s, whole command) |")
print("|---|---|---:|---:|---:|")
for r in runs:
    print(f"| {r['run']} | {r['impl']} | {r['tokens_per_s']:.0f} | {r['loss']:.3f} | {r['wall_s']:.1f} |")
ours = [r["tokens_per_s"] for r in runs if r["impl"] == "lmbias"]
torch = [r["tokens_per_s"] for r in runs if r["impl"] != "lmbias"]
ours, torch = sum(ours) / len(ours), sum(torch) / len(torch)
print(f"\nlmbias / torch, mean tokens/s: {ours:.0f} / {torch:.0f} = {ours / torch:.2f}x")
PY
