"""The probe on GloVe through the CLI, Python and xtask gives one result (issue #20: the three
front-ends call one probe run in lmbias-runs, where xtask once embedded GloVe's words in
templates while the CLI and Python used each word's own vector)."""

import json
import os
import subprocess
from pathlib import Path

import lmbias
from conftest import REPO, probe_rows

PROBE = REPO / "datasets" / "probe"
PROTECTED, STEREOTYPED = PROBE / "religion.csv", PROBE / "adjectives.csv"
# The pair's name in xtask's runs (lmbias_papers::dusi::PAIRS), and the CLI's and
# Python's from the lists' file stems.
PAIR = "religion × adjectives"


def xtask_probe(out):
    """`cargo xtask reproduce-paper` on GloVe, the probe only: its run of the pair, how the
    words became vectors, and the run's provenance (results.json is `lmbias probe --json`'s
    shape, one entry per pair)."""
    # The binary `cargo test --workspace` built (as .ci/run does first): `cargo xtask` alone would
    # resolve xtask's features by themselves and rebuild Burn for minutes.
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    built = Path(os.environ.get("LMBIAS_XTASK", target / "debug" / "xtask"))
    command = [str(built)] if built.is_file() else ["cargo", "xtask"]
    done = subprocess.run(
        [*command, "reproduce-paper", "--models", "glove-6b-50d", "--study", "probe", "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "probe" / "results.json").read_text())
    (i,) = [i for i, r in enumerate(results["runs"]) if r["model"] == "glove-6b-50d" and r["pair"] == PAIR]
    return results["runs"][i], results["words"][i], results["provenance"][i]


def test_probe_on_glove_is_one_result_through_cli_python_and_xtask(cli_json, tmp_path):
    out = cli_json("probe", "--model", "glove-6b-50d", "--protected", PROTECTED, "--stereotyped", STEREOTYPED,
                   "--json")
    (cli,) = out["runs"]
    assert out["words"] == ["own-vectors"] and cli["pair"] == PAIR
    rows, (provenance,) = lmbias.probe(lmbias.Model("glove-6b-50d"), PROTECTED, STEREOTYPED, provenance=True)
    xtask, xtask_words, xtask_provenance = xtask_probe(tmp_path)
    assert xtask_words == "own-vectors", "xtask does not give GloVe's words their own vectors"

    # One model and the same lists (xtask names its files by its own path to datasets/).
    assert provenance == out["provenance"][0]
    assert xtask_provenance["model"] == provenance["model"]
    assert [i["sha256"] for i in xtask_provenance["inputs"]] == [i["sha256"] for i in provenance["inputs"]]

    # One relevance order: the CLI's and xtask's, and the dimensions of Python's widest size.
    order = cli["relevance_order"]
    assert sorted(order) == list(range(50))
    assert xtask["relevance_order"] == order, "xtask ranks GloVe's dimensions otherwise"
    assert rows[-1]["n"] == 50 and rows[-1]["dims"] == order

    # For every n, one table and one p (JSON's shortest round-trip floats: exactly equal).
    def tables(steps):
        return [(s["n"], s["table"], s["p_value"]) for s in steps]

    assert [s["n"] for s in cli["sweep"]] == list(range(2, 51))
    assert tables(xtask["sweep"]) == tables(cli["sweep"]), "xtask's tables or p differ from the CLI's"
    assert tables(rows) == tables(cli["sweep"])
    # Python's rows are the CLI's run, row by row.
    assert rows == probe_rows(cli)
