"""PyTorch's own operator and module test database, replayed through msnb.

Every evaluated (OpInfo or ModuleInfo, form, dtype) case runs its first
``opinfo.suite_limit(case)`` samples through msnb and real torch 2.13 and
compares values, dtypes, shapes and first-order gradients.  A case listed in
``expected_failures.py`` must fail (strict, as PyTorch's ``xfail``): when it
starts passing the entry has to go.  ``tools/opinfo_report.py`` replays every
sample and prints the figures.
"""

from __future__ import annotations

import pytest

from msnb.adapter import opinfo

from ._cases import all_cases
from .expected_failures import EXPECTED_FAILURES

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_replay(case):
    out = opinfo.run_case(case, limit=opinfo.suite_limit(case))
    reason = EXPECTED_FAILURES.get(case.key)
    if reason is None:
        assert out.ok, f"{case.key}: " + "; ".join(f"sample {i}: {why}" for i, why in out.failures[:3])
    else:
        assert not out.ok, (f"{case.key} passes now: remove it from tests/adapter/opinfo/expected_failures.py "
                            f"(listed as: {reason})")
