"""lmbias.train_mlm (issue 33): the CLI's training from Python. The same settings give the
folder `lmbias train-mlm` writes, byte for byte; progress reaches a callback; Ctrl-C (or an
exception in the callback) stops the run with a checkpoint that resume=True continues to the
uninterrupted run's weights."""

import json
import os
import signal

import pytest

import lmbias
from conftest import FIXTURES, TINY_MLM

CORPUS = FIXTURES / "generate" / "corpus.txt"
SETTINGS = dict(max_len=32, batch=8, lr=2e-3, warmup_steps=2, seed=0, held_out=0.1)


def flags(steps, checkpoint_every=0):
    """SETTINGS as the CLI's flags."""
    out = ["--steps", steps, "--checkpoint-every", checkpoint_every]
    for key, value in SETTINGS.items():
        out += ["--" + key.replace("_", "-"), value]
    return out


def report(folder):
    """training.json: nothing in it depends on the clock (the timings are in timing.json)."""
    data = json.loads((folder / "training.json").read_text())
    assert "seconds" not in data and "tokens_per_s" not in data
    return data


@pytest.fixture(autouse=True)
def sigint_raises_keyboard_interrupt():
    """Python's own SIGINT handler (see test_interrupt.py)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_the_folder_equals_the_clis(tmp_path, cli):
    seen = []
    out = lmbias.train_mlm(CORPUS, tmp_path / "py", from_=str(TINY_MLM), steps=12, checkpoint_every=0,
                           progress=seen.append, **SETTINGS)
    code, _, stderr = cli("train-mlm", "--from", TINY_MLM, "--corpus", CORPUS, "--output", tmp_path / "cli",
                          *flags(12))
    assert code == 0, stderr
    # training.json and training.md hold nothing of the clock: two runs write them byte for byte.
    for name in ("model.safetensors", "config.json", "tokenizer.json", "training.json", "training.md"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert report(tmp_path / "py") == report(tmp_path / "cli")
    # The answer is training.json; the callback saw every step in order.
    assert out["losses"] == report(tmp_path / "py")["losses"]
    assert {k: v for k, v in out.items() if k != "timing"} == report(tmp_path / "py")
    assert out["timing"] == json.loads((tmp_path / "py" / "timing.json").read_text())
    assert out["timing"]["seconds"] > 0 and out["timing"]["tokens_per_s"] > 0
    assert [p["step"] for p in seen] == list(range(1, 13))
    assert all(p["steps"] == 12 and p["loss"] > 0 and p["tokens_per_s"] > 0 for p in seen)
    assert [p["loss"] for p in seen] == out["losses"]


def test_ctrl_c_leaves_a_checkpoint_that_resume_continues(tmp_path):
    whole = tmp_path / "whole"
    lmbias.train_mlm(CORPUS, whole, from_=str(TINY_MLM), steps=300, **SETTINGS)
    cut = tmp_path / "cut"

    def interrupt_at_step_3(p):
        if p["step"] == 3:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        lmbias.train_mlm(CORPUS, cut, from_=str(TINY_MLM), steps=300, progress=interrupt_at_step_3, **SETTINGS)
    state = json.loads((tmp_path / "cut.checkpoint" / "state.json").read_text())
    assert 3 <= state["step"] < 300
    assert not cut.exists()
    out = lmbias.train_mlm(CORPUS, cut, from_=str(TINY_MLM), steps=300, resume=True, **SETTINGS)
    assert out["resumed_from"] == state["step"]
    assert (cut / "model.safetensors").read_bytes() == (whole / "model.safetensors").read_bytes()
    assert report(cut)["losses"] == report(whole)["losses"]


def test_an_exception_in_the_callback_stops_the_run(tmp_path):
    def fail_at_step_2(p):
        if p["step"] == 2:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        lmbias.train_mlm(CORPUS, tmp_path / "out", from_=str(TINY_MLM), steps=50, progress=fail_at_step_2,
                         **SETTINGS)
    assert json.loads((tmp_path / "out.checkpoint" / "state.json").read_text())["step"] == 2


def test_bad_settings_are_value_errors(tmp_path):
    with pytest.raises(ValueError, match="--max-len 2"):
        lmbias.train_mlm(CORPUS, tmp_path / "a", from_=str(TINY_MLM), max_len=2)
    with pytest.raises(ValueError, match="scratch=True"):
        lmbias.train_mlm(CORPUS, tmp_path / "b")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="the corpus has no passage"):
        lmbias.train_mlm(empty, tmp_path / "d", from_=str(TINY_MLM))
    with pytest.raises(FileNotFoundError):
        lmbias.train_mlm(tmp_path / "missing.txt", tmp_path / "c", from_=str(TINY_MLM))


def test_added_words_equal_the_clis(tmp_path, cli):
    """add_words, as a count and as a list's path, gives the folder `--add-words` writes."""
    words = tmp_path / "words.txt"
    words.write_text("# period forms\nabideth\nancient\n")
    for arg in (4, words):
        py, cli_out = tmp_path / f"py-{arg is words}", tmp_path / f"cli-{arg is words}"
        out = lmbias.train_mlm(CORPUS, py, from_=str(TINY_MLM), steps=3, add_words=arg, **SETTINGS)
        code, _, stderr = cli("train-mlm", "--from", TINY_MLM, "--corpus", CORPUS, "--output", cli_out,
                              "--add-words", arg, *flags(3))
        assert code == 0, stderr
        for name in ("model.safetensors", "config.json", "tokenizer.json", "vocab.txt"):
            assert (py / name).read_bytes() == (cli_out / name).read_bytes(), name
        assert len(out["added_words"]) == (4 if arg == 4 else 2)
    assert [w["word"] for w in out["added_words"]] == ["abideth", "ancient"]
    with pytest.raises(ValueError, match="--add-words 0: must be at least 1"):
        lmbias.train_mlm(CORPUS, tmp_path / "zero", from_=str(TINY_MLM), add_words=0)
    with pytest.raises(ValueError, match="not a bool"):
        lmbias.train_mlm(CORPUS, tmp_path / "bool", from_=str(TINY_MLM), add_words=True)
