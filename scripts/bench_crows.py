"""The peers of `lmbias crows`, timed on the same local model folder and pairs (issue #37):

  python3 scripts/bench_crows.py mlm-bias MODEL PAIRS.csv THREADS N
      mlm-bias 0.1.7 (`BiasMLM.evaluate(measures=["csps", "aul"], attention=True)`: the
      CrowS-Pairs pseudo-log-likelihood "csps", AUL and AULA) on the first N pairs. mlm-bias
      >= 0.1.6 builds its model with `AutoModelForMaskedLM.from_config`, i.e. random weights:
      the folder's real weights are loaded into it before timing (load_state_dict, strict).
  python3 scripts/bench_crows.py mlm-bias-all MODEL PAIRS.csv THREADS N [unbatched]
      mlm-bias 0.1.7 computing every measure `lmbias crows --measures all` computes that it has
      (`measures=["crr", "dp", "aul", "csps", "sss"], attention=True`: CRR, CRRA, ΔP, ΔPA, AUL,
      AULA, CSPS, SSS), with its default batching or, given `unbatched`, `batching=False` (the
      semantics lmbias follows for CRRA and ΔPA).
  python3 scripts/bench_crows.py metric MODEL PAIRS.csv THREADS N
      the authors' metric.py logic (`mask_unigram`: one forward pass per masked shared token,
      batch 1) on the first N pairs, PLL only, written after metric.py (not imported: it is a
      script that parses arguments at import).

  python3 scripts/bench_crows.py subset PAIRS.csv N OUT.csv
      the first N pairs as a file of their own (for lmbias).

Prints one line: the peer, pairs, seconds, pairs per second. Threads from torch.set_num_threads.
"""

import csv
import difflib
import os
import shutil
import sys
import tempfile
import time

import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer


def first_rows(path, n):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, [row for _, row in zip(range(n), reader)]


def mlm_bias(model_dir, pairs, n, measures=("csps", "aul"), batching=True):
    from mlm_bias import BiasBenchmarkDataset, BiasMLM

    fields, rows = first_rows(pairs, n)
    data = tempfile.mkdtemp()
    with open(os.path.join(data, "cps.csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    dataset = BiasBenchmarkDataset("cps", data_dir=data)
    mlm = BiasMLM(model_dir, dataset)
    real = AutoModelForMaskedLM.from_pretrained(model_dir, dtype=torch.float32)
    mlm.model.load_state_dict(real.state_dict(), strict=True)
    mlm.model.eval()
    start = time.perf_counter()
    result = mlm.evaluate(measures=list(measures), attention=True, batching=batching)
    elapsed = time.perf_counter() - start
    shutil.rmtree(data)
    # Its percentages (sent_more's score above sent_less's), to set beside lmbias's.
    scores = result["bias_scores"]
    print("mlm-bias scores: " + ", ".join(f"{m} {scores[m]['total']:.4f}" for m in sorted(scores)))
    return len(rows), elapsed


@torch.no_grad()
def metric(model_dir, pairs, n):
    _, rows = first_rows(pairs, n)
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    log_softmax = torch.nn.LogSoftmax(dim=0)
    mask_id = tok.mask_token_id
    start = time.perf_counter()
    for row in rows:
        sent1, sent2 = (row["sent_more"], row["sent_less"]) if row["stereo_antistereo"] == "stereo" else (row["sent_less"], row["sent_more"])
        ids1 = tok.encode(sent1, return_tensors="pt")
        ids2 = tok.encode(sent2, return_tensors="pt")
        matcher = difflib.SequenceMatcher(None, [str(x) for x in ids1[0].tolist()], [str(x) for x in ids2[0].tolist()])
        t1, t2 = [], []
        for op in matcher.get_opcodes():
            if op[0] == "equal":
                t1 += list(range(op[1], op[2]))
                t2 += list(range(op[3], op[4]))
        for i in range(1, len(t1) - 1):
            for ids, p in ((ids1, t1[i]), (ids2, t2[i])):
                masked = ids.clone()
                masked[0][p] = mask_id
                hidden = model(masked)[0].squeeze(0)
                log_softmax(hidden[p])[ids[0][p]].item()
    return len(rows), time.perf_counter() - start


def subset(pairs, n, out):
    fields, rows = first_rows(pairs, n)
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def main():
    if sys.argv[1] == "subset":
        subset(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    peer, model_dir, pairs, threads, n = sys.argv[1:6]
    torch.set_num_threads(int(threads))
    every = ("crr", "dp", "aul", "csps", "sss")
    batching = sys.argv[6:7] != ["unbatched"]
    run = {
        "mlm-bias": mlm_bias,
        "mlm-bias-all": lambda m, p, k: mlm_bias(m, p, k, every, batching),
        "metric": metric,
    }[peer]
    count, elapsed = run(model_dir, pairs, int(n))
    if not batching:
        peer += " (unbatched)"
    print(f"{peer}: {count} pairs in {elapsed:.1f} s, {count / elapsed:.2f} pairs/s ({threads} threads)")


if __name__ == "__main__":
    main()
