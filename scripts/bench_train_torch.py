"""PyTorch side of the training benchmark (see scripts/bench-train.sh; issue #24, item 6).

What a transformers user writes to adapt a BERT to a corpus with masked-LM training, set up as
`lmbias train-mlm --from MODEL_DIR` trains: passages packed as run_mlm.py's group_texts packs
them ([CLS] … [SEP] per passage, concatenated, cut into blocks of --max-len, the remainder
dropped), epochs of a seeded shuffle of the blocks, BERT's masking by DataCollatorForLanguageModeling
(15 %, 80/10/10, special tokens never masked), AdamW with a linear warm-up and decay
(get_linear_schedule_with_warmup), gradient clipping, dropout on (train mode), f32. The loss is
taken at the masked positions only: their hidden states are gathered before the MLM head, so the
full-vocabulary projection runs on them alone. A folder without an MLM head (MiniLM is a
BertModel) gets BertForMaskedLM's: transform dense + LayerNorm freshly initialised, the decoder
tied to the word embeddings.

  python3 scripts/bench_train_torch.py MODEL_DIR CORPUS [--steps 60] [--threads 2] [--batch 32] ...

Prints one JSON line. `seconds` times the training loop alone (tokenizing and packing the corpus,
and one warm-up step, come before it); `tokens` counts the non-pad tokens of the timed steps.
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import torch

# The tokenizer's own thread pool would compete with torch's threads for the same cores.
os.environ["TOKENIZERS_PARALLELISM"] = "false"


def cpu_model() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def pack(tokenizer, passages: list[str], max_len: int) -> torch.Tensor:
    """run_mlm.py's group_texts: every passage with its specials, end to end, cut into blocks."""
    stream = []
    for ids in tokenizer(passages, add_special_tokens=True)["input_ids"]:
        stream.extend(ids)
    whole = len(stream) // max_len * max_len
    if whole == 0:
        sys.exit(f"error: the corpus has fewer than {max_len} tokens")
    return torch.tensor(stream[:whole]).view(-1, max_len)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("corpus", type=Path, help="a text file, one passage a line (blank lines skipped)")
    parser.add_argument("--steps", type=int, default=60, help="timed optimizer steps (one warm-up step comes first)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-len", type=int, default=32)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--warmup-steps", type=int, default=60)
    parser.add_argument("--weight-decay", type=float, default=0.01)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--mlm-probability", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import transformers
    from transformers import (AutoTokenizer, BertForMaskedLM, DataCollatorForLanguageModeling,
                              get_linear_schedule_with_warmup)

    # The load report (the fresh head's keys) is in the JSON; the long-passage warning is moot (packed).
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)  # the fresh head's initialisation, dropout
    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    model, info = BertForMaskedLM.from_pretrained(args.model_dir, dtype=torch.float32, output_loading_info=True)
    fresh = sorted(info["missing_keys"])
    # Only the head may be new; a missing encoder tensor would mean a wrong folder.
    if any(not key.startswith("cls.") for key in fresh):
        sys.exit(f"error: {args.model_dir}: encoder tensors missing: {fresh}")
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight, "decoder not tied"
    model.train()

    passages = [line.strip() for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    blocks = pack(tokenizer, passages, args.max_len)
    special = torch.tensor(
        [tokenizer.get_special_tokens_mask(row, already_has_special_tokens=True) for row in blocks.tolist()],
        dtype=torch.bool,
    )
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=args.mlm_probability, seed=args.seed)
    order = torch.Generator().manual_seed(args.seed)

    def batch_rows():
        """Epochs of a seeded shuffle of the blocks, read `batch` at a time across epoch ends."""
        stream = itertools.chain.from_iterable(torch.randperm(len(blocks), generator=order).tolist()
                                               for _ in itertools.count())
        while True:
            yield [next(stream) for _ in range(args.batch)]

    # The decay on every parameter, biases and LayerNorm weights too, as lmbias applies it
    # (transformers' Trainer would exempt those; the cost per step is the same).
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=args.weight_decay
    )
    total = args.steps + 1
    schedule = get_linear_schedule_with_warmup(optimizer, min(args.warmup_steps, total), total)
    rows = batch_rows()

    def step() -> tuple[float, int]:
        masked = collator.torch_call(
            [{"input_ids": blocks[i], "special_tokens_mask": special[i]} for i in next(rows)]
        )
        attention = torch.ones_like(masked["input_ids"])  # packed blocks: no padding
        hidden = model.bert(input_ids=masked["input_ids"], attention_mask=attention).last_hidden_state
        labels = masked["labels"]
        at = labels != -100
        logits = model.cls(hidden[at])  # the vocabulary projection at the masked positions only
        loss = torch.nn.functional.cross_entropy(logits, labels[at])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        schedule.step()
        return loss.item(), int(attention.sum())

    step()  # warm-up: allocator, thread pool, first-call dispatch
    tokens, start = 0, time.perf_counter()
    for _ in range(args.steps):
        loss, n = step()
        tokens += n
    seconds = time.perf_counter() - start
    print(json.dumps({
        "impl": f"torch-{torch.__version__}", "model": str(args.model_dir), "corpus": str(args.corpus),
        "fresh_head": fresh, "blocks": len(blocks), "max_len": args.max_len, "batch": args.batch,
        "steps": args.steps, "tokens": tokens, "seconds": round(seconds, 3),
        "tokens_per_s": round(tokens / seconds, 1), "loss": round(loss, 4), "threads": torch.get_num_threads(),
        "cpu": cpu_model(),
    }))


if __name__ == "__main__":
    main()
