"""Long calls stop on Ctrl-C with KeyboardInterrupt, forked children work, and an exact test
too large to finish is refused at once (issue 19, items 1-3).

The interrupt tests send SIGINT to this process from a timer thread during a call that runs
for much longer than the bound uninterrupted on the 2-core test machine (given per test), so
a call that only noticed the signal at its end fails the bound. The bound is a hang guard,
not a speed claim.
"""

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import lmbias
from conftest import REPO, TINY_MLM

# Ctrl-C must end a call within this many seconds.
BOUND = 10


@pytest.fixture(autouse=True)
def sigint_raises_keyboard_interrupt():
    """Python's own SIGINT handler, whatever the test runner was started with: a shell
    without job control starts background commands with SIGINT ignored, and Python then
    installs no handler, so the signal these tests send would do nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def scores_matrix(n, seed):
    """n distinct unit vectors in 4-D (rows), deterministic."""
    rows = np.random.default_rng(seed).normal(size=(n, 4))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def interrupted(call, after=1.0):
    """Runs call, sending SIGINT after `after` s; returns the seconds until KeyboardInterrupt."""
    timer = threading.Timer(after, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    return time.monotonic() - started


def test_ctrl_c_stops_an_exact_weat():
    # 2 × 24 targets, exact: C(48, 24) ≈ 3.2e13 splits, 18 s or more uninterrupted.
    x, y, a, b = scores_matrix(24, 1), scores_matrix(24, 2), scores_matrix(3, 3), scores_matrix(3, 4)
    assert interrupted(lambda: lmbias.weat(x, y, a, b, n_samples=2**63)) < BOUND
    # The next call works (and the pool is not stuck on the cancelled one).
    assert lmbias.weat(x[:8], y[:8], a, b).exact


def test_ctrl_c_stops_a_sampled_weat():
    # 6 × 10^8 sampled splits of 2 × 20: most of a minute uninterrupted, just inside the cost
    # guard (10^10 is refused up front: the next test).
    x, y, a, b = scores_matrix(20, 1), scores_matrix(20, 2), scores_matrix(3, 3), scores_matrix(3, 4)
    assert interrupted(lambda: lmbias.weat(x, y, a, b, n_samples=6 * 10**8)) < BOUND


def test_a_sampled_weat_too_large_is_refused_up_front():
    x, y, a, b = scores_matrix(20, 1), scores_matrix(20, 2), scores_matrix(3, 3), scores_matrix(3, 4)
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"^a sampled test of 10000000000 splits of X ∪ Y \(20 \+ 20 items\) would take about "):
        lmbias.weat(x, y, a, b, n_samples=10**10)
    assert time.monotonic() - started < 1


def test_ctrl_c_stops_embed_and_fill_mask():
    # The tiny MLM fixture: 400 000 texts take about 25 s each way uninterrupted.
    model = lmbias.Model(TINY_MLM)
    texts = [f"the quick brown fox {i} jumps" for i in range(400_000)]
    assert interrupted(lambda: model.embed(texts)) < BOUND
    masked = [f"the quick brown [MASK] {i}" for i in range(400_000)]
    assert interrupted(lambda: model.fill_mask(masked)) < BOUND
    assert model.embed(texts[:3]).shape == (3, 32)


def test_ctrl_c_stops_a_seat_permutation_test():
    # A 24 × 24 test on GloVe (numbers are words there), exact: 18 s or more uninterrupted.
    words = [str(i) for i in range(52)]
    test = {"name": "numbers",
            "targ1": {"category": "low", "examples": words[:24]},
            "targ2": {"category": "high", "examples": words[24:48]},
            "attr1": {"category": "a", "examples": words[48:50]},
            "attr2": {"category": "b", "examples": words[50:]}}
    glove = lmbias.Model("glove-6b-50d")
    assert interrupted(lambda: lmbias.seat(glove, test, n_samples=2**63)) < BOUND


def test_ctrl_c_during_the_first_embed_is_keyboard_interrupt_not_a_panic(minilm):
    # Issue 19's reproduction, in a fresh interpreter: the first numpy array is built after
    # the interrupt (it used to panic, "Failed to access NumPy array API capsule").
    script = (
        "import lmbias, os, signal, threading\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        f"m = lmbias.Model({str(minilm)!r})\n"
        "threading.Timer(1, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        "m.embed(['the quick brown fox %d' % i for i in range(20000)])\n"
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert time.monotonic() - started < 60
    last = done.stderr.strip().splitlines()[-1]
    assert last == "KeyboardInterrupt", done.stderr
    assert "Panic" not in done.stderr


def test_embed_in_chunks_equals_the_cli(minilm, cli_json):
    # More texts than one chunk (512), of varied lengths: the CLI sends the same chunks.
    texts = [" ".join(["word"] * (1 + i % 17)) + f" {i}" for i in range(600)]
    vectors = lmbias.Model(minilm).embed(texts)
    out = cli_json("embed", "--model", minilm, "--json", *texts)
    np.testing.assert_array_equal(vectors, np.array(out["vectors"], dtype=np.float64).astype(np.float32))


def _weat_and_embed_in_child(_):
    x, y, a, b = scores_matrix(8, 1), scores_matrix(8, 2), scores_matrix(3, 3), scores_matrix(3, 4)
    result = lmbias.weat(x, y, a, b)
    vectors = lmbias.Model(TINY_MLM).embed(["a text", "another text"] * 40)
    return result.p_value, vectors.shape


def test_forked_children_work():
    # The parent uses its pool first (both calls run in parallel), then forks.
    expected = _weat_and_embed_in_child(None)
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        # A child stuck on the parent's pool threads would hang: fail after a timeout instead.
        results = pool.map_async(_weat_and_embed_in_child, range(2)).get(timeout=60)
    assert results == [expected, expected]


def test_an_exact_test_too_large_is_refused_at_once():
    x, y, a, b = scores_matrix(25, 1), scores_matrix(25, 2), scores_matrix(3, 3), scores_matrix(3, 4)
    started = time.monotonic()
    with pytest.raises(ValueError) as raised:
        lmbias.weat(x, y, a, b, n_samples=2**63)
    assert time.monotonic() - started < 2
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("an exact test over the 126410606437752 splits of X ∪ Y (25 + 25 items) would take about ")
    assert message.endswith("set --n-samples (n_samples in Python) below the number of splits (e.g. 100000, the default, "
                            "or 1000000 for p down to 1e-6) to sample them instead")
    # The option it names works.
    assert not lmbias.weat(x, y, a, b, n_samples=100_000).exact
