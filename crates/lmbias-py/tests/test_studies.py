"""lmbias.seat / valence / probe return the rows `lmbias seat|valence|probe --json` print
(the same runs of lmbias-runs on the same model), as plain dicts, and with provenance=True
the same provenance."""

import json
import tomllib
import warnings

import pandas
import pytest

import lmbias
from conftest import REPO, TINY_MLM, probe_rows, sha256_file, sha256_folder

SEAT = REPO / "datasets" / "seat" / "en"
TESTS = [SEAT / "weat1.jsonl", SEAT / "sent-weat6.jsonl"]
PROBE = REPO / "datasets" / "probe"
VALENCE = REPO / "datasets" / "valence" / "eme-me-60.json"


def test_seat_rows_equal_cli(minilm, cli_json):
    rows, provenance = lmbias.seat(lmbias.Model(minilm), TESTS, n_samples=1000, seed=3, provenance=True)
    out = cli_json("seat", "--model", minilm, "--test", *TESTS, "--n-samples", 1000, "--seed", 3, "--json")
    assert rows == out["rows"] and out["refused"] == []
    assert provenance == out["provenance"]
    assert rows == lmbias.seat(lmbias.Model(minilm), TESTS, n_samples=1000, seed=3)
    assert [r["test"] for r in rows] == ["weat1", "sent-weat6"]
    assert list(rows[0])[:2] == ["model", "test"]


def test_a_label_names_the_model_in_rows_and_provenance(minilm, cli_json):
    rows, provenance = lmbias.seat(lmbias.Model(minilm, label="MiniLM"), TESTS, n_samples=1000, provenance=True)
    assert {r["model"] for r in rows} == {"MiniLM"}
    assert provenance[0]["model"]["label"] == "MiniLM" and provenance[0]["model"]["id"] == str(minilm)
    out = cli_json("seat", "--model", minilm, "--label", "MiniLM", "--test", *TESTS, "--n-samples", 1000, "--json")
    assert rows == out["rows"]


def test_seat_two_sided_and_ddof_equal_cli(minilm, cli_json):
    rows = lmbias.seat(lmbias.Model(minilm), TESTS, n_samples=1000, seed=3, ddof=0, alternative="two-sided")
    out = cli_json("seat", "--model", minilm, "--test", *TESTS, "--n-samples", 1000, "--seed", 3,
                   "--ddof", 0, "--two-sided", "--json")
    assert rows == out["rows"]
    assert {(r["alternative"], r["std"]) for r in rows} == {("two-sided", "population")}
    with pytest.raises(ValueError, match="ddof 2"):
        lmbias.seat(lmbias.Model(minilm), TESTS, ddof=2)


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
    rows, provenance = lmbias.valence(lmbias.Model(TINY_MLM), VALENCE, top_k=5, provenance=True)
    out = cli_json("valence", "--model", TINY_MLM, "--dataset", VALENCE, "--top-k", 5, "--json")
    (result,) = out["results"]
    assert len(rows) == len(result["sentences"]) == 60
    for row, sentence in zip(rows, result["sentences"]):
        assert row == {"model": result["model"], "dataset": result["dataset"], "top_k": 5, **sentence}
    assert provenance == out["provenance"]


def test_valence_guard_equals_cli_and_leaves_out_mostly_unrated_sentences(cli_json):
    tiny = REPO / "tests" / "fixtures" / "valence" / "tiny-bert-mlm.json"
    rows = lmbias.valence(lmbias.Model(TINY_MLM), tiny)
    out = cli_json("valence", "--model", TINY_MLM, "--dataset", tiny, "--json")
    assert [r["bias"] for r in rows] == [s["bias"] for s in out["results"][0]["sentences"]]
    left_out = [r["id"] for r in rows if r["bias"] is None]
    assert left_out == [r["id"] for r in rows if r["unannotated_share"] > 0.5] != []
    everything = lmbias.valence(lmbias.Model(TINY_MLM), tiny, max_unannotated_share=1)
    assert all(r["bias"] is not None for r in everything)
    with pytest.raises(ValueError, match="max_unannotated_share 2"):
        lmbias.valence(lmbias.Model(TINY_MLM), tiny, max_unannotated_share=2)


