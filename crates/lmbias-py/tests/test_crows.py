"""`lmbias.crows` (issue #37): the CLI's JSON on every masked-LM family; and, on a real
30,522-piece BERT (all-MiniLM-L6-v2 given an MLM head by two steps of train-mlm), every pair's
raw scores within 1e-4 of transformers' and the same decisions except on near-ties, on 60
pairs of CrowS-Pairs scored by tests/fixtures/generate/crows_reference.py's procedures
(metric.py's, bias-bench's crows.py's, Kaneko & Bollegala's).

transformers and torch come from CI's venv (.ci/run installs them).
"""

import csv
import importlib.util
import sys

import pytest

import lmbias
from conftest import FIXTURES, REPO

SAMPLE = FIXTURES / "crows" / "short-pairs.csv"
CROWS = REPO / "datasets" / "crows-pairs" / "crows_pairs_anonymized.csv"
MLM_FAMILIES = [
    "tiny-bert-mlm", "tiny-roberta-mlm", "tiny-xlmr-mlm", "tiny-camembert-mlm", "tiny-distilbert-mlm",
    "tiny-electra-generator", "tiny-albert-mlm", "tiny-albert-groups", "tiny-modernbert-mlm",
    "tiny-deberta-v3-mlm", "tiny-deberta-v2-conv",
]
CORPUS = FIXTURES / "generate" / "corpus.txt"


@pytest.mark.parametrize("folder", MLM_FAMILIES)
def test_crows_equals_the_cli_on_every_family(folder, cli_json):
    path = FIXTURES / "models" / folder
    got = lmbias.crows(lmbias.Model(path), SAMPLE)
    assert got == cli_json("crows", "--model", path, "--pairs", SAMPLE, "--json")
    assert len(got["results"][0]["pairs"]) == 34


def test_group_terms_and_exclusion_equal_the_cli(tmp_path, cli_json):
    path = FIXTURES / "models" / "tiny-bert-mlm"
    terms = REPO / "datasets" / "group-terms" / "en.csv"
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(",sent_more,sent_less,stereo_antistereo,bias_type\n"
                     "0,the man ran home,the woman ran home,stereo,gender\n"
                     "1,the poor man ran home,the white man ran home,stereo,socioeconomic\n")
    got = lmbias.crows(lmbias.Model(path), pairs, group_terms=terms, exclude_flagged=True)
    assert got == cli_json("crows", "--model", path, "--pairs", pairs, "--group-terms", terms,
                           "--exclude-flagged", "--json")
    checks = got["results"][0]["data_checks"]
    assert checks["group_terms"]["other_group"] == ["1"]
    assert checks["excluded"] == ["1"]
    assert [p["id"] for p in got["results"][0]["pairs"]] == ["0"]
    bad = tmp_path / "terms.csv"
    bad.write_text("bias_type,term\ngender,Men\n")
    with pytest.raises(ValueError, match=r"terms.csv:2: term"):
        lmbias.crows(lmbias.Model(path), pairs, group_terms=bad)


def test_measures_equal_the_cli(cli_json):
    path = FIXTURES / "models" / "tiny-bert-mlm"
    got = lmbias.crows(lmbias.Model(path), SAMPLE, measures=["crra", "sss_mlm_bias"])
    assert got == cli_json("crows", "--model", path, "--pairs", SAMPLE, "--measures",
                           "crra,sss_mlm_bias", "--json")
    assert [s["measure"] for s in got["results"][0]["summary"]][4:] == ["crra", "sss_mlm_bias"]
    with pytest.raises(ValueError, match='measures: unknown measure "ppl"'):
        lmbias.crows(lmbias.Model(path), SAMPLE, measures=["ppl"])


