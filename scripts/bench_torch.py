"""PyTorch side of the lmbias model benchmark (see scripts/bench-model.sh).

Same work as crates/lmbias-model/examples/throughput.rs: tokenize a batch of the
same ~10-token sentences, run the folder's AutoModel, mean-pool over the attention mask.
Also creates the random checkpoints of bert-base's, roberta-base's and ModernBERT-base's
shapes that both sides load (the tokenizer copied from TOKENIZER_DIR; a tiny fixture's
for RoBERTa and ModernBERT, whose real ones these machines cannot fetch).
TORCH_ATTN picks transformers' attention (default "eager"; "sdpa" is its own default).
TORCH_DTYPE=bf16 (default f32) runs `run` and `embed` under torch.autocast("cpu", dtype=torch.bfloat16),
the way a PyTorch user asks for bf16: the weights stay f32 and autocast casts per op (matmuls in
bf16); the JSON's "impl" then says "bf16-autocast". f32 prints as before.

  python3 scripts/bench_torch.py make-bert-base OUT_DIR TOKENIZER_DIR
  python3 scripts/bench_torch.py make-roberta-base OUT_DIR TOKENIZER_DIR
  python3 scripts/bench_torch.py make-modernbert-base OUT_DIR TOKENIZER_DIR
  python3 scripts/bench_torch.py run MODEL_DIR BATCH SECONDS THREADS
  python3 scripts/bench_torch.py embed MODEL_DIR TEXTS_FILE THREADS   # the way a notebook would
"""

import contextlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import torch

# The tokenizer's own thread pool would compete with torch's threads for the same cores.
os.environ["TOKENIZERS_PARALLELISM"] = "false"

SENTENCES = [
    "The doctor said she would be late today.",
    "Thou art more lovely and more temperate.",
    "He works as an engineer in the city.",
    "The children played football in the park.",
    "She teaches mathematics at the local school.",
    "Love and peace make life more pleasant.",
    "The nurse helped the old man walk home.",
    "Researchers measure bias in language models.",
]

DTYPE = os.environ.get("TORCH_DTYPE", "f32")
if DTYPE not in ("f32", "bf16"):
    sys.exit(f"TORCH_DTYPE must be f32 or bf16, not {DTYPE!r}")
# Inserted into "impl" after the torch version; empty for f32 so its output is unchanged.
DTYPE_TAG = "-bf16-autocast" if DTYPE == "bf16" else ""


def forward_context():
    """What wraps the model's forward pass: bf16 autocast for TORCH_DTYPE=bf16, nothing for f32."""
    return torch.autocast("cpu", dtype=torch.bfloat16) if DTYPE == "bf16" else contextlib.nullcontext()


def make_bert_base(out: Path, tokenizer_dir: Path) -> None:
    """Random BertModel with bert-base's shape (12 layers, 768 hidden, vocab 30522)."""
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    model = BertModel(BertConfig()).eval()
    model.save_pretrained(out)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (tokenizer_dir / name).exists():
            shutil.copy(tokenizer_dir / name, out / name)


def copy_tokenizer(tokenizer_dir: Path, out: Path) -> None:
    for name in ("vocab.txt", "vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (tokenizer_dir / name).exists():
            shutil.copy(tokenizer_dir / name, out / name)


def make_roberta_base(out: Path, tokenizer_dir: Path) -> None:
    """Random RobertaModel with roberta-base's shape (12 layers, 768 hidden, vocab 50265,
    514 positions from pad id 1, one token type)."""
    from transformers import RobertaConfig, RobertaModel

    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=50265, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2)
    RobertaModel(config).eval().save_pretrained(out)
    copy_tokenizer(tokenizer_dir, out)


def make_modernbert_base(out: Path, tokenizer_dir: Path) -> None:
    """Random ModernBertModel with ModernBERT-base's shape (transformers' ModernBertConfig
    defaults: 22 layers, 768 hidden, GeGLU 1152, global attention every third layer, local
    window 128, vocab 50368)."""
    from transformers import ModernBertConfig, ModernBertModel

    torch.manual_seed(0)
    tok = json.loads((tokenizer_dir / "config.json").read_text())
    config = ModernBertConfig(pad_token_id=tok["pad_token_id"], bos_token_id=tok["bos_token_id"], eos_token_id=tok["eos_token_id"],
                              cls_token_id=tok["cls_token_id"], sep_token_id=tok["sep_token_id"])
    ModernBertModel(config).eval().save_pretrained(out)
    copy_tokenizer(tokenizer_dir, out)


@torch.no_grad()
def run(model_dir: Path, batch: int, seconds: float, threads: int) -> None:
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(threads)
    tok = AutoTokenizer.from_pretrained(model_dir)
    attention = os.environ.get("TORCH_ATTN", "eager")
    model = AutoModel.from_pretrained(model_dir, dtype=torch.float32, attn_implementation=attention).eval()
    texts = [SENTENCES[i % len(SENTENCES)] for i in range(batch)]

    def step():
        enc = tok(texts, padding=True, return_tensors="pt")
        with forward_context():
            hidden = model(**enc).last_hidden_state.float()
        mask = enc["attention_mask"].unsqueeze(-1).float()
        return (hidden * mask).sum(1) / mask.sum(1)

    seq_len = tok(texts, padding=True, return_tensors="pt")["input_ids"].shape[1]
    step()
    start, batches = time.perf_counter(), 0
    while time.perf_counter() - start < seconds or batches < 3:
        assert step().shape[0] == batch
        batches += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"impl": f"torch-{torch.__version__}{DTYPE_TAG}-{attention}-{threads}threads", "model": str(model_dir), "batch": batch, "seq_len": seq_len,
                      "batches": batches, "seconds": round(elapsed, 3), "sentences_per_s": round(batches * batch / elapsed, 1)}))


@torch.no_grad()
def embed(model_dir: Path, texts_file: Path, threads: int, batch: int = 32) -> None:
    """Every line of TEXTS_FILE through AutoModel in input order, batches of 32 padded to
    their longest, CLS pooling: what a researcher writes in a notebook (issue #12)."""
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(threads)
    texts = texts_file.read_text(encoding="utf-8").splitlines()
    start = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, dtype=torch.float32).eval()
    vectors = []
    for i in range(0, len(texts), batch):
        enc = tok(texts[i : i + batch], padding=True, truncation=False, return_tensors="pt")
        with forward_context():
            vectors.append(model(**enc).last_hidden_state[:, 0].float())
    out = torch.cat(vectors)
    elapsed = time.perf_counter() - start
    print(json.dumps({"impl": f"torch-{torch.__version__}{DTYPE_TAG}-{threads}threads", "model": str(model_dir), "texts": len(texts),
                      "shape": list(out.shape), "seconds": round(elapsed, 2)}))


if __name__ == "__main__":
    if sys.argv[1] == "embed":
        embed(Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "make-bert-base":
        make_bert_base(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1] == "make-roberta-base":
        make_roberta_base(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1] == "make-modernbert-base":
        make_modernbert_base(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        run(Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
