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
#   PYTHON=/path/to/venv/bin/python STEPS=100 LINES=4000 THREADS="1 2" RUNS=2 scripts/bench-train.sh
#
# THREADS lists the thread counts to measure (each run measures every count, both sides, each
# pinned with taskset to that many cores, so one thread is one core for both). The
# summary gives, per count, the mean tokens/s of each side and their ratio, the scaling from the
# smallest count to the largest, and the share of the cores' f32 FMA peak each side reaches: the
# FLOP of a training step per token is counted from the model's config.json (forward 2 and
# backward 4 FLOP per weight per token for the encoder's products, the attention's two
# products, the head's transform and decoder at the chosen 15 %), the peak is cores x GHz x f32
# FLOP per cycle (AVX-512 with two FMA units: 64; Zen 4's double-pumped AVX-512 and AVX2 with
# two 256-bit FMA units: 32; Zen 1's 128-bit units: 16; set FLOP_PER_CYCLE and GHZ to override
# what lscpu suggests).
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
  for threads in $THREADS; do
    out="$WORK/lmbias-model"
    rm -rf "$out" "$out.checkpoint"
    start=$EPOCHREALTIME
    # Each side on the first `threads` cores only: one thread means one core, for both.
    cpus="0-$((threads - 1))"
    RAYON_NUM_THREADS=$threads taskset -c "$cpus" "$TARGET/release/lmbias" train-mlm --from "$MINILM" --corpus "$WORK/corpus.txt" \
      --output "$out" --steps "$STEPS" "${SETTINGS[@]}" --held-out 0 --checkpoint-every 0 --log-every "$STEPS" >&2
    wall=$("$PYTHON" -c "print($EPOCHREALTIME - $start)")
    "$PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(json.dumps({"impl": "lmbias", "run": int(sys.argv[2]),
      "threads": int(sys.argv[4]), "tokens_per_s": r["tokens_per_s"], "loss": r["losses"][-1], "wall_s": float(sys.argv[3])}))' \
      "$out/training.json" "$run" "$wall" "$threads" >> "$WORK/runs.jsonl"

    start=$EPOCHREALTIME
    torch_json=$(taskset -c "$cpus" "$PYTHON" scripts/bench_train_torch.py "$MINILM" "$WORK/corpus.txt" --steps "$STEPS" --threads "$threads" "${SETTINGS[@]}")
    wall=$("$PYTHON" -c "print($EPOCHREALTIME - $start)")
    "$PYTHON" -c 'import json, sys; r = json.loads(sys.argv[1]); print(json.dumps({"impl": r["impl"], "run": int(sys.argv[2]),
      "threads": int(sys.argv[4]), "tokens_per_s": r["tokens_per_s"], "loss": r["loss"], "wall_s": float(sys.argv[3])}))' \
      "$torch_json" "$run" "$wall" "$threads" >> "$WORK/runs.jsonl"
  done
done
uptime
"$PYTHON" - "$WORK/runs.jsonl" "$STEPS" "$MINILM/config.json" <<'PY'
import json, os, re, subprocess, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
config = json.load(open(sys.argv[3]))
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout

# FLOP of one training step per token (see the header).
h, f, layers, vocab = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"], config["vocab_size"]
seq, chosen = 32, 0.15
per_token = 6 * layers * (4 * h * h + 2 * h * f) + 6 * layers * 2 * seq * h + 6 * chosen * (h * h + h * vocab)

def field(name):
    m = re.search(rf"^{name}:\s*(.+)$", lscpu, re.M)
    return m.group(1).strip() if m else ""
flags, vendor, family, model = field("Flags").split(), field("Vendor ID"), field("CPU family"), field("Model")
if "FLOP_PER_CYCLE" in os.environ:
    per_cycle = float(os.environ["FLOP_PER_CYCLE"])
elif vendor == "AuthenticAMD":
    fam = int(family or 0)
    per_cycle = 64 if fam >= 26 else 32 if fam == 25 or (fam == 23 and int(model or 0) >= 0x30) else 16
else:
    per_cycle = 64 if "avx512f" in flags else 32
ghz = float(os.environ.get("GHZ", 0)) or float(field("CPU max MHz") or 0) / 1000 or float(field("BogoMIPS") or 0) / 2000

print(f"\n{sys.argv[2]} steps of batch 32 x 32 tokens; {per_token / 1e6:.1f} MFLOP per token; "
      f"peak {per_cycle:.0f} FLOP/cycle/core at {ghz:.2f} GHz ({field('Model name')})\n")
print("| run | threads | implementation | tokens/s (training loop) | final loss | wall (s, whole command) |")
print("|---|---:|---|---:|---:|---:|")
for r in runs:
    print(f"| {r['run']} | {r['threads']} | {r['impl']} | {r['tokens_per_s']:.0f} | {r['loss']:.3f} | {r['wall_s']:.1f} |")
counts = sorted({r["threads"] for r in runs})
mean = {}
for t in counts:
    ours = [r["tokens_per_s"] for r in runs if r["impl"] == "lmbias" and r["threads"] == t]
    torch = [r["tokens_per_s"] for r in runs if r["impl"] != "lmbias" and r["threads"] == t]
    mean[t] = (sum(ours) / len(ours), sum(torch) / len(torch))
print("\n| threads | lmbias tokens/s | torch tokens/s | lmbias / torch | lmbias % of peak | torch % of peak |")
print("|---:|---:|---:|---:|---:|---:|")
for t in counts:
    ours, torch = mean[t]
    peak = t * ghz * 1e9 * per_cycle
    print(f"| {t} | {ours:.0f} | {torch:.0f} | {ours / torch:.2f}x | {100 * ours * per_token / peak:.0f} % | "
          f"{100 * torch * per_token / peak:.0f} % |")
if len(counts) > 1:
    lo, hi = counts[0], counts[-1]
    print(f"\n{hi} threads over {lo}: lmbias {mean[hi][0] / mean[lo][0]:.2f}x, torch {mean[hi][1] / mean[lo][1]:.2f}x")
PY
