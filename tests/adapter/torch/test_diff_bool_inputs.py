"""Differential tests of bool inputs PyTorch accepts and msnb used to refuse or
promote: ``sign`` / ``sgn`` of bool (MindSpore's CPU Sign has no bool kernel),
``scatter_reduce`` into a bool tensor (sum/amax are any, prod/amin are all;
mean is PyTorch's NotImplementedError), and ``F.pad`` in constant mode, whose
border takes the input's dtype (bool stays bool, 2.7 pads an int tensor with
2), as the OpInfo replay checks."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

B = np.array([True, False, False, True, True])
IDX = np.array([0, 0, 1, 2, 4, 4])
SRC = np.array([True, False, False, True, False, False])
CASES = []

for _n in ("sign", "sgn"):
    CASES.append(case(f"{_n}_bool", registered(f"torch.{_n}", f"torch.Tensor.{_n}"),
                      lambda t, x, _n=_n: (getattr(t, _n)(x), getattr(x, _n)(), getattr(t, _n)(x[0])), B))
CASES.append(case("sign_int_unchanged", registered("torch.sign"), lambda t, x: t.sign(x),
                  np.array([-3, 0, 4], np.int64)))
for _r in ("sum", "prod", "amax", "amin"):
    for _inc in (True, False):
        CASES.append(case(f"scatter_reduce_bool[{_r},include_self={_inc}]",
                          registered("torch.scatter_reduce", "torch.Tensor.scatter_reduce"),
                          lambda t, x, i, s, _r=_r, _inc=_inc: (t.scatter_reduce(x, 0, i, s, _r, include_self=_inc),
                                                                x.scatter_reduce(0, i, s, _r, include_self=_inc)),
                          B, IDX, SRC))
CASES.append(case("scatter_reduce_bool_mean_raises", registered("torch.scatter_reduce"),
                  lambda t, x, i, s: t.scatter_reduce(x, 0, i, s, "mean"), B, IDX, SRC, kind="raises"))
CASES.append(case("scatter_reduce_bool_2d", registered("torch.scatter_reduce"),
                  lambda t, x, i, s: t.scatter_reduce(x, 1, i, s, "sum"),
                  np.zeros((2, 3), bool), np.array([[0, 0], [2, 1]]), np.array([[True, False], [True, True]])))
_PADS = {
    "bool_default": (B.reshape(1, 5), dict()),
    "bool_value": (B.reshape(1, 5), dict(value=2.5)),
    "bool_false": (B.reshape(1, 5), dict(value=0.0)),
    "int_fraction": (np.arange(6, dtype=np.int64).reshape(2, 3), dict(value=2.7)),
    "int_negative": (np.arange(6, dtype=np.int64).reshape(2, 3), dict(value=-1.5)),
    "float_value": (np.arange(6, dtype=np.float32).reshape(2, 3), dict(value=2.7)),
}
for _id, (_arr, _kw) in _PADS.items():
    CASES.append(case(f"pad_constant[{_id}]", registered("torch.nn.functional.pad"),
                      lambda t, x, _kw=_kw: t.nn.functional.pad(x, (1, 2, 1, 0), **_kw), _arr))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_bool_inputs(c):
    run_case(c)
