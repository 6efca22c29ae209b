"""`lmbias train-mlm` writes a folder transformers loads as it is (issue #24, "Done when"):
no missing, unexpected or mismatched keys, continued from a checkpoint with an MLM head
(tiny-bert-mlm) and from an encoder without one (tiny-bert-nohead, which gets a fresh head);
and fill-mask on the trained folder gives the same top 10 in transformers and `lmbias fill-mask`.

transformers and torch come from CI's venv (.ci/run installs them); without them these tests
fail rather than skip, so a CI that lost them cannot pass unnoticed.
"""

import json

import numpy as np
import pytest

from conftest import FIXTURES

# The tiny fixtures' vocabulary is built from this text (tests/fixtures/generate/), so it
# tokenizes into word pieces rather than characters.
CORPUS = FIXTURES / "generate" / "corpus.txt"
STARTS = {"mlm": FIXTURES / "models" / "tiny-bert-mlm", "nohead": FIXTURES / "models" / "tiny-bert-nohead"}
MASKED = [
    "Thou art more [MASK] than the northern star.",
    "Wherefore art thou [MASK] hither in such haste?",
    "He that loveth his [MASK] abideth in the light.",
    "The doctor said she would be [MASK] today.",
    "İstanbul büyük ve [MASK] bir şehirdir.",
]


@pytest.fixture(scope="session")
def torch_and_transformers():
    try:
        import torch
        import transformers
    except ImportError as e:
        missing = str(e)
    else:
        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()
        return torch, transformers
    # Outside the handler, so the message is not buried under the import's traceback.
    pytest.fail(f"these tests need torch and transformers in the test venv (.ci/run installs them): {missing}",
                pytrace=False)


@pytest.fixture(scope="session", params=sorted(STARTS))
def trained(request, tmp_path_factory, cli):
    """(start folder, trained folder): 20 steps on the fixture corpus."""
    start = STARTS[request.param]
    out = tmp_path_factory.mktemp(f"train-{request.param}") / "model"
    code, stdout, stderr = cli(
        "train-mlm", "--from", start, "--corpus", CORPUS, "--output", out,
        "--steps", 20, "--max-len", 32, "--batch", 8, "--seed", 0,
    )
    assert code == 0, stderr
    return start, out


def test_transformers_loads_the_trained_folder_with_every_key(trained, torch_and_transformers):
    torch, transformers = torch_and_transformers
    start, out = trained
    model, info = transformers.AutoModelForMaskedLM.from_pretrained(out, dtype=torch.float32, output_loading_info=True)
    assert info["missing_keys"] == set() and info["unexpected_keys"] == set(), info
    assert info["mismatched_keys"] == set() and info["error_msgs"] == [], info
    assert type(model).__name__ == "BertForMaskedLM"
    assert model.cls.predictions.decoder.weight.data_ptr() == model.bert.embeddings.word_embeddings.weight.data_ptr()
    # The same network as the start, trained: every tensor of the start's encoder is there
    # with its shape, and the training moved the weights.
    before = transformers.AutoModelForMaskedLM.from_pretrained(start, dtype=torch.float32).state_dict()
    after = model.state_dict()
    assert {k: v.shape for k, v in after.items()} == {k: v.shape for k, v in before.items()}
    moved = [k for k in after if k.startswith("bert.") and not torch.equal(after[k], before[k])]
    assert "bert.embeddings.word_embeddings.weight" in moved and len(moved) > len(after) // 2, moved
    report = json.loads((out / "training.json").read_text())
    assert report["settings"]["steps"] == 20 and report["fresh_head"] == (start.name == "tiny-bert-nohead")


