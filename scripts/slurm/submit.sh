#!/usr/bin/env bash
# Submits a checkpoint sweep to Slurm: N shards as one job array, then the merge,
# which runs only if every shard succeeded. Run from the repository root on the
# login node (the build needs no network once the crates are fetched):
#
#   scripts/slurm/submit.sh N MODELS OUT [reproduce-paper options…]
#   scripts/slurm/submit.sh 16 @checkpoints.txt /scratch/$USER/sweep --study seat
#
# MODELS is a comma-separated list or @FILE (one folder or Hugging Face id per line).
# Options after OUT go to every shard alike; sbatch options (partition, account)
# come from the environment (SBATCH_PARTITION, SBATCH_ACCOUNT) or the #SBATCH lines.
set -euo pipefail
if (($# < 3)); then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
N=$1 MODELS=$2 OUT=$3
shift 3
cargo build --release --package xtask
mkdir -p "$OUT"
export LMBIAS_MODELS=$MODELS LMBIAS_OUT=$OUT LMBIAS_ARGS="$*"
export LMBIAS_XTASK=$PWD/target/release/xtask
dir=$(dirname "$0")
array=$(sbatch --parsable --array="1-$N" "$dir/reproduce-array.sbatch")
merge=$(sbatch --parsable --dependency="afterok:${array%%;*}" "$dir/reproduce-merge.sbatch")
echo "shards: job array $array (1-$N); merge: job $merge, after all shards succeed"
echo "report: $OUT/REPORT.md"
