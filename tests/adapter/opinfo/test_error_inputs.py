"""PyTorch's bad-input database (OpInfo ``error_inputs``), replayed through msnb.

Where PyTorch raises, msnb must raise the same exception type, with a message
PyTorch's ``error_regex`` for the input matches (where it gives one).  Every error
input of every evaluated op runs (all of them take ~15 s); a case listed in
``expected_error_mismatches.py`` must still mismatch (strict, as PyTorch's
``xfail``), so a fix has to remove its entry.  ``tools/opinfo_report.py
--errors-only`` prints the figures.
"""

from __future__ import annotations

import pytest

from msnb.adapter import opinfo_errors

from ._cases import error_cases
from .expected_error_mismatches import EXPECTED_ERROR_MISMATCHES

CASES = error_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_error_input(case):
    out = opinfo_errors.run_error_case(case)
    listed = EXPECTED_ERROR_MISMATCHES.get(case.key)
    if listed is None:
        assert out.matches, f"{case.key}: {opinfo_errors.mismatch_reason(out)}"
    else:
        assert not out.matches, (f"{case.key} raises PyTorch's {case.error_type.__name__} now: remove it from "
                            f"tests/adapter/opinfo/expected_error_mismatches.py (listed as: {listed})")


def test_the_replay_classifies_outcomes():
    """A known-good and a known-bad input classify as such (the replay is no tautology)."""
    by_key = {c.key: c for c in CASES}
    same = opinfo_errors.run_error_case(by_key["arange:error:0"])  # step 0: RuntimeError in both
    assert same.status == "same" and same.raised == "RuntimeError" and same.regex
    assert all(o in opinfo_errors.STATUSES for o in
               (opinfo_errors.run_error_case(c).status for c in CASES[:20]))
    # torch.cat(..., out=) into one of its inputs: the replay's copies cannot share memory
    aliased = opinfo_errors.run_error_case(by_key["cat:error:6"])
    assert aliased.status == "not_replayable" and "shares memory" in aliased.reason
    # an error input torch itself accepts (PyTorch's own test marks it an expected failure)
    lax = opinfo_errors.run_error_case(by_key["clamp_max:error:0"])
    assert lax.status == "not_replayable" and "real torch returns a value" in lax.reason