def test_fill_mask_top10_equals_transformers(trained, torch_and_transformers, cli_json):
    torch, transformers = torch_and_transformers
    _, out = trained
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    model = transformers.AutoModelForMaskedLM.from_pretrained(out, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    got = cli_json("fill-mask", "--model", out, "--top-k", 10, "--json", *MASKED)
    assert [g["text"] for g in got] == MASKED
    for text, lmbias in zip(MASKED, got):
        enc = tokenizer(text, return_tensors="pt")
        (at,) = (enc["input_ids"][0] == tokenizer.mask_token_id).nonzero()[:, 0].tolist()
        with torch.no_grad():
            probs = model(**enc).logits[0, at].softmax(-1)  # over the full vocabulary
        top = probs.topk(10)
        want_ids = top.indices.tolist()
        predictions = lmbias["predictions"]
        assert [p["token"] for p in predictions] == want_ids, text
        np.testing.assert_allclose([p["score"] for p in predictions], top.values.numpy(), rtol=0, atol=1e-5, err_msg=text)


def test_minilm_gets_a_head_transformers_loads(tmp_path, cli, cli_json, torch_and_transformers, minilm):
    """The period models' start: all-MiniLM-L6-v2 (a BertModel, no MLM head) continued for two
    steps loads as a BertForMaskedLM with no missing or unexpected key, the pooler dropped, the new
    decoder tied, and fill-mask agrees with lmbias (its tokenizer.json padded every text to 128;
    the exported copy does not)."""
    torch, transformers = torch_and_transformers
    out = tmp_path / "model"
    code, _, stderr = cli(
        "train-mlm", "--from", minilm, "--corpus", CORPUS, "--output", out,
        "--steps", 2, "--batch", 4, "--held-out", 0, "--checkpoint-every", 0,
    )
    assert code == 0, stderr
    model, info = transformers.AutoModelForMaskedLM.from_pretrained(out, dtype=torch.float32, output_loading_info=True)
    assert info["missing_keys"] == set() and info["unexpected_keys"] == set(), info
    assert not any("pooler" in k for k in model.state_dict())
    assert model.cls.predictions.decoder.weight.data_ptr() == model.bert.embeddings.word_embeddings.weight.data_ptr()
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    model.eval()
    text = "Thou art more [MASK] than the northern star."
    enc = tokenizer(text, return_tensors="pt")
    assert enc["input_ids"].shape[1] < 20, "the exported tokenizer must not pad"
    (at,) = (enc["input_ids"][0] == tokenizer.mask_token_id).nonzero()[:, 0].tolist()
    with torch.no_grad():
        top = model(**enc).logits[0, at].softmax(-1).topk(10)
    (got,) = cli_json("fill-mask", "--model", out, "--top-k", 10, "--json", text)
    assert [p["token"] for p in got["predictions"]] == top.indices.tolist()
    np.testing.assert_allclose([p["score"] for p in got["predictions"]], top.values.numpy(), rtol=0, atol=1e-5)


def test_added_words_load_in_transformers_and_fill_mask_agrees(tmp_path, cli, cli_json, torch_and_transformers, minilm):
    """`--add-words` (issue #34): all-MiniLM-L6-v2 continued with the 20 most frequent words of
    the corpus that its vocabulary cuts into pieces loads in transformers with no missing,
    unexpected or mismatched key and the grown tables; transformers' tokenizer reads each added
    word as its one new id; and fill-mask, over texts holding added words, gives lmbias's top 10
    (ids identical, probabilities within 1e-5)."""
    torch, transformers = torch_and_transformers
    out = tmp_path / "model"
    code, _, stderr = cli(
        "train-mlm", "--from", minilm, "--corpus", CORPUS, "--output", out, "--add-words", 20,
        "--steps", 2, "--batch", 4, "--held-out", 0, "--checkpoint-every", 0,
    )
    assert code == 0, stderr
    report = json.loads((out / "training.json").read_text())
    added = report["added_words"]
    assert len(added) == 20 and report["settings"]["add_words"] == {"most_frequent": 20}
    model, info = transformers.AutoModelForMaskedLM.from_pretrained(out, dtype=torch.float32, output_loading_info=True)
    assert info["missing_keys"] == set() and info["unexpected_keys"] == set(), info
    assert info["mismatched_keys"] == set() and info["error_msgs"] == [], info
    assert model.bert.embeddings.word_embeddings.weight.shape[0] == 30522 + 20
    assert model.cls.predictions.decoder.weight.data_ptr() == model.bert.embeddings.word_embeddings.weight.data_ptr()
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    for word in added:
        assert tokenizer(word["word"], add_special_tokens=False)["input_ids"] == [word["id"]], word
    model.eval()
    words = [w["word"] for w in added]
    texts = [f"And {words[0]} said unto them, [MASK] {words[1]} {words[2]}."] + MASKED[:3]
    got = cli_json("fill-mask", "--model", out, "--top-k", 10, "--json", *texts)
    for text, lmbias in zip(texts, got):
        enc = tokenizer(text, return_tensors="pt")
        (at,) = (enc["input_ids"][0] == tokenizer.mask_token_id).nonzero()[:, 0].tolist()
        with torch.no_grad():
            top = model(**enc).logits[0, at].softmax(-1).topk(10)
        assert [p["token"] for p in lmbias["predictions"]] == top.indices.tolist(), text
        np.testing.assert_allclose([p["score"] for p in lmbias["predictions"]], top.values.numpy(), rtol=0, atol=1e-5, err_msg=text)
