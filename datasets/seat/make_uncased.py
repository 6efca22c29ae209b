#!/usr/bin/env python3
"""Write datasets/seat/tr-uncased/: the Turkish battery with every example
lower-cased the Turkish way, for uncased Turkish checkpoints.

Python's str.lower() maps "İ" to "i" + U+0307 (combining dot above) and "I"
to "i" (it should be "ı"), so both dotted and dotless capitals are mapped
first: İ -> i, I -> ı; str.lower() then handles every other letter (including
the Kurmanji letters Ê, Î, Û, which keep their accents). Categories are left
as they are. Nothing else (accents, punctuation) is changed.

Usage: python3 datasets/seat/make_uncased.py   stdlib only.
"""

import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
SRC, DST = HERE / "tr", HERE / "tr-uncased"


def tr_lower(s):
    return s.replace("İ", "i").replace("I", "ı").lower()


def main():
    DST.mkdir(exist_ok=True)
    for old in DST.glob("*.jsonl"):
        old.unlink()
    files = sorted(SRC.glob("*.jsonl"))
    for path in files:
        test = json.loads(path.read_text(encoding="utf-8"))
        for role, part in test.items():
            lowered = [tr_lower(e) for e in part["examples"]]
            # Lower-casing must not merge two examples (e.g. a name and a word).
            if len(set(lowered)) != len(lowered):
                raise SystemExit(f"{path.name}: {role}: lower-casing creates duplicate examples")
            part["examples"] = lowered
        (DST / path.name).write_text(json.dumps(test, ensure_ascii=False, indent=2) + "\n",
                                     encoding="utf-8")
    print(f"wrote {len(files)} lower-cased tests to {DST}")


if __name__ == "__main__":
    main()
