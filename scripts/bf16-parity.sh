#!/usr/bin/env bash
# Issue #23's parity figures for `--precision bf16`, from the CLI alone: the cosine of bf16 vs
# f32 sentence vectors over the distinct texts of datasets/seat/en (min and median), for
# all-MiniLM-L6-v2 (its declared mean pooling) and a random model of bert-base's shape (CLS)
# (scripts/bench-model.sh makes it); then the English SEAT battery on MiniLM in both precisions:
# the largest change in d and in p, and how many tests change significance at 0.05.
# Results go to docs/benchmarks.md ("bf16") and the --precision help text by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
MINILM=${LMBIAS_MINILM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lmbias/all-MiniLM-L6-v2}
BASE=${BERT_BASE_DIR:-${TMPDIR:-/tmp}/lmbias-bench/bert-base-random}
TARGET=${CARGO_TARGET_DIR:-target}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cargo build --release -p lmbias-cli
LMBIAS=$TARGET/release/lmbias
lscpu | grep 'Model name'
python3 scripts/seat_en_texts.py "$WORK/texts.txt"
for model in "$MINILM" "$BASE"; do
  [ -d "$model" ] || { echo "skipped $model: no such folder"; continue; }
  for p in f32 bf16; do
    "$LMBIAS" embed --model "$model" --precision "$p" --json --input "$WORK/texts.txt" > "$WORK/$p.json"
  done
  python3 - "$model" "$WORK/f32.json" "$WORK/bf16.json" <<'PY'
import json, math, statistics, sys
def vectors(path):
    out = json.load(open(path))
    rows = out["vectors"] if isinstance(out, dict) else out
    return [r["vector"] if isinstance(r, dict) else r for r in rows]
a, b = vectors(sys.argv[2]), vectors(sys.argv[3])
def cos(u, v):
    return sum(x * y for x, y in zip(u, v)) / math.sqrt(sum(x * x for x in u) * sum(y * y for y in v))
c = [cos(u, v) for u, v in zip(a, b)]
print(f"{sys.argv[1]}: {len(c)} texts, cosine bf16 vs f32 min {min(c):.6f}, median {statistics.median(c):.6f}")
PY
done
[ -d "$MINILM" ] || exit 0
for p in f32 bf16; do
  "$LMBIAS" seat --model "$MINILM" --test datasets/seat/en --precision "$p" --json > "$WORK/seat-$p.json"
done
python3 - "$WORK/seat-f32.json" "$WORK/seat-bf16.json" <<'PY'
import json, sys
rows = [{r["test"]: r for r in json.load(open(p))["rows"]} for p in sys.argv[1:3]]
f32, bf16 = rows
common = sorted(set(f32) & set(bf16))
dd = max(abs(f32[t]["effect_size"] - bf16[t]["effect_size"]) for t in common)
dp = max(abs(f32[t]["p_value"] - bf16[t]["p_value"]) for t in common)
flips = [t for t in common if (f32[t]["p_value"] < 0.05) != (bf16[t]["p_value"] < 0.05)]
print(f"SEAT en, MiniLM: {len(common)} tests; largest |Δd| {dd:.4f}, largest |Δp| {dp:.4f}; "
      f"significance at 0.05 changes in {len(flips)}: {', '.join(flips) or 'none'}")
PY
