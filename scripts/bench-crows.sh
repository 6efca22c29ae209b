#!/usr/bin/env bash
# `lmbias crows` against mlm-bias 0.1.7 and the authors' metric.py logic, side by side on the
# same local model folder, pairs and threads (issue #37). MODEL: a masked-LM folder (the period
# models of reproduce-paper serve: ~/.cache/lmbias/period-models/kjv-*); PYTHON: a Python with
# torch, transformers and mlm-bias 0.1.7 (`pip install mlm-bias==0.1.7`). N pairs (default all
# 1,508) for lmbias and mlm-bias, METRIC_N for metric.py's logic (one forward pass per token: slow;
# 0 skips it). MEASURES=all times `--measures all` against mlm-bias computing the same measures
# (batched, its default, and unbatched) instead of the papers' four.
# Results go to docs/benchmarks.md by hand, with the CPU and the load printed here.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${MODEL:?a masked-LM folder}
PYTHON=${PYTHON:-python3}
THREADS=${THREADS:-2}
N=${N:-1508}
METRIC_N=${METRIC_N:-200}
MEASURES=${MEASURES:-}
PAIRS=datasets/crows-pairs/crows_pairs_anonymized.csv
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release -p lmbias-cli
lscpu | grep 'Model name'
uptime
sub=$(mktemp)
"$PYTHON" scripts/bench_crows.py subset "$PAIRS" "$N" "$sub.csv"
start=$(date +%s.%N)
RAYON_NUM_THREADS=$THREADS "$TARGET/release/lmbias" crows --model "$MODEL" --pairs "$sub.csv" \
  ${MEASURES:+--measures "$MEASURES"} > "$sub.md"
end=$(date +%s.%N)
echo "lmbias: $N pairs in $(echo "$end - $start" | bc) s ($THREADS threads; measures: ${MEASURES:-the four of the papers})"
head -3 "$sub.md"
if [ "$MEASURES" = all ]; then
  "$PYTHON" scripts/bench_crows.py mlm-bias-all "$MODEL" "$PAIRS" "$THREADS" "$N"
  "$PYTHON" scripts/bench_crows.py mlm-bias-all "$MODEL" "$PAIRS" "$THREADS" "$N" unbatched
else
  "$PYTHON" scripts/bench_crows.py mlm-bias "$MODEL" "$PAIRS" "$THREADS" "$N"
fi
[ "$METRIC_N" = 0 ] || "$PYTHON" scripts/bench_crows.py metric "$MODEL" "$PAIRS" "$THREADS" "$METRIC_N"
uptime
rm -f "$sub" "$sub.csv" "$sub.md"
