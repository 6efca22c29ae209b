#!/usr/bin/env python3
"""Times sent-bias's p_val_permutation_test on the same scores as benches/permutation.rs.

Usage: python3 sent_bias_timing.py SENT_BIAS_CHECKOUT   (holding sentbias/weat.py; not copied here)
Prints one line per case: name, seconds (best of `repeat`), p-value.
"""
import sys
import time

import numpy as np

np.int = int  # weat.py predates numpy 1.24
sys.path.insert(0, sys.argv[1])
from sentbias import weat  # noqa: E402


def scores(per_side):
    """The LCG of permutation.rs's `associations`: X's scores first, then Y's."""
    state = 0x9E3779B97F4A7C15
    mask = (1 << 64) - 1

    def nxt():
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) & mask
        return ((state >> 11) / float(1 << 53) - 0.5) * 0.2

    x = [nxt() + 0.02 for _ in range(per_side)]
    y = [nxt() for _ in range(per_side)]
    return x + y


def run(name, per_side, n_samples, repeat):
    s = scores(per_side)
    # One attribute column holding the score and one of zeros: s(w, A, B) = score exactly.
    cossims = np.array([[v, 0.0] for v in s])
    X, Y = range(per_side), range(per_side, 2 * per_side)
    best = float("inf")
    for _ in range(repeat):
        np.random.seed(0)
        start = time.perf_counter()
        p = weat.p_val_permutation_test(X, Y, [0], [1], n_samples, cossims=cossims)
        best = min(best, time.perf_counter() - start)
    print(f"{name}\t{best:.4f}\t{p}", flush=True)


if __name__ == "__main__":
    run("exact n=8", 8, 100000, 3)
    run("exact n=12", 12, 10**7, 1)
    run("sampled n=25, 1e5", 25, 10**5, 1)
    run("sampled n=25, 1e6", 25, 10**6, 1)
