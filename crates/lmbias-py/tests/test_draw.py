"""`lmbias.draw_sentences` and `lmbias.draw_pairs`: what the CLI writes, from the same files,
and bad corpora raise ValueError with the CLI's one-line message."""

import json

import pytest

import lmbias


def corpora(tmp_path):
    early, modern = [], []
    for k in range(12):
        if k % 2 == 0:
            early.append(f"and he spoke of thee and bread {k}")
            modern.append(f"and he spoke of you and bread {k}")
        else:
            early.append(f"the river runs west {k}")
            modern.append(f"the river runs west {k}")
    files = [tmp_path / n for n in ("early.txt", "modern.txt", "early-train.txt", "modern-train.txt")]
    texts = [
        early,
        modern,
        [f"he hath said unto thee that thou art line {i}" for i in range(60)],
        [f"he has said to you that you are line {i}" for i in range(60)],
    ]
    for file, lines in zip(files, texts):
        file.write_text("".join(line + "\n" for line in lines))
    return files


def test_the_functions_write_what_the_cli_writes(tmp_path, cli):
    files = corpora(tmp_path)
    held, training = (files[0], files[1]), (files[2], files[3])
    ours = tmp_path / "ours.json"
    dataset = lmbias.draw_sentences(held, training, out=ours, per_group=2, seed=3)
    theirs = tmp_path / "theirs.json"
    code, _, err = cli(
        "draw-sentences", "--held-out", *map(str, held), "--training", *map(str, training),
        "--out", str(theirs), "--per-group", "2", "--seed", "3",
    )
    assert code == 0, err
    assert ours.read_bytes() == theirs.read_bytes()
    assert dataset == json.loads(theirs.read_text())
    assert sum(s["id"].startswith("eme-") for s in dataset["sentences"]) == 2

    rows = lmbias.draw_pairs(held, training, out=tmp_path / "ours.csv")
    code, _, err = cli(
        "draw-pairs", "--held-out", *map(str, held), "--training", *map(str, training),
        "--out", str(tmp_path / "theirs.csv"),
    )
    assert code == 0, err
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "theirs.csv").read_bytes()
    assert len(rows) == 6
    assert rows[0] == {
        "line": 1,
        "sent_more": "and he spoke of thee and bread 0",
        "sent_less": "and he spoke of you and bread 0",
        "changed_early_modern": ["thee"],
        "changed_modern": ["you"],
    }


def test_bad_corpora_raise_value_error(tmp_path):
    files = corpora(tmp_path)
    held, training = (files[0], files[1]), (files[2], files[3])
    with pytest.raises(ValueError, match=r"too few for 50 Early Modern and 50 Modern sentences$"):
        lmbias.draw_sentences(held, training, out=tmp_path / "d.json", per_group=50)
    assert not (tmp_path / "d.json").exists()
    with pytest.raises(ValueError, match=r"^per_group 0: must be at least 1$"):
        lmbias.draw_sentences(held, training, out=tmp_path / "d.json", per_group=0)
    files[1].write_text("one line\n")
    with pytest.raises(ValueError, match=r"not aligned \(12 passages against 1\)"):
        lmbias.draw_pairs(held, training, out=tmp_path / "p.csv")


def test_hold_out_writes_what_the_cli_writes(tmp_path, cli):
    early = "".join(f"and he spoke of thee and bread {i}\n" for i in range(120))
    modern = "".join(f"and he spoke of you and bread {i}\n" for i in range(120))
    (tmp_path / "e.txt").write_text(early)
    (tmp_path / "m.txt").write_text(modern)
    corpora = (tmp_path / "e.txt", tmp_path / "m.txt")
    ours = lmbias.hold_out(corpora, out=tmp_path / "ours", share=0.25, seed=3)
    code, out, err = cli(
        "hold-out", "--corpora", *map(str, corpora), "--share", "0.25", "--seed", "3",
        "--out", str(tmp_path / "theirs"),
    )
    assert code == 0, err
    assert (ours["held"], ours["passages"]) == (30, 120)
    for name in ("early-training.txt", "modern-training.txt", "early-held-out.jsonl", "modern-held-out.jsonl"):
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "theirs" / name).read_bytes()
    with pytest.raises(ValueError, match=r"^share 0: the share of passages held out must be above 0 and below 1$"):
        lmbias.hold_out(corpora, out=tmp_path / "x", share=0.0)


def test_an_out_that_is_an_input_is_refused_before_anything_is_written(tmp_path):
    files = corpora(tmp_path)
    held, training = (files[0], files[1]), (files[2], files[3])
    before = files[2].read_bytes()
    with pytest.raises(ValueError, match=r"^out .*: the same file as training .*: writing it would destroy that input$"):
        lmbias.draw_pairs(held, training, out=files[2])
    assert files[2].read_bytes() == before
    with pytest.raises(ValueError, match=r"^out .*: the same file as held_out "):
        lmbias.draw_sentences(held, training, out=files[0], per_group=2)
    # A corpus where the split would write its Early Modern training text.
    split = tmp_path / "split"
    split.mkdir()
    corpus = split / "early-training.txt"
    corpus.write_bytes(files[0].read_bytes())
    with pytest.raises(ValueError, match=r"^out .*early-training.txt: the same file as corpora "):
        lmbias.hold_out((corpus, files[1]), out=split, share=0.5)
    assert corpus.read_bytes() == files[0].read_bytes()
