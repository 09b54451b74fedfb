"""Every rule's VALID / INVALID examples are its tests (Fixit style).

Examples run against the adapter's real support registry, the one the
runtime implements (``test_examples_execute.py`` runs them); each rule is
checked alone.
"""

from __future__ import annotations

import ast

import pytest

from msnb.analyzer import analyze
from msnb.analyzer.engine import fix
from msnb.analyzer.finding import Category
from msnb.analyzer.rules import ALL_RULES, RULES_BY_CODE

VALID = [(r.CODE, i, ex) for r in ALL_RULES for i, ex in enumerate(r.VALID)]
INVALID = [(r.CODE, i, ex) for r in ALL_RULES for i, ex in enumerate(r.INVALID)]


@pytest.mark.parametrize(("code", "index", "example"), VALID, ids=[f"{c}-valid-{i}" for c, i, _ in VALID])
def test_valid(code, index, example):
    findings = analyze(example.code, mode=example.mode, context=example.context, rules=[code])
    assert [f for f in findings if f.rule == code] == []


@pytest.mark.parametrize(("code", "index", "example"), INVALID, ids=[f"{c}-invalid-{i}" for c, i, _ in INVALID])
def test_invalid(code, index, example):
    findings = analyze(example.code, mode=example.mode, context=example.context, rules=[code])
    mine = [f for f in findings if f.rule == code]
    assert mine, f"{code} did not fire on:\n{example.code}"
    first = mine[0]
    assert (first.line, first.col) == (example.line, example.col)
    assert first.severity == example.severity
    assert first.category == RULES_BY_CODE[code].CATEGORY
    assert first.fix == example.fix
    if example.fix is not None:
        ast.parse(example.fix)
        # the fix resolves the finding and is a fixed point
        assert fix(example.code, rules=[code], mode=example.mode, context=example.context) == example.fix
        assert fix(example.fix, rules=[code], mode=example.mode, context=example.context) == example.fix


def test_every_rule_is_documented_and_tested():
    codes = [r.CODE for r in ALL_RULES]
    assert len(codes) == len(set(codes))
    for r in ALL_RULES:
        assert r.CODE.startswith("MSN") and len(r.CODE) == 6
        assert r.MESSAGE and r.WHY and r.SUGGESTION and r.__doc__
        assert r.VALID and r.INVALID, r.CODE
        assert isinstance(r.CATEGORY, Category) and r.CATEGORY is not Category.SYNTAX
        assert r.DEFAULT_ENABLED == (not r.CODE.startswith("MSN9"))


def test_every_category_has_a_rule():
    covered = {r.CATEGORY for r in ALL_RULES}
    assert covered == set(Category) - {Category.SYNTAX}


def test_rule_files_follow_naming():
    import importlib

    for r in ALL_RULES:
        module = importlib.import_module(r.__module__)
        assert module.__name__.rsplit(".", 1)[1].startswith(r.CODE.lower() + "_")
