"""Every error is a Python exception of the right kind carrying the CLI's one-line message."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import lmbias
from conftest import FIXTURES, REPO, TINY_MLM

REF = FIXTURES / "sent-bias-ref"
VECTORS = [np.eye(4)[:2], np.eye(4)[2:], np.eye(4)[:2], np.eye(4)[2:]]


def test_missing_test_file_is_file_not_found_with_cli_message(tmp_path, cli_error):
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(FileNotFoundError) as raised:
        lmbias.load_test(missing)
    assert str(raised.value) == cli_error("weat", "--embeddings", REF / "exact_n4.emb.json", "--test", missing)


def test_missing_model_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found: it is neither a folder nor in the Hugging Face cache"):
        lmbias.Model("no-such-org/no-such-model")
    with pytest.raises(FileNotFoundError, match=r"^\./models/my-bert: no such folder"):
        lmbias.Model("./models/my-bert")


def test_missing_vectors_file_is_file_not_found(tmp_path, cli_error):
    missing = tmp_path / "vectors.vec"
    with pytest.raises(FileNotFoundError) as raised:
        lmbias.Model(missing)
    # The CLI names the flag, and the path once: the error names it already.
    assert f"--model: {raised.value}" == cli_error("embed", "--model", missing, "x")


def test_missing_dataset_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.json: cannot read"):
        lmbias.valence(lmbias.Model(TINY_MLM), tmp_path / "missing.json")


def test_bad_test_files_are_value_errors_with_cli_message(tmp_path, cli_error):
    unequal = {"targ1": {"category": "X", "examples": ["a", "b"]}, "targ2": {"category": "Y", "examples": ["c"]},
               "attr1": {"category": "A", "examples": ["d"]}, "attr2": {"category": "B", "examples": ["e"]}}
    duplicate = dict(unequal, targ2={"category": "Y", "examples": ["c", "c"]})
    for name, content in [("unequal", json.dumps(unequal)), ("duplicate", json.dumps(duplicate)),
                          ("typo", json.dumps(dict(unequal, targ3=unequal["targ1"]))), ("empty", " \n")]:
        path = tmp_path / f"{name}.jsonl"
        path.write_text(content)
        with pytest.raises(ValueError) as raised:
            lmbias.load_test(path)
        assert str(raised.value) == cli_error("weat", "--embeddings", REF / "exact_n4.emb.json", "--test", path), name
    assert lmbias.load_test(tmp_path / "unequal.jsonl", allow_unequal_sizes=True)["targ2"]["examples"] == ["c"]
    assert lmbias.load_test(tmp_path / "duplicate.jsonl", merge_duplicates=True, allow_unequal_sizes=True)["targ2"]["examples"] == ["c"]


def test_weat_input_errors_are_value_errors():
    with pytest.raises(ValueError, match=r"^X has 2 items and Y has 1: sent-bias requires equal sizes"):
        lmbias.weat(VECTORS[0], VECTORS[1][:1], VECTORS[2], VECTORS[3])
    assert lmbias.weat(VECTORS[0], VECTORS[1][:1], VECTORS[2], VECTORS[3], allow_unequal_sizes=True).n_partitions == 3
    with pytest.raises(ValueError, match=r"^Y must be 2-D \(one row per word or sentence\), got shape \(4,\)$"):
        lmbias.weat(VECTORS[0], np.ones(4), VECTORS[2], VECTORS[3])
    with pytest.raises(ValueError, match=r"^set A \(attr1\), item 1: zero vector"):
        lmbias.weat(VECTORS[0], VECTORS[1], np.array([[1.0, 0, 0, 0], [0, 0, 0, 0]]), VECTORS[3])
    with pytest.raises(ValueError, match=r"^set B \(attr2\), item 0: dimension 3, expected 4$"):
        lmbias.weat(VECTORS[0], VECTORS[1], VECTORS[2], np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"non-finite"):
        lmbias.weat(VECTORS[0], VECTORS[1], VECTORS[2], np.full((2, 4), np.nan))
    with pytest.raises(ValueError, match=r"^set X \(targ1\) is empty$"):
        lmbias.weat(np.ones((0, 4)), VECTORS[1], VECTORS[2], VECTORS[3])
    with pytest.raises(ValueError, match=r'^alternative "less" is not supported: expected "greater"'):
        lmbias.weat(*VECTORS, alternative="less")
    with pytest.raises(ValueError, match=r"^ddof 2: expected 1"):
        lmbias.weat(*VECTORS, ddof=2)
    with pytest.raises(ValueError, match=r"^n_samples must be at least 1$"):
        lmbias.weat(*VECTORS, n_samples=0)
    with pytest.raises(ValueError):
        lmbias.weat([[1.0, 2.0], [3.0]], *VECTORS[1:])  # ragged: numpy's own ValueError


def test_model_input_errors_are_value_errors(cli_error):
    model = lmbias.Model(TINY_MLM)
    with pytest.raises(ValueError) as raised:
        model.fill_mask(["Thou art [MASK].", "Thou art more lovely."])
    assert str(raised.value) == cli_error("fill-mask", "--model", TINY_MLM, "Thou art [MASK].", "Thou art more lovely.")
    with pytest.raises(ValueError, match=r'^unknown pooling "max": expected cls, mean or first$'):
        model.embed(["x"], pooling="max")
    with pytest.raises(ValueError, match=r"^layer 9 does not exist: the model has layers 0..=2$"):
        model.embed(["x"], layer=9)
    with pytest.raises(ValueError, match=r"^layer -4 does not exist: the model has layers 0..=2 \(or -3..=-1\)$"):
        model.embed(["x"], layer=-4)
    with pytest.raises(ValueError, match=r'^expected `last` or a layer number, got "first"$'):
        model.embed(["x"], layer="first")
    with pytest.raises(ValueError, match=r'^unknown device "tpu": expected cpu or wgpu$'):
        lmbias.Model(TINY_MLM, device="tpu")
    with pytest.raises(ValueError, match=r'^unknown precision "fp16": expected f32 or bf16$'):
        lmbias.Model(TINY_MLM, precision="fp16")
    with pytest.raises(ValueError, match=r"^precision bf16 is not available on wgpu: lmbias's bf16 kernel runs on the CPU$"):
        lmbias.Model(TINY_MLM, device="wgpu", precision="bf16")
    with pytest.raises(ValueError, match=r"static word vectors cannot fill a mask"):
        lmbias.Model("glove-6b-50d").fill_mask(["the [MASK]"])
    with pytest.raises(ValueError, match=r"has no masked-language-modelling head"):
        lmbias.Model(FIXTURES / "models" / "tiny-bert-nohead").fill_mask(["the [MASK]"])
    with pytest.raises(TypeError, match="texts must be a str or an iterable of str"):
        model.embed([1, 2])


def test_study_input_errors_are_value_errors():
    model = lmbias.Model(TINY_MLM)
    probe = REPO / "datasets" / "probe"
    with pytest.raises(ValueError, match=r"needs templates to embed the words in \(only static word vectors do not\)$"):
        lmbias.probe(model, probe / "religion.csv", probe / "adjectives.csv")
    with pytest.raises(ValueError, match=r"^n 33: must be between 1 and the hidden size 32$"):
        lmbias.probe(model, probe / "religion.csv", probe / "adjectives.csv", templates=probe / "templates.txt", n=33)
    with pytest.raises(ValueError, match=r"^top_k must be at least 1$"):
        lmbias.valence(model, REPO / "datasets" / "valence" / "eme-me-60.json", top_k=0)
    seat = REPO / "datasets" / "seat" / "en" / "weat1.jsonl"
    with pytest.raises(ValueError, match=r"test weat1 is already loaded from"):
        lmbias.seat(model, [seat, seat])
    with pytest.raises(TypeError, match="model must be an lmbias.Model"):
        lmbias.seat("bert-base-uncased", seat)


def test_unloadable_checkpoint_is_runtime_error(tmp_path, cli_error):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}))
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(RuntimeError) as raised:
        lmbias.Model(tmp_path)
    # The CLI names the flag alone: the error names the folder already.
    assert f"--model: {raised.value}" == cli_error("embed", "--model", tmp_path, "x")


def test_a_model_path_that_is_a_file_says_so(cli_error):
    with pytest.raises(NotADirectoryError) as raised:
        lmbias.Model("/dev/null")
    assert str(raised.value).startswith("/dev/null is not a model: a checkpoint is a folder (config.json")
    assert f"--model: {raised.value}" == cli_error("embed", "--model", "/dev/null", "x")


def test_an_empty_model_folder_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"config.json: cannot read: No such file or directory"):
        lmbias.Model(tmp_path)


def checkpoint_copy(parent: Path) -> Path:
    """A writable copy of the tiny BERT checkpoint, in a folder any user may enter."""
    folder = parent / "tiny-bert-mlm"
    shutil.copytree(TINY_MLM, folder)
    for path in [parent.parent, parent, folder]:
        path.chmod(0o755)
    return folder


def open_and_embed(folder: Path) -> None:
    """Opens the checkpoint and embeds with it, so that its weights are read."""
    lmbias.Model(folder).embed(["x"])


def raised(fn, *args) -> tuple:
    """The class name and message of what ``fn(*args)`` raises, ("", "") if nothing. As root
    (who may read any file), in a forked child that gave its rights up for nobody's."""
    def run():
        try:
            fn(*args)
        except Exception as error:  # noqa: BLE001 - the class is what the caller checks
            return type(error).__name__, str(error)
        return "", ""

    if os.geteuid() != 0:
        return run()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            os.setgid(65534)
            os.setuid(65534)
            name, message = run()
            os.write(write, f"{name}\n{message}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        out = pipe.read().decode()
    os.waitpid(pid, 0)
    name, _, message = out.partition("\n")
    return name, message


def test_a_checkpoint_lacking_a_file_is_file_not_found(tmp_path):
    folder = checkpoint_copy(tmp_path)
    (folder / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match=r"tiny-bert-mlm: no model.safetensors or pytorch_model.bin$"):
        open_and_embed(folder)
    (folder / "config.json").unlink()
    with pytest.raises(FileNotFoundError) as error:
        open_and_embed(folder)
    assert str(error.value).startswith(f"{folder / 'config.json'}: cannot read: No such file or directory")


def test_a_directory_where_a_checkpoint_file_belongs_is_is_a_directory_error(tmp_path):
    folder = checkpoint_copy(tmp_path)
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors").mkdir()
    with pytest.raises(IsADirectoryError, match=r"model.safetensors: cannot read: is a directory$"):
        open_and_embed(folder)
    (folder / "config.json").unlink()
    (folder / "config.json").mkdir()
    with pytest.raises(IsADirectoryError, match=r"config.json: cannot read: Is a directory"):
        open_and_embed(folder)


def test_an_unreadable_checkpoint_file_is_permission_error():
    # Outside pytest's tmp_path, whose parents only root may enter.
    with tempfile.TemporaryDirectory() as scratch:
        for name in ["model.safetensors", "config.json"]:
            folder = checkpoint_copy(Path(scratch) / name)
            (folder / name).chmod(0)
            kind, message = raised(open_and_embed, folder)
            assert kind == "PermissionError", (name, kind, message)
            assert message.startswith(f"{folder / name}: ") and message.endswith(
                "Permission denied (os error 13)"), message
        # The check can fail: the same call on a readable copy raises nothing.
        assert raised(open_and_embed, checkpoint_copy(Path(scratch) / "readable")) == ("", "")


def test_negative_counts_and_seeds_are_value_errors():
    for keyword in ["n_samples", "seed"]:
        with pytest.raises(ValueError, match=rf"^{keyword} must be between 0 and 2\*\*64 - 1, got -1$"):
            lmbias.weat(*VECTORS, **{keyword: -1})
        with pytest.raises(ValueError, match=rf"^{keyword} must be between 0 and 2\*\*64 - 1, got -5$"):
            lmbias.seat(lmbias.Model(TINY_MLM), REPO / "datasets" / "seat" / "en" / "weat1.jsonl", **{keyword: -5})
    with pytest.raises(ValueError, match=r"^n_samples must be between 0 and 2\*\*64 - 1, got 18446744073709551616$"):
        lmbias.weat(*VECTORS, n_samples=2**64)
    with pytest.raises(ValueError, match=r"^top_k must be between 0 and 2\*\*64 - 1, got -1$"):
        lmbias.Model(TINY_MLM).fill_mask(["the [MASK]"], top_k=-1)
    with pytest.raises(ValueError, match=r"^ddof -1: expected 1"):
        lmbias.weat(*VECTORS, ddof=-1)
    # The largest seed is a seed.
    assert lmbias.weat(*VECTORS, seed=2**64 - 1, n_samples=2).seed == 2**64 - 1