def test_valence_from_two_corpora_equals_cli(cli_json, tmp_path):
    eme, me = tmp_path / "eme.txt", tmp_path / "me.txt"
    eme.write_text("thou art fair and thou art kind\n" * 30)
    me.write_text("you are fair and you are kind\n" * 30)
    model = lmbias.Model(TINY_MLM)
    rows, provenance = lmbias.valence(model, VALENCE, valence_from=(eme, me), provenance=True)
    out = cli_json("valence", "--model", TINY_MLM, "--dataset", VALENCE, "--valence-from", eme, me, "--json")
    (result,) = out["results"]
    assert [{k: v for k, v in r.items() if k not in ("model", "dataset", "top_k")} for r in rows] == result["sentences"]
    assert provenance == out["provenance"]
    assert all(r["unannotated_mass"] == 0.0 for r in rows)
    assert {t["annotation"] for r in rows for t in r["tokens"]} <= {"sentence", "lexicon", "corpus"}
    with pytest.raises(ValueError, match="given as both the Early Modern and the Modern corpus"):
        lmbias.valence(model, VALENCE, valence_from=(eme, eme))
    copy = tmp_path / "copy.txt"
    copy.write_text(eme.read_text())
    with pytest.raises(ValueError, match="the same text"):
        lmbias.valence(model, VALENCE, valence_from=(eme, copy))
    with pytest.raises(ValueError, match="thresholds 3 and 2 must satisfy 0 < first ≤ second"):
        lmbias.valence(model, VALENCE, valence_from=(eme, me), valence_thresholds=(3, 2))
    strict = lmbias.valence(model, VALENCE, valence_from=(eme, me), valence_thresholds=(1000, 2000),
                            valence_alpha0=50.0, valence_min_context=2)
    out = cli_json("valence", "--model", TINY_MLM, "--dataset", VALENCE, "--valence-from", eme, me,
                   "--valence-thresholds", 1000, 2000, "--valence-alpha0", 50, "--valence-min-context", 2, "--json")
    assert [{k: v for k, v in r.items() if k not in ("model", "dataset", "top_k")} for r in strict] == out["results"][0]["sentences"]


def test_valence_by_a_lexicon_equals_cli(cli_json, tmp_path):
    lexicon = tmp_path / "lexicon.tsv"
    lexicon.write_text("thou\t-1\tonly Early Modern\nyou\t1\tsay\n")
    model = lmbias.Model(TINY_MLM)
    rows, provenance = lmbias.valence(model, VALENCE, lexicon=lexicon, provenance=True)
    out = cli_json("valence", "--model", TINY_MLM, "--dataset", VALENCE, "--lexicon", lexicon, "--json")
    assert [{k: v for k, v in r.items() if k not in ("model", "dataset", "top_k")} for r in rows] == out["results"][0]["sentences"]
    assert provenance == out["provenance"]
    assert {t["annotation"] for r in rows for t in r["tokens"]} == {"lexicon"}
    lexicon.write_text("thou\t2\tr\n")
    with pytest.raises(ValueError, match=r"lexicon.tsv:1: valence \"2\" of \"thou\" is not on the scale"):
        lmbias.valence(model, VALENCE, lexicon=lexicon)
    with pytest.raises(ValueError, match="a lexicon rates every proposal"):
        lmbias.valence(model, VALENCE, lexicon=lexicon, valence_from=(lexicon, lexicon))


def test_probe_sweep_equals_cli(cli_json):
    model = lmbias.Model(TINY_MLM)
    args = dict(protected=PROBE / "religion.csv", stereotyped=PROBE / "adjectives.csv")
    rows, provenance = lmbias.probe(model, templates=PROBE / "templates.txt", provenance=True, **args)
    out = cli_json("probe", "--model", TINY_MLM, "--templates", PROBE / "templates.txt",
                   "--protected", args["protected"], "--stereotyped", args["stereotyped"], "--json")
    (run,) = out["runs"]
    assert rows == probe_rows(run) and provenance == out["provenance"] and out["words"] == ["templates"]
    assert [r["n"] for r in rows] == list(range(2, 33))
    assert list(rows[0])[:3] == ["model", "pair", "n"] and rows[0]["pair"] == "religion × adjectives"
    (one,) = lmbias.probe(model, templates=PROBE / "templates.txt", n=5, layer=1, **args)
    out = cli_json("probe", "--model", TINY_MLM, "--templates", PROBE / "templates.txt", "--n", 5, "--layer", 1,
                   "--protected", args["protected"], "--stereotyped", args["stereotyped"], "--json")
    assert [one] == probe_rows(out["runs"][0])


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


