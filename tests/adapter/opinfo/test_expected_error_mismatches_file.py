"""The expected error-mismatch list stays honest: every entry names a real case and says why."""

from ._cases import error_cases
from .expected_error_mismatches import EXPECTED_ERROR_MISMATCHES


def test_every_entry_is_a_replayed_error_case_with_a_reason():
    keys = {c.key for c in error_cases()}
    stale = sorted(set(EXPECTED_ERROR_MISMATCHES) - keys)
    assert not stale, f"entries that are not replayed error cases: {stale[:10]}"
    assert all(isinstance(r, str) and r.strip() for r in EXPECTED_ERROR_MISMATCHES.values())
    assert all(":error:" in k for k in EXPECTED_ERROR_MISMATCHES)
