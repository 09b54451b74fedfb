"""Rendering (HTML / text / diff), notebook scan and fix, generated docs."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from msnb.analyzer import analyze, fix
from msnb.analyzer.docs import render_rules_markdown
from msnb.analyzer.notebook import cell_mode, fix_notebook, format_location, scan_notebook, should_analyze
from msnb.analyzer.report import render_diff, render_html, render_text, summary

REPO = Path(__file__).resolve().parents[2]
CELL = ("import torch\nx = torch.ones(2).cuda()\nx.add_(1)\nprint(f'{x.sum():.2f} <b>')\n"
        "state = torch.load('model.pth')\n")


def test_render_text_and_html():
    findings = analyze(CELL, mode="graph", registry={})
    text = render_text(findings)
    assert "3:1: MSN201 info: in-place tensor method `.add_()`" in text
    assert "[fixable: %msnb fix]" in text and text.endswith(summary(findings))
    html = render_html(findings)
    assert html.count('<li class="msnb-finding') == len(findings)
    assert "MSN201" in html and "msnb-error" in html and "msnb-info" in html
    assert "<b>')" not in html  # user code is escaped
    assert "<code>.add_()</code>" in html and "`" not in html.split("title=")[0]  # backticks become code
    assert render_text([]) == "" and render_html([]) == ""
    assert render_text(findings, prefix="nb.ipynb:cell 2").splitlines()[0].startswith("nb.ipynb:cell 2:2:5: ")


def test_summary_counts():
    findings = analyze(CELL, mode="graph", registry={})
    s = summary(findings + analyze("import torch\nimport numpy as np\ny = np.exp(torch.ones(2))\n"))
    assert "error" in s and "info" in s and "warning" in s


def test_render_diff():
    new = fix(CELL)
    diff = render_diff(CELL, new)
    assert diff.startswith("--- cell (before)\n+++ cell (fixed)\n")
    assert "-x.add_(1)\n" in diff and "+x = x.add(1)\n" in diff
    assert render_diff(CELL, CELL) == ""
    assert render_diff("a", "b").endswith("\n")


def _notebook(tmp_path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# title"),
        nbformat.v4.new_code_cell("import torch\nimport torch.nn as nn\ncriterion = nn.MSELoss()"),
        nbformat.v4.new_code_cell("%%bash\necho hi"),
        nbformat.v4.new_code_cell("%%torch_on_ascend --mode graph\nx = torch.ones(2)\nx.add_(1)\n"
                                  "loss = criterion(x, x)\nprint(f'{loss:.3f}')"),
        nbformat.v4.new_code_cell("y = 1 + 1"),
    ]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_scan_notebook(tmp_path):
    path = _notebook(tmp_path)
    results = scan_notebook(path, registry={})
    by_rule = {(i, f.rule): f for i, f in results}
    assert {i for i, _ in results} <= {1, 3}
    inplace = by_rule[(3, "MSN201")]
    assert inplace.severity.value == "info"  # msnb's graph mode runs in-place updates: advice
    assert format_location(path, 3, inplace) == "nb.ipynb:cell 4:3:1"
    assert (3, "MSN301") in by_rule  # `loss` known from cell 1's criterion
    assert not any(i == 4 for i, _ in results)  # plain cell without torch import


def test_fix_notebook_in_place_writes_backup(tmp_path):
    path = _notebook(tmp_path)
    original = path.read_text()
    changed = fix_notebook(path, registry={})
    assert changed == [3]
    assert (tmp_path / "nb.ipynb.bak").read_text() == original
    nb = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    src = nb.cells[3].source
    assert src.startswith("%%torch_on_ascend --mode graph\n")
    assert "x = x.add(1)" in src and "loss.item():.3f" in src
    ast.parse(src.split("\n", 1)[1])
    # running again changes nothing and writes nothing
    assert fix_notebook(path, registry={}) == []


def test_fix_notebook_out_path_and_refusal(tmp_path):
    path = _notebook(tmp_path)
    out = tmp_path / "fixed.ipynb"
    assert fix_notebook(path, out, backup=False, registry={}) == [3]
    assert out.exists() and not (tmp_path / "nb.ipynb.bak").exists()
    with pytest.raises(FileExistsError):
        fix_notebook(path, out, backup=False, registry={})
    with pytest.raises(FileExistsError):
        fix_notebook(path, backup=False, registry={})


def test_cell_selection_helpers():
    assert should_analyze("%%torch_on_ascend\nx = 1")
    assert should_analyze("import torch\n")
    assert should_analyze("from torchvision import transforms")
    assert not should_analyze("%%bash\nimport torch")
    assert not should_analyze("x = 1")
    assert cell_mode("%%torch_on_ascend --mode graph\n") == "graph"
    assert cell_mode("%%torch_on_ascend --graph\n") == "graph"
    assert cell_mode("%%torch_on_ascend\n") == "pynative"


def test_docs_rules_md_is_up_to_date():
    committed = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == render_rules_markdown(), "regenerate: python -m msnb.analyzer.docs > docs/rules.md"


def test_docs_mention_every_rule():
    text = render_rules_markdown()
    from msnb.analyzer.rules import ALL_RULES

    for r in ALL_RULES:
        assert f"## {r.CODE} {r.NAME}" in text
