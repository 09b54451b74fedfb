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
# ``make test`` runs pytest on two workers with ``--dist loadscope``, which keeps
# a test class on one worker: the replay is dealt round-robin into classes so
# the workers share it, while each other file stays whole on one worker
SHARDS = 8


def _replay(case):
    out = opinfo.run_case(case, limit=opinfo.suite_limit(case))
    reason = EXPECTED_FAILURES.get(case.key)
    if reason is None:
        assert out.ok, f"{case.key}: " + "; ".join(f"sample {i}: {why}" for i, why in out.failures[:3])
    else:
        assert not out.ok, (f"{case.key} passes now: remove it from tests/adapter/opinfo/expected_failures.py "
                            f"(listed as: {reason})")


def _shard(k):
    cases = CASES[k::SHARDS]

    def test_replay(self, case):
        _replay(case)

    test = pytest.mark.parametrize("case", cases, ids=[c.key for c in cases])(test_replay)
    return type(f"TestReplayShard{k}", (), {"test_replay": test, "__doc__": f"Cases {k}, {k} + {SHARDS}, ..."})


for _k in range(SHARDS):
    globals()[f"TestReplayShard{_k}"] = _shard(_k)
