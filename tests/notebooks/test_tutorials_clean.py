"""Every shipped tutorial is committed clean: it opens unmodified and reads well.

A notebook saved from a real top-to-bottom run has execution counts 1, 2, 3...
in cell order, no error outputs, no per-cell timing metadata, and is already in
the form nbformat writes (so opening and saving it changes nothing). These
checks read files only; nbval (`pytest notebooks/`) re-executes them.
"""

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("0*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_valid_and_resaves_unchanged(path):
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nbformat.writes(nb) + "\n" == text or nbformat.writes(nb) == text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_was_executed_in_order_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    errors = [o.ename for c in code for o in c.outputs if o.output_type == "error"]
    assert errors == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_no_run_noise_in_metadata(path):
    nb = nbformat.read(path, as_version=4)
    noisy = [i for i, c in enumerate(nb.cells) if set(c.metadata) - {"tags"}]
    assert noisy == []
    assert set(nb.metadata) <= {"kernelspec", "language_info", "widgets"}
