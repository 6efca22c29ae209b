#!/usr/bin/env bash
# Submits a checkpoint sweep to Slurm: N shards as one job array, then the merge, which
# runs only if every shard succeeded (and is cancelled if one fails). From any folder:
#
#   scripts/slurm/submit.sh N MODELS OUT [reproduce-paper options…]
#   scripts/slurm/submit.sh 16 @checkpoints.txt /scratch/$USER/sweep --study seat
#   scripts/slurm/submit.sh --rerun K[,K…] OUT     # shards K again, then the merge
#
# MODELS is a comma-separated list or @FILE (one folder or Hugging Face id per line).
# Options after OUT go to every shard alike. Environment:
#   LMBIAS_SBATCH_ARGS  sbatch flags for every job, after the #SBATCH defaults so they win
#                       (e.g. "--cpus-per-task=4 --mem=8G --partition=debug --account=X")
#   LMBIAS_XTASK        an xtask binary built already (default: cargo builds this
#                       repository's target/release/xtask once, here on the login node)
set -euo pipefail
usage() {
  sed -n '2,15p' "$0" >&2
  exit 2
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() {
  echo "submit.sh: $*" >&2
  exit 2
}
# Said before anything is built or written.
command -v sbatch >/dev/null || fail "sbatch: not found on PATH (run this on a Slurm login node)"

# Queues shards $1 (an --array range) of the sweep in $2/sweep.env, then the merge.
queue() {
  local range=$1 out=$2 array merge
  local -a extra
  # shellcheck disable=SC2206 # a list of flags, split as a shell would
  extra=(${LMBIAS_SBATCH_ARGS:-})
  # shellcheck source=/dev/null
  source "$out/sweep.env"
  array=$(sbatch --parsable --array="$range" \
    --output="$out/logs/shard-%a-of-$LMBIAS_SHARDS.job%A.out" \
    "${extra[@]}" "$here/reproduce-array.sbatch" "$out/sweep.env")
  array=${array%%;*}
  merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --output="$out/logs/merge.job%j.out" \
    "${extra[@]}" "$here/reproduce-merge.sbatch" "$out/sweep.env")
  merge=${merge%%;*}
  echo "shards: job array $array ($range of $LMBIAS_SHARDS); merge: job $merge, after all of them succeed"
  echo "logs: $out/logs/; report: $out/REPORT.md"
}

if [[ ${1:-} == --rerun ]]; then
  (($# == 3)) || usage
  out=$(cd "$3" && pwd)
  [[ -f $out/sweep.env ]] || {
    echo "submit.sh: $out/sweep.env: not found (not the OUT of a sweep submit.sh queued)" >&2
    exit 2
  }
  queue "$2" "$out"
  exit 0
fi
(($# >= 3)) || usage
n=$1 models=$2
shift 2
[[ $n =~ ^[1-9][0-9]*$ ]] || fail "N: '${n:0:80}' is not a positive number of shards"
list=$models
if [[ $models == @* ]]; then
  # One model per line; blank lines and #-comments skipped. Read once, here, so every
  # shard and a rerun see the same list.
  [[ -f ${models#@} && -r ${models#@} ]] || fail "MODELS: ${models#@}: not a readable file"
  models=$(grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "${models#@}" | paste -sd, -) || true
fi
[[ -n ${models//,/} ]] || fail "MODELS: ${list:0:80}: no model (give a comma-separated list or @FILE, one per line)"
IFS=, read -r -a names <<<"$models"
# More shards than models would queue shards with nothing to run (and bash's arithmetic
# stops at 2^63: compare lengths first).
if ((${#n} > 9)) || ((n > ${#names[@]})); then
  fail "N: ${n:0:80} shards for ${#names[@]} models: at most one shard per model"
fi
mkdir -p "$1/logs"
out=$(cd "$1" && pwd)
shift
xtask=${LMBIAS_XTASK:-}
if [[ -z $xtask ]]; then
  cargo build --release --package xtask --manifest-path "$root/Cargo.toml"
  target=${CARGO_TARGET_DIR:-$root/target}
  xtask=$(realpath -m "$target/release/xtask")
fi
[[ -x $xtask ]] || {
  echo "submit.sh: LMBIAS_XTASK: '$xtask' is not an executable" >&2
  exit 2
}
# What every job of the sweep reads (and --rerun reuses): the binary, the list, the options.
LMBIAS_XTASK=$(realpath "$xtask") LMBIAS_MODELS=$models LMBIAS_OUT=$out LMBIAS_SHARDS=$n
LMBIAS_ARGS=("$@")
declare -p LMBIAS_XTASK LMBIAS_MODELS LMBIAS_OUT LMBIAS_SHARDS LMBIAS_ARGS >"$out/sweep.env.tmp"
mv "$out/sweep.env.tmp" "$out/sweep.env"
queue "1-$n" "$out"
