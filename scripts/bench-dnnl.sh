#!/usr/bin/env bash
# Issue #23's yardstick: oneDNN's matmul (f32, and bf16 src/weights with f32 dst) at the shapes of
# the forward pass, 1 and 2 threads (scripts/bench_dnnl.c says what is timed). Needs Debian's
# libdnnl-dev (apt-get install -y libdnnl-dev; oneDNN 2.6.3, OpenMP runtime, so OMP_NUM_THREADS
# sets the threads). THREADS="1 2" picks the counts; VERBOSE=1 adds ONEDNN_VERBOSE=1's log;
# arguments, if any, pick M (176, 352).
# Results go to docs/benchmarks.md by hand, with the CPU and the load printed here.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 2"}
BIN=${TMPDIR:-/tmp}/lmbias-bench-dnnl
# Debian's package ships no dnnl.pc: fall back to plain -ldnnl.
gcc -O2 -o "$BIN" scripts/bench_dnnl.c $(pkg-config --cflags --libs dnnl 2>/dev/null || echo -ldnnl) -lm
lscpu | grep 'Model name'
lscpu | grep -E '^(CPU family|Model):' | tr -s ' ' | tr '\n' ' '  # family 25: Zen 4, 26: Zen 5
lscpu | grep -o -w -E 'avx512_bf16|amx_bf16|amx_tile' | sort -u | tr '\n' ' ' || true; echo
uptime
for threads in $THREADS; do
  echo "# OMP_NUM_THREADS=$threads"
  OMP_NUM_THREADS=$threads ONEDNN_VERBOSE=${VERBOSE:-0} DNNL_VERBOSE=${VERBOSE:-0} "$BIN" "$@"
done
uptime
