"""PyTorch's own operator and module test database, replayed through msnb.

Every evaluated (OpInfo or ModuleInfo, form, dtype) case runs its first
``opinfo.suite_limit(case)`` samples through msnb and real torch 2.13 and
compares values, dtypes, shapes and first-order gradients.  A case listed in
``expected_failures.py`` must fail (strict, as PyTorch's ``xfail``): when it
starts passing the entry has to go.  ``tools/opinfo_report.py`` replays every
sample and prints the figures.
"""

from __future__ import annotations

import concurrent.futures

import pytest

from msnb.adapter import opinfo

from ._cases import all_cases
from .expected_failures import EXPECTED_FAILURES

CASES = all_cases()
# ``make test`` runs pytest on two workers with ``--dist loadscope``, which keeps
# a test class on one worker: the replay is dealt round-robin into classes so
# the workers share it, while each other file stays whole on one worker
SHARDS = 8
# The cases run on one helper thread, from a shallow stack: PyTorch's sampling walks
# the caller's stack on every case (``extract_test_fn`` reads each frame's source
# looking for a unittest.TestCase; ``torch.manual_seed`` formats the stack for its
# lazy CUDA/XPU/MTIA seeding), which under pytest's ~45 frames cost ~0.2 s CPU per
# case: a shard of 304 cases took 71-79 s CPU, now 13-16 s.  No unittest.TestCase is
# on either stack, so the samples and their seeds are the same (tested below).
_REPLAYER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="opinfo-replay")


def _replay(case):
    out = _REPLAYER.submit(opinfo.run_case, case, limit=opinfo.suite_limit(case)).result()
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


def _drawn(case, limit=3):
    """The first samples of ``case`` as plain nested lists (input, args, kwargs)."""
    import torch

    def plain(x):
        if isinstance(x, torch.Tensor):
            return (str(x.dtype), x.detach().tolist())
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        return x

    samples = opinfo._sample_iter(case.info, case.dtype, True)
    return [plain([s.input, list(s.args), dict(s.kwargs)]) for _, s in zip(range(limit), samples)]


def test_the_replayer_thread_draws_the_samples_the_test_thread_draws():
    """The replay's helper thread gets PyTorch's samples (random values, seeded per
    sample) exactly as a direct call from the test does."""
    for key in ("add:function:float32", "addmm:function:float32", "scatter_add:function:float32"):
        case = next(c for c in CASES if c.key == key)
        direct = _drawn(case)
        assert direct and direct == _REPLAYER.submit(_drawn, case).result(), key
