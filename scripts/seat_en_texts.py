"""Writes the distinct examples of datasets/seat/en, one per line, in file order (the order SEAT
meets them): the texts scripts/bench-embed.sh times and scripts/bf16-parity.sh compares.

  python3 scripts/seat_en_texts.py OUT_FILE
"""

import glob
import json
import sys

seen, texts = set(), []
for path in sorted(glob.glob("datasets/seat/en/*.jsonl")):
    test = json.load(open(path, encoding="utf-8"))
    for role in ("targ1", "targ2", "attr1", "attr2"):
        for text in test[role]["examples"]:
            if text not in seen:
                seen.add(text)
                texts.append(text)
open(sys.argv[1], "w", encoding="utf-8").write("\n".join(texts) + "\n")
print(f"{len(texts)} texts", file=sys.stderr)
