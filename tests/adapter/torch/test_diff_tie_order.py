"""Differential tests: the index PyTorch's CPU kernels return for equal elements in
``sort`` / ``argsort`` / ``topk`` / ``kthvalue`` (introsort, partial sort, nth_element and
quickselect orders; stable where PyTorch is), on tie-heavy bool, integer and float inputs
with NaNs, against real PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(12)
# rows longer than 16 (GCC's insertion-sort cut-off) with few distinct values: many ties
BOOL = rng.random((3, 70)) > 0.5
INT = rng.integers(0, 4, (3, 150)).astype(np.int64)
U8 = rng.integers(0, 3, (2, 40)).astype(np.uint8)
F = rng.integers(0, 5, (2, 120)).astype(np.float32)
F[rng.random(F.shape) < 0.1] = np.nan
LONG1D = rng.integers(0, 3, 40000).astype(np.int64)  # PyTorch's radix-sort path (stable)

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


for _name, _arr in {"bool": BOOL, "int64": INT, "uint8": U8, "float_nan": F}.items():
    for _desc in (False, True):
        add(f"sort[{_name},desc={_desc}]", registered("torch.sort", "torch.Tensor.sort"),
            lambda t, x, d=_desc: t.sort(x, descending=d), _arr, grad=False)
        add(f"sort_stable[{_name},desc={_desc}]", registered("torch.sort"),
            lambda t, x, d=_desc: t.sort(x, dim=-1, descending=d, stable=True), _arr, grad=False)
        add(f"argsort[{_name},desc={_desc}]", registered("torch.argsort", "torch.Tensor.argsort"),
            lambda t, x, d=_desc: x.argsort(0, descending=d), _arr.T.copy(), grad=False)
add("sort[int64_1d_radix]", registered("torch.sort"), lambda t, x: t.sort(x), LONG1D, grad=False)
for _name, _arr in {"int64": INT, "float_nan": F}.items():
    for _k in (1, 2, 7, 40, 119):  # partial sort for 64 k <= n, else nth_element + sort
        for _largest in (True, False):
            add(f"topk[{_name},k={_k},largest={_largest}]", registered("torch.topk", "torch.Tensor.topk"),
                lambda t, x, k=_k, lg=_largest: t.topk(x, k, largest=lg), _arr, grad=False)
        add(f"topk_unsorted[{_name},k={_k}]", registered("torch.topk"),
            lambda t, x, k=_k: t.topk(x, k, sorted=False), _arr, grad=False)
        add(f"kthvalue[{_name},k={_k}]", registered("torch.kthvalue", "torch.Tensor.kthvalue"),
            lambda t, x, k=_k: t.kthvalue(x, k, 1, keepdim=True), _arr, grad=False)
add("topk_grad[ties]", registered("torch.topk"), lambda t, x: t.topk(x * 2, 9), np.round(F * 0.5), grad=True)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_tie_order(c):
    run_case(c)
