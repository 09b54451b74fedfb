"""Fixes that fix (issue #14.4): after ``fix`` the re-analysis reports none of
the findings it fixed; the code is what a careful person writes (one
``device`` defined once, the real variable and spec in format rewrites); the
diff renders as coloured HTML; line endings are kept."""

from __future__ import annotations

from msnb.analyzer import analyze, fix
from msnb.analyzer.report import render_diff, render_diff_html

CUDA_CELL = ("import torch\nimport torch.nn as nn\nx = torch.ones(4, 3).cuda()\nnet = nn.Linear(3, 2).cuda()\n"
             "y = torch.zeros(2, device='cuda')\nout = net(x) + y\nloss = out.sum()\nprint(f'{loss:>9.3f}')\n")


def test_refix_reports_none_of_the_fixed_findings():
    before = {(f.rule, f.line) for f in analyze(CUDA_CELL) if f.fixable}
    assert {r for r, _ in before} == {"MSN101", "MSN103", "MSN301"}
    fixed = fix(CUDA_CELL)
    assert [f for f in analyze(fixed) if f.rule in {"MSN101", "MSN103", "MSN301"}] == []
    assert analyze(fixed) == []  # nothing new either, advice included


def test_one_device_variable_defined_once_after_the_imports():
    fixed = fix(CUDA_CELL).splitlines()
    assert fixed[2] == 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'
    body = "\n".join(fixed[3:])
    assert body.count("torch.cuda.is_available") == 0 and body.count("device") == 4
    assert "x = torch.ones(4, 3).to(device)" in body and "y = torch.zeros(2, device=device)" in body


def test_an_existing_device_is_reused_and_not_redefined():
    src = "import torch\ndev = 0\ndevice = torch.device('cpu')\nx = torch.ones(2).cuda()\n"
    assert fix(src) == "import torch\ndev = 0\ndevice = torch.device('cpu')\nx = torch.ones(2).to(device)\n"


def test_format_rewrite_keeps_the_variable_and_the_spec():
    (f,) = [f for f in analyze(CUDA_CELL) if f.rule == "MSN301"]
    assert f.suggestion == "Format the Python number: `{loss.item():>9.3f}`."
    assert "print(f'{loss.item():>9.3f}')" in fix(CUDA_CELL)


def test_line_endings_are_kept():
    for nl in ("\n", "\r\n", "\r"):
        src = nl.join(["%matplotlib inline", "import torch", "x = torch.ones(2).cuda()", "print(x)", ""])
        out = fix(src)
        assert out.split(nl)[0] == "%matplotlib inline" and out.endswith(nl)
        assert out.count(nl) == src.count(nl) + 1  # the device line
        assert "x = torch.ones(2).to(device)" in out
        if nl != "\r\n":
            assert ("\r" in out) == (nl == "\r") and ("\n" in out) == (nl == "\n")


def test_diff_renders_as_coloured_html():
    fixed = fix(CUDA_CELL)
    page = render_diff_html(CUDA_CELL, fixed)
    assert page.startswith('<pre class="msnb-diff"') and "#e6ffec" in page and "#ffebe9" in page
    assert "+x = torch.ones(4, 3).to(device)" in page and "&#x27;" in page  # escaped quotes
    assert render_diff_html(CUDA_CELL, CUDA_CELL) == "" and render_diff(CUDA_CELL, fixed).startswith("--- cell")
