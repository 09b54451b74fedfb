"""Severities tell the truth (issue #14.1): every rule example is run under
msnb's runtime (and under real PyTorch 2.13 as the oracle) and the severity
its rule claims is checked against what the cell really does.

* ``error``: the cell fails under msnb;
* ``warning``: it runs, and either graph mode ran part of it in PyNative or
  its output (stdout, tensor values) differs from PyTorch's;
* ``info`` (advice) and VALID examples: the cell runs under msnb.

Examples are analyzed here with the real support registry, since that is
what the runtime implements.
"""

from __future__ import annotations

import pytest

from msnb.analyzer import Severity, analyze
from msnb.analyzer.rules import ALL_RULES

from ._execute import run_msnb, run_torch

INVALID = [(r.CODE, i, ex) for r in ALL_RULES for i, ex in enumerate(r.INVALID)]
VALID = [(r.CODE, i, ex) for r in ALL_RULES for i, ex in enumerate(r.VALID)]


@pytest.mark.parametrize(("code", "index", "example"), INVALID, ids=[f"{c}-invalid-{i}" for c, i, _ in INVALID])
def test_invalid_example_does_what_its_severity_says(code, index, example):
    found = [f for f in analyze(example.code, mode=example.mode, context=example.context, rules=[code])
             if f.rule == code]
    assert found and found[0].severity is example.severity, f"{code} with the real registry: {found}"
    ran = run_msnb(example.code, example.context, example.mode)
    if example.severity is Severity.ERROR:
        assert ran.error is not None, f"{code} says error but the cell runs under msnb"
        return
    assert ran.error is None, f"{code} says {example.severity} but the cell fails under msnb: {ran.error}"
    if example.severity is Severity.WARNING:
        oracle = run_torch(example.code, example.context)
        assert oracle.error is None, f"example does not run on PyTorch either: {oracle.error}"
        differs = not ran.same_as(oracle)
        assert differs or ran.fallbacks > 0, f"{code} says warning but msnb runs it exactly as PyTorch"


@pytest.mark.parametrize(("code", "index", "example"), VALID, ids=[f"{c}-valid-{i}" for c, i, _ in VALID])
def test_valid_example_runs_under_msnb(code, index, example):
    ran = run_msnb(example.code, example.context, example.mode)
    assert ran.error is None, f"{code} valid example fails under msnb: {ran.error}"