def test_seat_metrics_equal_cli_and_unknown_ones_are_value_errors(cli_json):
    # Issue #50: WEFE's metrics beside WEAT, the CLI's --metric and --rnsb-holdout.
    glove = lmbias.Model("glove-6b-50d")
    test = SEAT / "weat6.jsonl"
    rows = lmbias.seat(glove, test, n_samples=1000, metrics=["rnd", "rnsb"], rnsb_holdout=True)
    out = cli_json("seat", "--model", "glove-6b-50d", "--test", test, "--n-samples", "1000",
                   "--metric", "rnd,rnsb", "--rnsb-holdout", "--json")
    assert rows == out["rows"]
    assert [(v["metric"], v.get("attribute")) for v in rows[0]["wefe"]] == [
        ("rnd", "attr1"), ("rnd", "attr2"), ("rnsb", None)]
    # 8 + 8 attribute words, ⌈20 %⌉ of each held out: 4 scored.
    assert rows[0]["wefe"][2]["accuracy"] in (0.0, 0.25, 0.5, 0.75, 1.0)
    with pytest.raises(ValueError, match='metrics: unknown metric "weat": expected rnd, rnsb, mac, ect, ripa or all'):
        lmbias.seat(glove, test, metrics=["weat"])


def workspace_version():
    return tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def test_provenance_names_the_model_the_dataset_and_lmbias():
    model = lmbias.Model(TINY_MLM)
    rows, provenance = lmbias.valence(model, VALENCE, top_k=5, provenance=True)
    assert rows == lmbias.valence(model, VALENCE, top_k=5)
    (one,) = provenance
    assert list(one) == ["lmbias", "model", "inputs", "options"]
    assert one["lmbias"] == lmbias.__version__ == workspace_version()
    assert one["inputs"] == [{"file": str(VALENCE), "sha256": sha256_file(VALENCE)}]
    assert one["options"] == {"top_k": "5", "max_unannotated_share": "0.5"}
    # A fixture folder is pinned by the digest of its files, its tokenizer by its own.
    assert one["model"] == model.provenance == {
        "id": str(TINY_MLM),
        "origin": {"from": "folder", "sha256": sha256_folder(TINY_MLM)},
        "tokenizer_sha256": sha256_file(TINY_MLM / "tokenizer.json"),
    }


def test_seat_provenance_is_one_per_model_with_its_options():
    tiny, glove = lmbias.Model(TINY_MLM), lmbias.Model("glove-6b-50d")
    # A dict has no file: only the file's test is an input.
    tests = [lmbias.load_test(TESTS[0]), TESTS[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows, provenance = lmbias.seat([tiny, glove], tests, n_samples=1000, seed=7, provenance=True)
    assert [p["model"] for p in provenance] == [tiny.provenance, glove.provenance]
    assert {r["model"] for r in rows} == {str(TINY_MLM), "glove-6b-50d"}
    for p in provenance:
        assert p["lmbias"] == lmbias.__version__
        assert p["inputs"] == [{"file": str(TESTS[1]), "sha256": sha256_file(TESTS[1])}]
        assert {k: p["options"][k] for k in ("n_samples", "seed", "layer", "lowercased_copies")} == {
            "n_samples": "1000", "seed": "7", "layer": "last", "lowercased_copies": "false"}
    # What the model decided: its own pooling, and whether it drops examples without a vector.
    assert [(p["options"]["pooling"], p["options"]["lost_examples"]) for p in provenance] == [
        ("cls", "kept"), ("mean", "dropped")]


def test_probe_provenance_on_static_vectors_has_no_templates():
    glove = lmbias.Model("glove-6b-50d")
    protected, stereotyped = PROBE / "religion.csv", PROBE / "adjectives.csv"
    rows, (provenance,) = lmbias.probe(glove, protected, stereotyped, templates=PROBE / "templates.txt", n=3,
                                       provenance=True)
    assert [r["n"] for r in rows] == [3] and rows[0]["pair"] == "religion × adjectives"
    assert provenance["model"] == glove.provenance
    assert provenance["inputs"] == [{"file": str(p), "sha256": sha256_file(p)} for p in (protected, stereotyped)]
    assert provenance["options"]["n"] == "3" and "layer" not in provenance["options"]
    assert "templates are not used" in provenance["options"]["words"]
