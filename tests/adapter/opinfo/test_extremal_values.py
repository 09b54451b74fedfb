"""PyTorch's OpInfo samples with NaN, +-inf and signed zeros written into them, through msnb.

Ordinary samples hide the silent wrong results that sit at extremal values (a max that
skips NaN, ``x / -0.0`` of the wrong sign).  Each op's primary form (function, else method)
replays its first floating float32 sample in the ``mixed`` variant of
:mod:`msnb.adapter.opinfo_extremal` against real torch 2.13.  A case listed in
``expected_extremal_failures.py`` must fail (strict, as PyTorch's ``xfail``); an unlisted one
must pass.  ``tools/opinfo_report.py --extremal`` replays every sample in every variant.
"""

from __future__ import annotations

import concurrent.futures

import pytest

from msnb.adapter import opinfo_extremal

from ._cases import extremal_cases
from .expected_extremal_failures import EXPECTED_EXTREMAL_FAILURES

CASES = extremal_cases()
SHARDS = 4
# one helper thread with a shallow stack, as in test_opinfo_replay (PyTorch's sampling walks
# the caller's stack on every case)
_REPLAYER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="opinfo-extremal")


def _replay(case):
    out = _REPLAYER.submit(opinfo_extremal.run_extremal_case, case, opinfo_extremal.SUITE_LIMIT,
                           opinfo_extremal.SUITE_VARIANTS).result()
    reason = EXPECTED_EXTREMAL_FAILURES.get(case.key)
    if reason is None:
        assert out.failed == 0, f"{case.key}: " + "; ".join(f"{i}: {why}" for i, why in out.failures[:3])
    else:
        assert out.failed, (f"{case.key} passes now: remove it from "
                            f"tests/adapter/opinfo/expected_extremal_failures.py (listed as: {reason})")


def _shard(k):
    cases = CASES[k::SHARDS]

    def test_extremal(self, case):
        _replay(case)

    test = pytest.mark.parametrize("case", cases, ids=[c.key for c in cases])(test_extremal)
    return type(f"TestExtremalShard{k}", (), {"test_extremal": test, "__doc__": f"Cases {k}, {k} + {SHARDS}, ..."})


for _k in range(SHARDS):
    globals()[f"TestExtremalShard{_k}"] = _shard(_k)


def test_every_listed_case_is_replayed_with_a_reason():
    stale = sorted(set(EXPECTED_EXTREMAL_FAILURES) - {c.key for c in CASES})
    assert not stale, f"entries that are not replayed cases: {stale[:10]}"
    assert all(isinstance(r, str) and r.strip() for r in EXPECTED_EXTREMAL_FAILURES.values())


def test_injection_places_every_extremal_value_and_keeps_the_sample():
    """The variants write what they say, where they say, into copies (the drawn sample is
    unchanged), shifted between operands so that ``a / b`` meets ``1 / -0.0``."""
    import math

    import torch
    from torch.testing._internal.opinfo.core import SampleInput
    a = torch.arange(1.0, 9.0, requires_grad=True)
    b = torch.arange(1.0, 9.0)
    s = SampleInput(a, args=(b, torch.tensor([1, 2])))
    mixed = opinfo_extremal.inject(s, "mixed")
    x, y = mixed.input.tolist(), mixed.args[0].tolist()
    assert math.isnan(x[3]) and x[2] == math.inf and x[6] == -math.inf and sum(map(math.isnan, x)) == 1
    assert x[0] == 0.0 and math.copysign(1.0, x[0]) < 0 and math.copysign(1.0, x[4]) > 0
    assert y[7] == 0.0 and math.copysign(1.0, y[7]) < 0 and x[7] == 8.0  # 8 / -0.0 is evaluated
    assert mixed.input.requires_grad and mixed.args[1] is s.args[1]
    assert a.tolist() == list(range(1, 9)) and not a.isnan().any()
    nan = opinfo_extremal.inject(s, "nan")
    assert int(nan.input.isnan().sum()) == 1 and int(nan.args[0].isnan().sum()) == 1
    inf = opinfo_extremal.inject(s, "inf")
    assert sorted(v for v in inf.input.tolist() if math.isinf(v)) == [-math.inf, math.inf]
    assert opinfo_extremal.inject(SampleInput(torch.tensor([1, 2])), "nan") is None


def test_the_replay_catches_a_silent_wrong_result(monkeypatch):
    """A kernel that skips NaN (as MindSpore's ReduceMax did) fails the replay: it is no tautology."""
    import msnb.adapter.torch as mt
    case = next(c for c in CASES if c.key == "amax:function:float32")
    assert opinfo_extremal.run_extremal_case(case, 1, ("nan",)).failed == 0
    monkeypatch.setattr(mt, "amax", lambda x, *a, **k: mt.nan_to_num(x, nan=0.0).amax(*a, **k))
    out = opinfo_extremal.run_extremal_case(case, 1, ("nan",))
    assert out.failed == 1 and "torch nan" in out.failures[0][1]
