"""scikit-learn's LinearSVC(dual=False) on the data of benches/fit.rs (same LCG).
Prints the best of 20 fit times per case. tol: the default 1e-4 and 1e-8 (parity setting)."""
import time

import numpy as np
from sklearn.svm import LinearSVC

M64 = (1 << 64) - 1


def data(features, classes, samples=95):
    state = 0x9E3779B97F4A7C15
    x = np.empty((samples, features))
    y = np.array([i % classes for i in range(samples)])
    for i in range(samples):
        for j in range(features):
            state = (state * 6364136223846793005 + 1442695040888963407) & M64
            x[i, j] = (state >> 11) / float(1 << 53) - 0.5 + (0.3 if j == y[i] else 0.0)
    return x, y


for features, classes in [(384, 2), (384, 3), (50, 2), (50, 3)]:
    x, y = data(features, classes)
    for tol in (1e-4, 1e-8):
        best = float("inf")
        for _ in range(20):
            t = time.perf_counter()
            LinearSVC(dual=False, tol=tol, max_iter=100_000).fit(x, y)
            best = min(best, time.perf_counter() - t)
        print(f"features={features} classes={classes} tol={tol:g}: {best * 1e3:.2f} ms")
