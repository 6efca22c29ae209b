#!/usr/bin/env bash
# Issue #12's side-by-side: `lmbias embed` against transformers on the 4,985 distinct texts of
# datasets/seat/en (all-MiniLM-L6-v2, CLS pooling, the same number of threads), each timed as a
# whole command, back to back, three times. transformers runs the way a notebook would: input
# order, batches of 32 padded to their longest (scripts/bench_torch.py embed).
# TORCH_DTYPE=bf16 runs the transformers side under bf16 autocast (scripts/bench_torch.py; default f32).
# Results go to docs/benchmarks.md by hand, with the CPU and the load printed here.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
MINILM=${LMBIAS_MINILM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lmbias/all-MiniLM-L6-v2}
TARGET=${CARGO_TARGET_DIR:-target}
TEXTS=${TMPDIR:-/tmp}/lmbias-seat-en-texts.txt

# One line per distinct example, in file order (the order SEAT meets them).
python3 - "$TEXTS" <<'PY'
import glob, json, sys
seen, texts = set(), []
for path in sorted(glob.glob("datasets/seat/en/*.jsonl")):
    test = json.load(open(path, encoding="utf-8"))
    for role in ("targ1", "targ2", "attr1", "attr2"):
        for text in test[role]["examples"]:
            if text not in seen:
                seen.add(text)
                texts.append(text)
open(sys.argv[1], "w", encoding="utf-8").write("\n".join(texts) + "\n")
print(f"{len(texts)} texts", file=sys.stderr)
PY
cargo build --release -p lmbias-cli
lscpu | grep 'Model name'
uptime
for _ in $(seq "$RUNS"); do
  /usr/bin/time -f "lmbias embed: %e s wall, %U s user" env RAYON_NUM_THREADS="$THREADS" \
    "$TARGET/release/lmbias" embed --model "$MINILM" --pooling cls --json --input "$TEXTS" > /dev/null
  /usr/bin/time -f "transformers: %e s wall, %U s user" \
    python3 scripts/bench_torch.py embed "$MINILM" "$TEXTS" "$THREADS" 2>&1 | grep -v '^Loading weights'
done
uptime
