#!/usr/bin/env python3
"""Validate lmbias's own datasets and print a summary.

Checks every rule in datasets/README.md for
  seat/tr/ and seat/tr-uncased/   (Turkish SEAT battery, sent-bias format)
  valence/eme-me-60.json          (temporal valence sentences)
  probe/*.csv, probe/templates.txt (categorical-association probe lists)
Token checks use the bert-base-uncased vocabulary (all-MiniLM-L6-v2 ships it):
pass --vocab PATH, or it is looked up in ~/.cache/lmbias/all-MiniLM-L6-v2/.
Exit status 1 if any rule is broken; every problem is printed as one line
naming the file and the set / sentence / word. stdlib only.
"""

import argparse
import csv
import json
import pathlib
import re
import sys
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parent
SCALE = {-1, -0.5, 0, 0.5, 1}
ROLES = ("targ1", "targ2", "attr1", "attr2")
PROBE_VALUES = {
    "religion": ("christian", "muslim"),
    "gender": ("male", "female"),
    "ethnicity": ("european", "african"),
    "adjectives": ("positive", "negative"),
    "salary": ("high", "low"),
    "criminality": ("criminal", "lawful"),
}
PLACEHOLDER = re.compile(r"\[WORD:([a-z][a-z-]*)\]")

problems = []


def bad(where, what):
    problems.append(f"{where}: {what}")


def tr_lower(s):
    return s.replace("İ", "i").replace("I", "ı").lower()


def load_vocab(path):
    if path is None:
        path = pathlib.Path.home() / ".cache/lmbias/all-MiniLM-L6-v2/vocab.txt"
    path = pathlib.Path(path)
    if not path.exists():
        return None
    return set(path.read_text(encoding="utf-8").splitlines())


# ----------------------------------------------------------------- SEAT (tr)
def expected_seat_names():
    names = []
    for n in ("4", "6", "7", "8"):
        for variant in ("", "b", "_religious"):
            names += [f"weat{n}{variant}_tr", f"sent-weat{n}{variant}_tr"]
    for kind in ("competent", "likable"):
        for rel in ("", "_religious"):
            base = f"heilman_double_bind_{kind}{rel}"
            names += [f"{base}_one_word_tr", f"sent-{base}_one_word_tr", f"{base}_one_sentence_tr"]
    names.append("heilman_double_bind_likable_1-_tr")
    return sorted(f"{n}.jsonl" for n in names)


def load_seat(path):
    try:
        test = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        bad(path, f"not JSON: {e}")
        return None
    if not isinstance(test, dict) or list(test) != list(ROLES):
        bad(path, f"keys must be exactly {', '.join(ROLES)} in that order")
        return None
    for role in ROLES:
        part = test[role]
        if not isinstance(part, dict) or set(part) != {"category", "examples"}:
            bad(path, f"{role}: must hold exactly 'category' and 'examples'")
            return None
        if not isinstance(part["category"], str) or not part["category"]:
            bad(path, f"{role}: empty category")
        ex = part["examples"]
        if not isinstance(ex, list) or not ex or not all(isinstance(e, str) and e.strip() for e in ex):
            bad(path, f"{role}: examples must be a non-empty list of non-empty strings")
            return None
        dups = sorted({e for e in ex if ex.count(e) > 1})
        if dups:
            bad(path, f"{role}: duplicate examples {dups}")
        for e in ex:
            if e != e.strip() or "  " in e:
                bad(path, f"{role}: stray whitespace in {e!r}")
            # Turkish "o" is gender-neutral: it must never stand in a set.
            if "o" in re.findall(r"\w+", tr_lower(e)):
                bad(path, f"{role}: uses the pronoun 'o' in {e!r}")
    return test


