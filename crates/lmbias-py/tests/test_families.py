"""lmbias.Model on every model family besides BERT and T5 (RoBERTa, XLM-R, CamemBERT,
DistilBERT, ELECTRA generator and discriminator, ALBERT, ModernBERT, DeBERTa-v2/v3):
transformers' numbers from tests/fixtures/reference/<folder>.json
(tests/fixtures/generate/tiny_families_reference.py)."""

import json

import numpy as np
import pytest

import lmbias
from conftest import FIXTURES

FAMILIES = [
    ("tiny-roberta-mlm", True),
    ("tiny-roberta-base", False),
    ("tiny-xlmr-mlm", True),
    ("tiny-camembert-mlm", True),
    ("tiny-distilbert-mlm", True),
    ("tiny-electra-generator", True),
    ("tiny-electra-discriminator", False),
    ("tiny-albert-mlm", True),
    ("tiny-albert-groups", True),
    ("tiny-modernbert-mlm", True),
    ("tiny-deberta-v3-mlm", True),
    ("tiny-deberta-v2-conv", True),
    ("tiny-deberta-v2-base", False),
]


def piece_text(name, piece):
    """A piece as text, written independently of lmbias: GPT-2's byte-level alphabet mapped
    back to bytes (RoBERTa), "▁" as a space (SentencePiece), WordPiece as written; without
    the leading space of a word-initial piece."""
    if name.startswith(("tiny-roberta", "tiny-modernbert")):
        printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
        others = [b for b in range(256) if b not in printable]
        to_byte = {chr(b): b for b in printable} | {chr(256 + i): b for i, b in enumerate(others)}
        text = bytes(to_byte[c] for c in piece).decode("utf-8", errors="replace")
    elif name.startswith(("tiny-xlmr", "tiny-camembert", "tiny-albert", "tiny-deberta")):
        text = piece.replace("▁", " ")
    else:
        text = piece
    return text.lstrip()


def reference(name):
    return json.loads((FIXTURES / "reference" / f"{name}.json").read_text())


@pytest.mark.parametrize("name,has_head", FAMILIES)
def test_model_embeds_and_fills_masks_as_transformers(name, has_head):
    ref = reference(name)
    model = lmbias.Model(FIXTURES / "models" / name)
    pooling = "cls" if name.startswith("tiny-albert") else "mean"
    assert model.hidden_size == ref["hidden_size"] and model.default_pooling == pooling
    texts = [s["text"] for s in ref["sentences"]]
    vectors = model.embed(texts)
    want = np.array([s[pooling] for s in ref["sentences"]], dtype=np.float64)
    assert np.abs(vectors - want).max() <= 1e-5
    first = model.embed(texts, pooling="cls", layer=1)
    want = np.array([s["layer1_cls"] for s in ref["sentences"]], dtype=np.float64)
    assert np.abs(first - want).max() <= 1e-5
    if not has_head:
        with pytest.raises(ValueError, match="no masked-language-modelling head"):
            model.fill_mask([f"Thou art {ref.get('mask_token', '[MASK]')}."])
        return
    assert model.mask_token == ref["mask_token"]
    masked = [s for s in ref["sentences"] if "fill_mask" in s]
    answers = model.fill_mask([s["text"] for s in masked], top_k=10)
    for s, got in zip(masked, answers):
        assert [p["token"] for p in got] == s["fill_mask"]["top10_ids"]
        assert [p["token_str"] for p in got] == [piece_text(name, t) for t in s["fill_mask"]["top10_tokens"]]
        np.testing.assert_allclose([p["score"] for p in got], s["fill_mask"]["top10_probs"], atol=1e-5, rtol=0)