def test_relative_equals_the_cli(cli_json):
    base, other = (FIXTURES / "models" / f for f in ("tiny-bert-mlm", "tiny-distilbert-mlm"))
    got = lmbias.crows([lmbias.Model(base), lmbias.Model(other)], SAMPLE, relative=True)
    assert got == cli_json("crows", "--relative", base, other, "--pairs", SAMPLE, "--json")
    assert [m["measure"] for m in got["relative"]["measures"]] == ["pll", "bias_bench", "aul", "aula"]
    with pytest.raises(ValueError, match="relative=True takes two models"):
        lmbias.crows(lmbias.Model(base), SAMPLE, relative=True)
    roberta = lmbias.Model(FIXTURES / "models" / "tiny-roberta-mlm")
    with pytest.raises(ValueError, match="relative: the two models read line 2 as different pieces"):
        lmbias.crows([lmbias.Model(base), roberta], SAMPLE, relative=True)


def test_bad_pairs_and_a_model_without_a_head_are_value_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(",sent_more,sent_less,stereo_antistereo,bias_type\n0,a b,a c,up,gender\n")
    with pytest.raises(ValueError, match=r"bad.csv:2: stereo_antistereo"):
        lmbias.crows(lmbias.Model(FIXTURES / "models" / "tiny-bert-mlm"), bad)
    with pytest.raises(ValueError, match="no masked-language-modelling head"):
        lmbias.crows(lmbias.Model(FIXTURES / "models" / "tiny-bert-nohead"), SAMPLE)


def reference_module():
    """crows_reference.py, the procedures the tiny fixtures' references were computed with."""
    generate = FIXTURES / "generate"
    sys.path.insert(0, str(generate))
    spec = importlib.util.spec_from_file_location("crows_reference", generate / "crows_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_real_bert_scores_crows_pairs_as_transformers_does(tmp_path, cli, minilm):
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError as e:
        pytest.fail(f"this test needs torch and transformers (.ci/run installs them): {e}", pytrace=False)
    transformers.logging.set_verbosity_error()
    model = tmp_path / "model"
    code, _, stderr = cli(
        "train-mlm", "--from", minilm, "--corpus", CORPUS, "--output", model,
        "--steps", 2, "--batch", 4, "--held-out", 0, "--checkpoint-every", 0,
    )
    assert code == 0, stderr
    pairs = tmp_path / "pairs.csv"
    with open(CROWS, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = [row for _, row in zip(range(60), reader)]
        with open(pairs, "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=reader.fieldnames)
            writer.writeheader()
            writer.writerows(rows)
    want = reference_module().score_folder(model, rows)
    got = lmbias.crows(lmbias.Model(model), pairs)["results"][0]
    assert [p["id"] for p in got["pairs"]] == [p["id"] for p in want["pairs"]]
    near_ties = 0
    for g, w in zip(got["pairs"], want["pairs"]):
        for key in ("pll", "bias_bench", "aul", "aula"):
            if w[key] is None:
                assert g["decisions"][key] == "skipped"
                continue
            for side, theirs in zip(("more", "less"), w[key]):
                assert g[side][key] == pytest.approx(theirs, rel=1e-4, abs=0), (w["id"], key, side)
            more, less = w[key]
            if key in ("pll", "bias_bench"):
                more, less = round(more, 3), round(less, 3)
            theirs = "stereotypical" if more > less else "not_stereotypical" if more < less else "tie"
            if g["decisions"][key] != theirs:
                assert abs(w[key][0] - w[key][1]) <= 1e-4 * max(abs(w[key][0]), abs(w[key][1])), (w["id"], key)
                near_ties += 1
    # The originals' counts, where no decision fell on a near-tie.
    if near_ties == 0:
        summary = {s["measure"]: s["overall"] for s in got["summary"]}
        counts = want["summary"]
        assert summary["pll"]["stereotypical"] == counts["pll"]["stereo"] + counts["pll"]["antistereo"]
        assert summary["pll"]["ties"] == counts["pll"]["neutral"]
        assert summary["aul"]["stereotypical"] == counts["aul"]["stereotypical"]
        assert summary["aula"]["stereotypical"] == counts["aula"]["stereotypical"]