def check_seat(directory, uncased_of=None):
    files = sorted(p.name for p in directory.glob("*.jsonl"))
    if files != expected_seat_names():
        missing = sorted(set(expected_seat_names()) - set(files))
        extra = sorted(set(files) - set(expected_seat_names()))
        bad(directory, f"expected the 37 tests; missing {missing}, unexpected {extra}")
    tests = {}
    for name in files:
        path = directory / name
        test = load_seat(path)
        if test is None:
            continue
        tests[name] = test
        n = {r: len(test[r]["examples"]) for r in ROLES}
        if n["targ1"] != n["targ2"]:
            bad(path, f"targ1 has {n['targ1']} examples, targ2 {n['targ2']}: X and Y must be equal")
        if n["attr1"] != n["attr2"]:
            bad(path, f"attr1 has {n['attr1']} examples, attr2 {n['attr2']}: A and B must be equal here")
        sentence_level = name.startswith("sent-") or "one_sentence" in name or "_1-" in name
        for role in ROLES:
            for e in test[role]["examples"]:
                cased_start = uncased_of is not None or e[0].isupper()
                if sentence_level and not (cased_start and e[-1] in ".!?"):
                    bad(path, f"{role}: sentence {e!r} must start upper-case and end with . ! or ?")
                if not sentence_level and e.endswith("."):
                    bad(path, f"{role}: word-level example {e!r} ends with a period")
        if uncased_of is not None:
            cased = uncased_of / name
            if not cased.exists():
                continue
            src = json.loads(cased.read_text(encoding="utf-8"))
            for role in ROLES:
                if test[role]["category"] != src[role]["category"]:
                    bad(path, f"{role}: category differs from the cased file")
                want = [tr_lower(e) for e in src[role]["examples"]]
                if test[role]["examples"] != want:
                    bad(path, f"{role}: examples are not the Turkish lower-casing of {cased.name}")
                if any("\u0307" in e for e in test[role]["examples"]):
                    bad(path, f"{role}: contains U+0307 (plain str.lower of İ)")
    # Word-level tests and their bleached sentence versions hold the same words.
    for name, test in tests.items():
        if not name.startswith("sent-"):
            continue
        word = tests.get(name[len("sent-"):])
        if word is None:
            bad(directory / name, "has no word-level counterpart")
            continue
        for role in ROLES:
            words = word[role]["examples"]
            sents = test[role]["examples"]
            if len(sents) % len(words):
                bad(directory / name, f"{role}: {len(sents)} sentences for {len(words)} words")
                continue
            per = len(sents) // len(words)
            for i, w in enumerate(words):
                block = sents[i * per:(i + 1) * per]
                if not all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", s, re.IGNORECASE) for s in block):
                    bad(directory / name, f"{role}: sentences {i * per + 1}..{(i + 1) * per} do not all hold {w!r}")
    return tests


# ------------------------------------------------------------------ valence
def check_valence(path, vocab):
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        bad(path, f"cannot read: {e}")
        return None
    for key in ("name", "description", "mask", "lexicon", "sentences"):
        if key not in d:
            bad(path, f"missing field {key!r}")
            return None
    mask = d["mask"]
    stats = {"groups": {}, "ann": [], "split": [], "both_signs": 0}

    def token_ok(where, tok, val):
        if tok != tok.lower() or not re.fullmatch(r"[a-z']+", tok):
            bad(where, f"token {tok!r} must be one lowercase word")
        if val not in SCALE:
            bad(where, f"token {tok!r}: value {val} is not on the scale -1, -0.5, 0, 0.5, 1")
        if vocab is not None and tok not in vocab:
            bad(where, f"token {tok!r} is not one piece of the bert-base-uncased vocabulary")

    lex = d["lexicon"]
    for tok, val in lex.items():
        token_ok(f"{path} lexicon", tok, val)
    if not 50 <= len(lex) <= 90:
        bad(path, f"lexicon has {len(lex)} tokens, expected about 60")
    ids = set()
    for i, s in enumerate(d["sentences"], 1):
        sid = s.get("id", f"#{i}")
        where = f"{path} sentence {sid}"
        if set(s) != {"id", "group", "valence", "source", "text", "annotations"}:
            bad(where, f"fields must be id, group, valence, source, text, annotations; got {sorted(s)}")
            continue
        if sid in ids:
            bad(where, "duplicate id")
        ids.add(sid)
        g, v = s["group"], s["valence"]
        if g not in ("EME", "neutral", "ME"):
            bad(where, f"group {g!r} must be EME, neutral or ME")
        if v not in SCALE:
            bad(where, f"valence {v} not on the scale")
        if (g == "EME" and v not in (-1, -0.5)) or (g == "ME" and v not in (1, 0.5)) or (
            g == "neutral" and v not in (-0.5, 0, 0.5)
        ):
            bad(where, f"valence {v} does not fit group {g}")
        if not s["source"].strip():
            bad(where, "empty source")
        if s["text"].count(mask) != 1:
            bad(where, f"text must hold exactly one {mask}")
        ann = s["annotations"]
        if not 8 <= len(ann) <= 15:
            bad(where, f"{len(ann)} annotations, expected 8 to 15")
        for tok, val in ann.items():
            token_ok(where, tok, val)
        vals = set(ann.values())
        # A sentence's own period must be represented, and something to contrast it with.
        own = {"EME": min(vals) < 0 <= max(vals), "ME": min(vals) <= 0 < max(vals), "neutral": 0 in vals}
        if g in own and not own[g]:
            bad(where, f"annotations of a {g} sentence need a candidate of its period and one of another")
        if min(vals) < 0 < max(vals):
            stats["both_signs"] += 1
        stats["groups"][g] = stats["groups"].get(g, 0) + 1
        stats["ann"].append(len(ann))
    if stats["groups"] != {"EME": 20, "neutral": 20, "ME": 20}:
        bad(path, f"expected 20 sentences per group, got {stats['groups']}")
    stats["lexicon"] = len(lex)
    return stats


