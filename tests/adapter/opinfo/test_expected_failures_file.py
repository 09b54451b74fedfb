"""The expected-failures list stays honest: every entry names a real case and says why."""

from ._cases import all_cases
from .expected_failures import EXPECTED_FAILURES


def test_every_entry_is_a_replayed_case_with_a_reason():
    keys = {c.key for c in all_cases()}
    stale = sorted(set(EXPECTED_FAILURES) - keys)
    assert not stale, f"entries that are not replayed cases: {stale[:10]}"
    assert all(isinstance(r, str) and r.strip() for r in EXPECTED_FAILURES.values())
