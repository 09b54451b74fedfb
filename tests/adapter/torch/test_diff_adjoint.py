"""Differential tests of the conjugate transposes ``Tensor.mH``, ``Tensor.H`` and
``torch.adjoint`` / ``Tensor.adjoint`` against real PyTorch: real and complex
values, batches, gradients, and PyTorch's errors for the ranks each refuses."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(2)
MAT = rng.standard_normal((3, 4))
BATCH = rng.standard_normal((2, 3, 4))
CPLX = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(np.complex64)
MH, H, ADJ = registered("torch.Tensor.mH"), registered("torch.Tensor.H"), registered("torch.adjoint",
                                                                                         "torch.Tensor.adjoint")

CASES = [
    case("mH_matrix", MH, lambda t, a: a.mH * 2, MAT),
    case("mH_batch", MH, lambda t, a: a.mH.sum(-1), BATCH),
    case("H_matrix", H, lambda t, a: a.H @ a, MAT),
    case("adjoint_function", ADJ, lambda t, a: t.adjoint(a), BATCH),
    case("adjoint_method", ADJ, lambda t, a: a.adjoint().exp(), MAT),
    case("complex_conjugates", MH + H + ADJ,
         lambda t: (t.view_as_real(t.tensor(CPLX).mH.contiguous()), t.view_as_real(t.tensor(CPLX).H.contiguous()),
                    t.view_as_real(t.adjoint(t.tensor(CPLX)).contiguous())), kind="behaviour"),
]
_BAD = {
    "mH_1d": (MH, lambda t: t.ones(3).mH),
    "H_1d": (H, lambda t: t.ones(3).H),
    "H_3d": (H, lambda t: t.ones(2, 2, 3).H),
    "adjoint_1d": (ADJ, lambda t: t.adjoint(t.ones(3))),
}
for _id, (_names, _fn) in _BAD.items():
    CASES.append(case(f"bad_input[{_id}]", _names, _fn, kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_adjoint(c):
    run_case(c)


@pytest.mark.parametrize("expr", ["x.mH", "x.H", "x.adjoint()"])
def test_zero_dim_warns_as_pytorch(expr):
    """On a 0-d tensor each is the value itself, with PyTorch's deprecation warning."""
    import msnb.adapter.torch as mt
    import torch
    messages = []
    for lib in (torch, mt):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = eval(expr, {"x": lib.tensor(2.5)})
        assert float(out) == 2.5
        messages.append([str(m.message).split(" (Triggered")[0] for m in w])
    assert messages[0] == messages[1]
