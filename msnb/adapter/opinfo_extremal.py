"""PyTorch's OpInfo samples replayed with extremal values: NaN, +inf, -inf and signed zeros.

:mod:`msnb.adapter.opinfo` replays PyTorch's samples as drawn (ordinary finite values).
Kernels differ most where values are extremal: a reduction that skips NaN where PyTorch
propagates it, ``x / -0.0`` giving ``+inf``, a sort placing NaN first.  Such a difference
is a silent wrong result, so this replay takes the floating-point samples of every OpInfo,
writes extremal values into each of their floating tensors at deterministic positions, and
compares msnb with real torch on the same inputs: forward values with NaN equal to NaN,
dtypes and shapes exactly, and gradients where torch's are finite.

The report replays each sample in the first three *variants*:

``nan``
    one NaN per floating tensor;
``inf``
    one ``+inf`` and one ``-inf`` per floating tensor (a single ``+inf`` in a one-element one);
``zero``
    every fourth element ``-0.0`` and every fourth other one ``+0.0``;
``mixed``
    all at once, for the test suite's single pass: every eighth element ``-0.0``, ``+inf``,
    ``+0.0`` and ``-inf`` in turn, and one NaN.

The positions shift with the tensor's rank among the sample's floating tensors, so that the
two operands of a binary op hold their extremal values in different places (``1 / -0.0``,
not only ``-0.0 / -0.0``).  A variant on which torch itself raises is not compared.

``tests/adapter/opinfo/test_extremal_values.py`` replays one sample per op, ``mixed``, against ``tests/adapter/opinfo/expected_extremal_failures.py``;
``tools/opinfo_report.py --extremal`` replays them all and prints the figures.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass

from msnb.adapter import opinfo as O

__all__ = ["VARIANTS", "ExtremalOutcome", "extremal_cases", "inject", "run_extremal_case", "suite_cases",
           "SUITE_LIMIT", "SUITE_VARIANTS"]

VARIANTS = ("nan", "inf", "zero")
#: floating samples per case, and their variants, that the test suite replays
SUITE_LIMIT = 1
SUITE_VARIANTS = ("mixed",)


@dataclass
class ExtremalOutcome(O.Outcome):
    """An :class:`~msnb.adapter.opinfo.Outcome` that also counts the variants torch refused."""

    refused: int = 0

    @property
    def evaluated(self):
        return self.passed + self.failed > 0


def _positions(n, k, variant):
    """``[(flat index, value)]`` for a floating tensor of ``n`` elements, ``k``-th in its sample."""
    nan, inf = float("nan"), float("inf")
    if variant == "nan":
        return [((n // 3 + k) % n, nan)]
    if variant == "inf":
        hi, lo = (n // 4 + k) % n, (3 * n // 4 + k) % n
        return [(hi, inf)] + ([(lo, -inf)] if lo != hi else [])
    if variant == "zero":
        return [(i, -0.0 if (i + k) % 4 == 0 else 0.0) for i in range(n) if (i + k) % 2 == 0]
    if variant == "mixed":
        cycle = {0: -0.0, 2: inf, 4: 0.0, 6: -inf}
        j = (n // 3 + k) % n
        j = (j + 1) % n if (j + k) % 2 == 0 else j  # the NaN between the others where there is room
        return [(i, cycle[(i + k) % 8]) for i in range(n) if (i + k) % 8 in cycle] + [(j, nan)]
    raise ValueError(f"unknown extremal variant {variant!r}")


def _is_float(x):
    import torch
    return isinstance(x, torch.Tensor) and x.dtype.is_floating_point and x.layout == torch.strided and x.numel() > 0


def inject(sample, variant):
    """A copy of ``sample`` whose floating tensors hold ``variant``'s extremal values, or None
    when it has no floating tensor.  A tensor passed twice stays one tensor; gradients are
    required where the original required them."""
    import torch
    memo = {}
    count = [0]

    def one(x):
        if isinstance(x, torch.Tensor):
            if id(x) in memo:
                return memo[id(x)]
            if not _is_float(x):
                return x
            t = x.detach().clone(memory_format=torch.contiguous_format)
            flat = t.view(-1)
            for i, v in _positions(t.numel(), count[0], variant):
                flat[i] = v
            count[0] += 1
            t.requires_grad_(x.requires_grad)
            memo[id(x)] = t
            return t
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*(one(v) for v in x))
        if isinstance(x, (list, tuple)):
            return type(x)(one(v) for v in x)
        if isinstance(x, dict):
            return {k: one(v) for k, v in x.items()}
        return x

    new = copy.copy(sample)
    new.input, new.args, new.kwargs = one(sample.input), one(tuple(sample.args)), one(dict(sample.kwargs))
    return new if count[0] else None


def extremal_cases(op_db, dtypes=("float32",)):
    """The op cases (function and method forms) of floating dtypes whose values are compared."""
    return [c for c in O.op_cases(op_db) if c.dtype in dtypes and not _random(c)]


def _random(case):
    name = case.info.name
    return any(name == r or name.startswith(r + ".") for r in O.RANDOM_OPS)


def suite_cases(cases):
    """The cases the test suite replays: each op's primary form (function, else method)."""
    functions = {c.key.split(":")[0] + ":" + c.dtype for c in cases if c.form == "function"}
    return [c for c in cases if c.form == "function" or c.key.split(":")[0] + ":" + c.dtype not in functions]


def run_extremal_case(case, limit=None, variants=VARIANTS) -> ExtremalOutcome:
    """Replay up to ``limit`` samples holding a floating tensor (all when None), in ``variants``.
    A failure is recorded as ``("<sample index>/<variant>", reason)``."""
    import torch
    res = ExtremalOutcome(case)
    op = case.info
    grad = op.supports_autograd
    try:
        fn = O._resolve_function(case) if case.form == "function" else None
        samples = O._sample_iter(op, case.dtype, grad)
    except Exception as e:  # noqa: BLE001 - a missing name is a failure of every sample
        res.failed = 1
        res.failures.append(("0/all", O.reason_of(e)))
        return res
    torch.manual_seed(0)
    floating = ((i, s) for i, s in enumerate(samples) if inject(s, "nan") is not None)
    for i, sample in itertools.islice(floating, limit):
        for variant in variants:
            try:
                O._replay_op_sample(case, inject(sample, variant), fn, extremal=True)
            except O.TorchRefused:
                res.refused += 1
            except Exception as e:  # noqa: BLE001 - every failure is recorded with its reason
                res.failed += 1
                res.failures.append((f"{i}/{variant}", O.reason_of(e)))
            else:
                res.passed += 1
    return res
