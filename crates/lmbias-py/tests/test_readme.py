"""The README's Python examples run as written (from the repository root, as it says)."""

import re

import pytest

from conftest import REPO

README = (REPO / "README.md").read_text()
SECTION = README[README.index("\n## Python\n") :]
SECTION = SECTION[: SECTION.index("\n## ", 1)]
BLOCKS = re.findall(r"```python\n(.*?)```", SECTION, re.S)
NOTEBOOK = re.search(r"<!-- python-notebook-example -->\n```python\n(.*?)```", SECTION, re.S)


def test_the_section_has_both_examples():
    assert len(BLOCKS) == 2 and NOTEBOOK is not None and NOTEBOOK.group(1) in BLOCKS


@pytest.mark.parametrize("block", BLOCKS, ids=["one-cell-weat", "notebook"])
def test_example_runs_as_written(block, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    # The one-cell example's promise: all 2 704 156 splits enumerated.
    if "n_samples=3_000_000" in block:
        assert "exact=True, n_partitions=2704156, n_evaluated=2704156)" in out
    else:
        assert "Math vs Arts WeatResult(" in out and "weat8" in out and "(2, 32) float32" in out
