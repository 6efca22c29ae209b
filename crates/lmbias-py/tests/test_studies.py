"""lmbias.seat / valence / probe return the rows `lmbias seat|valence|probe --json` print
(the same study code on the same model), as plain dicts."""

import json
import warnings

import pandas

import lmbias
from conftest import REPO, TINY_MLM

SEAT = REPO / "datasets" / "seat" / "en"
TESTS = [SEAT / "weat1.jsonl", SEAT / "sent-weat6.jsonl"]
PROBE = REPO / "datasets" / "probe"
VALENCE = REPO / "datasets" / "valence" / "eme-me-60.json"


def test_seat_rows_equal_cli(minilm, cli_json):
    rows = lmbias.seat(lmbias.Model(minilm), TESTS, n_samples=1000, seed=3)
    out = cli_json("seat", "--model", minilm, "--test", *TESTS, "--n-samples", 1000, "--seed", 3, "--json")
    assert rows == out["rows"] and out["refused"] == []
    assert [r["test"] for r in rows] == ["weat1", "sent-weat6"]
    assert list(rows[0])[:2] == ["model", "test"]


def test_seat_battery_dir_pooling_and_several_models(cli_json, minilm, tmp_path):
    # A battery folder with a lower-cased copy of one test beside it, as datasets/seat/tr has.
    battery, uncased = tmp_path / "battery", tmp_path / "battery-uncased"
    battery.mkdir()
    uncased.mkdir()
    for test in TESTS:
        (battery / test.name).write_text(test.read_text())
    (uncased / TESTS[1].name).write_text(TESTS[1].read_text().lower())
    tiny, mini = lmbias.Model(TINY_MLM), lmbias.Model(minilm)
    rows = lmbias.seat([tiny, mini], battery, pooling="mean", layer=1, n_samples=1000)
    out = cli_json("seat", "--model", TINY_MLM, minilm, "--test", battery, "--pooling", "mean", "--layer", 1,
                   "--n-samples", 1000, "--json")
    assert rows == out["rows"]
    # The files given, on every model: no copy unless asked for.
    assert [(r["model"], r["test"]) for r in rows] == [(str(m), t) for m in (TINY_MLM, minilm) for t in ("sent-weat6", "weat1")]
    assert not any(r["lowercased_copy"] for r in rows)
    # Asked, each model (both lower-case) also runs the one copy, after its own rows; the CLI agrees.
    both = lmbias.seat([tiny, mini], battery, pooling="mean", layer=1, n_samples=1000, also_lowercased_copy=True)
    out = cli_json("seat", "--model", TINY_MLM, minilm, "--test", battery, "--pooling", "mean", "--layer", 1,
                   "--n-samples", 1000, "--also-lowercased-copy", "--json")
    assert both == out["rows"]
    assert [(r["model"], r["test"], r["lowercased_copy"]) for r in both] == [
        (str(m), t, copy) for m in (TINY_MLM, minilm)
        for t, copy in (("sent-weat6", False), ("weat1", False), ("sent-weat6", True))]
    assert [r for r in both if not r["lowercased_copy"]] == rows


def test_seat_takes_load_test_dicts(minilm):
    model = lmbias.Model(minilm)
    from_dicts = lmbias.seat(model, [lmbias.load_test(t) for t in TESTS], n_samples=1000)
    from_files = lmbias.seat(model, TESTS, n_samples=1000)
    assert from_dicts == from_files


def test_seat_static_vectors_warn_as_cli_does(cli):
    glove = lmbias.Model("glove-6b-50d")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = lmbias.seat(glove, [SEAT / "weat1.jsonl", SEAT / "weat2.jsonl"])
    code, out, err = cli("seat", "--model", "glove-6b-50d", "--test", SEAT / "weat1.jsonl", SEAT / "weat2.jsonl", "--json")
    assert code == 0, err
    assert rows == json.loads(out)["rows"]
    cli_warnings = [line[len("warning: "):] for line in err.splitlines() if line.startswith("warning: ")]
    assert cli_warnings and [str(w.message) for w in caught] == cli_warnings


def test_valence_rows_equal_cli(cli_json):
    rows = lmbias.valence(lmbias.Model(TINY_MLM), VALENCE, top_k=5)
    (out,) = cli_json("valence", "--model", TINY_MLM, "--dataset", VALENCE, "--top-k", 5, "--json")
    assert len(rows) == len(out["sentences"]) == 60
    for row, sentence in zip(rows, out["sentences"]):
        assert row == {"model": out["model"], "dataset": out["dataset"], "top_k": 5, **sentence}


def test_probe_sweep_equals_cli(cli_json):
    model = lmbias.Model(TINY_MLM)
    args = dict(protected=PROBE / "religion.csv", stereotyped=PROBE / "adjectives.csv")
    rows = lmbias.probe(model, templates=PROBE / "templates.txt", **args)
    out = cli_json("probe", "--model", TINY_MLM, "--templates", PROBE / "templates.txt",
                   "--protected", args["protected"], "--stereotyped", args["stereotyped"], "--json")
    assert [{k: v for k, v in r.items() if k != "model"} for r in rows] == out["sweep"]
    assert [r["n"] for r in rows] == list(range(2, 33))
    (one,) = lmbias.probe(model, templates=PROBE / "templates.txt", n=5, layer=1, **args)
    out = cli_json("probe", "--model", TINY_MLM, "--templates", PROBE / "templates.txt", "--n", 5, "--layer", 1,
                   "--protected", args["protected"], "--stereotyped", args["stereotyped"], "--json")
    assert {k: v for k, v in one.items() if k != "model"} == out["sweep"][0]


def test_rows_make_a_dataframe(minilm):
    rows = lmbias.seat(lmbias.Model(minilm), TESTS, n_samples=1000)
    frame = pandas.DataFrame(rows)
    assert list(frame["test"]) == ["weat1", "sent-weat6"]
    assert frame["effect_size"].dtype == float


def test_seat_on_static_vectors_reports_the_pooling_applied(cli_json):
    # Static vectors average a text's words whatever pooling is asked: rows say "mean", as the CLI's.
    glove = lmbias.Model("glove-6b-50d")
    test = SEAT / "weat6.jsonl"
    rows = lmbias.seat(glove, test, pooling="cls")
    out = cli_json("seat", "--model", "glove-6b-50d", "--test", test, "--pooling", "cls", "--json")
    assert rows == out["rows"] and [r["pooling"] for r in rows] == ["mean"]
    assert rows == lmbias.seat(glove, test, pooling="mean")