# -------------------------------------------------------------------- probe
def check_probe(directory, vocab):
    tpath = directory / "templates.txt"
    per_desc = {}
    for n, line in enumerate(tpath.read_text(encoding="utf-8").splitlines(), 1):
        found = PLACEHOLDER.findall(line)
        if len(found) != 1 or line.count("[") != 1:
            bad(f"{tpath} line {n}", "must hold exactly one [WORD:<descriptor>] placeholder")
            continue
        per_desc[found[0]] = per_desc.get(found[0], 0) + 1
    summary = {}
    for name, values in PROBE_VALUES.items():
        path = directory / f"{name}.csv"
        if not path.exists():
            bad(path, "missing")
            continue
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        if not rows or rows[0] != ["word", "value", "descriptor"]:
            bad(path, "header must be word,value,descriptor")
            continue
        seen, counts, split = set(), {v: 0 for v in values}, []
        for n, row in enumerate(rows[1:], 2):
            where = f"{path} line {n}"
            if len(row) != 3:
                bad(where, "must have 3 fields")
                continue
            word, value, desc = row
            if not re.fullmatch(r"[a-z]+", word):
                bad(where, f"word {word!r} must be one lowercase word (a-z)")
            if word in seen:
                bad(where, f"duplicate word {word!r}")
            seen.add(word)
            if value not in values:
                bad(where, f"value {value!r} must be one of {values}")
            else:
                counts[value] += 1
            if per_desc.get(desc, 0) < 4:
                bad(where, f"descriptor {desc!r} has {per_desc.get(desc, 0)} templates, needs at least 4")
            if vocab is not None and word not in vocab:
                split.append(word)
        for v, c in counts.items():
            if c < 40:
                bad(path, f"value {v!r} has only {c} words")
        summary[name] = (counts, len(split), len(seen))
    return per_desc, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", help="bert-base-uncased vocab.txt")
    args = ap.parse_args()
    vocab = load_vocab(args.vocab)

    tr = check_seat(ROOT / "seat/tr")
    check_seat(ROOT / "seat/tr-uncased", uncased_of=ROOT / "seat/tr")
    val = check_valence(ROOT / "valence/eme-me-60.json", vocab)
    per_desc, probe = check_probe(ROOT / "probe", vocab)

    print("lmbias dataset check")
    print(f"  vocabulary: {'bert-base-uncased, ' + str(len(vocab)) + ' pieces' if vocab else 'NOT FOUND (piece checks skipped)'}")
    sizes = {}
    for t in tr.values():
        key = "/".join(str(len(t[r]["examples"])) for r in ROLES)
        sizes[key] = sizes.get(key, 0) + 1
    print(f"  seat/tr: {len(tr)} tests (+ tr-uncased copy); X/Y/A/B sizes: "
          + ", ".join(f"{k} ×{v}" for k, v in sorted(sizes.items())))
    if val:
        a = val["ann"]
        print(f"  valence/eme-me-60.json: {sum(val['groups'].values())} sentences {val['groups']}, "
              f"{val['lexicon']} lexicon tokens, {sum(a)} annotations ({min(a)}-{max(a)} per sentence), "
              f"{val['both_signs']} sentences with both archaic and modern candidates")
    print(f"  probe/templates.txt: " + ", ".join(f"{d} {n}" for d, n in sorted(per_desc.items())))
    for name, (counts, nsplit, n) in probe.items():
        c = ", ".join(f"{v} {k}" for k, v in counts.items())
        print(f"  probe/{name}.csv: {n} words ({c}); not one piece: {nsplit}")
    if problems:
        print(f"FAILED: {len(problems)} problem(s)")
        for p in problems:
            print(f"  {p}")
        sys.exit(1)
    print("OK: all rules hold")


if __name__ == "__main__":
    main()
