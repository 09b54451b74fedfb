"""Suppression as Ruff / Fixit users expect (issue #14.3): ``ignore=`` on the
API (codes or rule names), ``# msnb: ignore[CODE]`` / ``# msnb: ignore`` on a
line; an unknown code is a clear ``ValueError``; ignored findings are not fixed."""

from __future__ import annotations

import pytest

from msnb.analyzer import analyze, fix

CELL = "import torch\nx = torch.ones(3).cuda()\ny = torch.ones(3).cuda()\nprint(f'{x.sum():.2f}')\n"


def _rules(findings):
    return sorted((f.rule, f.line) for f in findings)


def test_ignore_parameter_takes_codes_names_and_comma_strings():
    assert _rules(analyze(CELL)) == [("MSN101", 2), ("MSN101", 3), ("MSN301", 4)]
    assert _rules(analyze(CELL, ignore=["MSN101"])) == [("MSN301", 4)]
    assert _rules(analyze(CELL, ignore="cuda-call, msn301")) == []
    assert _rules(analyze(CELL, ignore=())) == _rules(analyze(CELL))


def test_unknown_code_is_a_clear_value_error():
    with pytest.raises(ValueError, match="unknown rule code.*MSN999"):
        analyze(CELL, ignore=["MSN999"])
    with pytest.raises(ValueError, match="MSN42"):
        fix(CELL, ignore="MSN42")


def test_line_comment_with_codes_and_bare():
    src = ("import torch\nx = torch.ones(3).cuda()  # msnb: ignore[MSN101]\n"
           "y = torch.ones(3).cuda()  # msnb: ignore[MSN301]\nz = y.cuda()  # MSNB: Ignore\n")
    assert _rules(analyze(src)) == [("MSN101", 3)]


def test_ignored_findings_are_not_fixed():
    fixed = fix(CELL, ignore=["MSN101"])
    assert fixed.count(".cuda()") == 2 and "x.sum().item():.2f" in fixed
    src = "import torch\nx = torch.ones(3).cuda()  # msnb: ignore\ny = torch.ones(3).cuda()\n"
    out = fix(src)
    assert "x = torch.ones(3).cuda()  # msnb: ignore" in out and "y = torch.ones(3).to(device)" in out
