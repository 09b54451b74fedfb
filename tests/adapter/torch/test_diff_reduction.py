"""Differential tests: reductions, scans, sorting and selection against real
PyTorch (values, dtypes, shapes, gradients), with dim/keepdim variants,
negative dims, integer/bool inputs and out-of-range dims."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(2)
A = rng.standard_normal((3, 4)).astype(np.float32)
A3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
POS = (rng.random((3, 4)) + 0.5).astype(np.float32)
# distinct values so that argmax/sort/median have one answer
PERM = (rng.permutation(24).reshape(2, 3, 4) * 0.25 - 3).astype(np.float32)
I = rng.integers(-5, 6, (3, 4)).astype(np.int64)
BOOL = rng.random((3, 4)) > 0.5
F64 = rng.standard_normal((3, 4))
NAN = np.array([[1.0, np.nan, 2.0], [np.nan, 3.0, -1.0]], np.float32)

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def both(name):
    return registered(f"torch.{name}", f"torch.Tensor.{name}")


# --- sum / mean / prod / amax / amin / logsumexp / norm / nansum ---------------------------------
DIMS = {"all": {}, "d1": dict(dim=1), "d-1k": dict(dim=-1, keepdim=True), "d02": dict(dim=(0, 2)),
        "d0k": dict(dim=0, keepdim=True), "dneg": dict(dim=(-1, -3))}
for _n in ["sum", "mean", "nansum", "amax", "amin"]:
    for _k, _kw in DIMS.items():
        add(f"{_n}[{_k}]", both(_n), lambda t, x, n=_n, kw=_kw: (getattr(t, n)(x, **kw), getattr(x, n)(**kw)), PERM)
for _k, _kw in {"all": {}, "d1": dict(dim=1), "d-1k": dict(dim=-1, keepdim=True)}.items():
    add(f"prod[{_k}]", both("prod"), lambda t, x, kw=_kw: (t.prod(x, **kw), x.prod(**kw)), A3)
    add(f"logsumexp[{_k}]", both("logsumexp"),
        lambda t, x, kw=_kw: (t.logsumexp(x, **(kw or dict(dim=(0, 1)))), x.logsumexp(**(kw or dict(dim=0)))), A3)
add("sum[int]", both("sum"), lambda t, x, b: (t.sum(x), x.sum(1), t.sum(b), b.sum(0), x.sum(dtype=t.float32)), I, BOOL)
add("sum[f64]", both("sum"), lambda t, x: (t.sum(x), x.sum(dim=0, dtype=t.float32)), F64)
add("sum[0d]", both("sum"), lambda t, x: (t.sum(x.sum()), x.sum().sum(0), x.mean().mean()), A)
add("sum[out]", registered("torch.sum"), lambda t, x: (lambda o: (t.sum(x, 1, out=o), o)[1])(t.empty(3)), A,
    grad=False)
add("mean[int-error]", both("mean"), lambda t, x: t.mean(x), I, kind="raises")
add("mean[dtype]", both("mean"), lambda t, x: (t.mean(x, dtype=t.float64), x.mean(1, dtype=t.float32)), I, grad=False)
add("prod[int]", both("prod"), lambda t, x, b: (t.prod(x), x.prod(1), t.prod(b, 0)), I, BOOL)
add("prod[zero]", both("prod"), lambda t, x: t.prod(x * t.tensor([1.0, 0.0, 1.0, 1.0]), 1), A)
add("nansum[nan]", both("nansum"), lambda t, x: (t.nansum(x), x.nansum(1)), NAN, grad=False)
add("amax[ties]", both("amax"), lambda t, x: (t.amax(x, 1), t.amin(x, 0)),
    np.array([[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]], np.float32))
add("amax[int]", registered("torch.amax", "torch.amin"), lambda t, x: (t.amax(x, 1), t.amin(x)), I)
for _p in ["fro", 2, 1, float("inf"), float("-inf"), 3, 0]:
    add(f"norm[p={_p}]", both("norm"), lambda t, x, p=_p: (t.norm(x, p), x.norm(p, dim=1), x.norm(p, dim=0, keepdim=True)),
        A, grad=_p != 0)
add("norm[default]", both("norm"), lambda t, x: (t.norm(x), x.norm(dim=(0, 1))), A3)
add("err[sum-dim]", both("sum"), lambda t, x: t.sum(x, 3), A, kind="raises")
add("err[mean-dim]", both("mean"), lambda t, x: x.mean(-4), A3, kind="raises")

# --- max / min / argmax / argmin ----------------------------------------------------------------
for _n in ["max", "min"]:
    add(f"{_n}[all]", both(_n), lambda t, x, n=_n: (getattr(t, n)(x), getattr(x, n)()), PERM)
    add(f"{_n}[dim]", both(_n),
        lambda t, x, n=_n: (tuple(getattr(t, n)(x, 1)), tuple(getattr(x, n)(-1, keepdim=True)),
                            getattr(t, n)(x, dim=0).values, getattr(t, n)(x, dim=2).indices), PERM)
    add(f"{_n}[binary]", both(_n), lambda t, x, y, n=_n: (getattr(t, n)(x, y), getattr(x, n)(y)), A, POS)
    add(f"{_n}[int]", both(_n), lambda t, x, n=_n: (getattr(t, n)(x), tuple(getattr(t, n)(x, 1))),
        np.arange(12).reshape(3, 4)[::-1].copy())
for _n in ["argmax", "argmin"]:
    add(f"{_n}", both(_n), lambda t, x, n=_n: (getattr(t, n)(x), getattr(x, n)(1), getattr(t, n)(x, -1, keepdim=True),
                                              getattr(t, n)(x, dim=0)), PERM)
    add(f"{_n}[ties]", both(_n), lambda t, x, n=_n: (getattr(t, n)(x), getattr(t, n)(x, 1)),
        np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], np.float32))
    add(f"{_n}[int]", both(_n), lambda t, x, n=_n: (getattr(t, n)(x), getattr(t, n)(x, 0)),
        np.arange(12).reshape(3, 4)[::-1].copy())
    # empty input (a training mask that selects no rows): PyTorch's empty result / IndexError
    add(f"{_n}[empty rows]", both(_n), lambda t, x, n=_n: (getattr(t, n)(x, 1), getattr(x, n)(1, keepdim=True)),
        np.zeros((0, 7), np.float32), grad=False)
    add(f"{_n}[empty dim]", both(_n), lambda t, x, n=_n: getattr(t, n)(x, 0), np.zeros((0, 7), np.float32),
        kind="raises")
    add(f"{_n}[empty all]", both(_n), lambda t, x, n=_n: getattr(t, n)(x), np.zeros((0, 7), np.float32), kind="raises")
add("max[namedtuple]", both("max"), lambda t, x: (lambda r: (r.values, r.indices, r[0]))(t.max(x, 1)), PERM)
add("err[max-empty]", both("max"), lambda t, x: t.max(x[:0]), A, kind="raises")

# --- all / any / count_nonzero ----------------------------------------------------------------------
for _n in ["all", "any"]:
    add(f"{_n}", both(_n), lambda t, b, x, n=_n: (getattr(t, n)(b), getattr(b, n)(1), getattr(t, n)(b, 0, keepdim=True),
                                                  getattr(t, n)(x), getattr(x, n)(0), getattr(t, n)(x > 0, dim=-1)),
        BOOL, I)
add("count_nonzero", both("count_nonzero"),
    lambda t, x, b: (t.count_nonzero(x), x.count_nonzero(1), t.count_nonzero(b, dim=0), t.count_nonzero(x, (0, 1))),
    I, BOOL)

# --- std / var -----------------------------------------------------------------------------------------
for _n in ["std", "var"]:
    add(f"{_n}", both(_n), lambda t, x, n=_n: (getattr(t, n)(x), getattr(x, n)(1), getattr(t, n)(x, 0, keepdim=True),
                                              getattr(t, n)(x, dim=(0, 2), unbiased=False),
                                              getattr(t, n)(x, dim=-1, correction=0)), A3)
    add(f"{_n}[positional-unbiased]", both(_n), lambda t, x, n=_n: (getattr(t, n)(x, False), getattr(x, n)(1, True)), A)
for _n in ["std_mean", "var_mean"]:
    add(f"{_n}", registered(f"torch.{_n}"),
        lambda t, x, n=_n: (getattr(t, n)(x), getattr(t, n)(x, 1), getattr(t, n)(x, dim=0, keepdim=True, correction=0)),
        A3)

# --- cumsum / cumprod ----------------------------------------------------------------------------------
for _n in ["cumsum", "cumprod"]:
    add(f"{_n}", both(_n), lambda t, x, n=_n: (getattr(t, n)(x, 1), getattr(x, n)(-1), getattr(t, n)(x, dim=0)), A3)
    add(f"{_n}[int]", both(_n), lambda t, x, n=_n: (getattr(t, n)(x, 1), getattr(t, n)(x, 0, dtype=t.float32)), I)
    add(f"{_n}[bool]", both(_n), lambda t, x, n=_n: getattr(t, n)(x, 1), BOOL)
add("cumprod[zero]", both("cumprod"), lambda t, x: t.cumprod(x * t.tensor([1.0, 0.0, 1.0, 1.0]), 1), A)

# --- topk / sort / argsort / median / unique ---------------------------------------------------------------
add("topk", both("topk"),
    lambda t, x: (tuple(t.topk(x, 2)), tuple(x.topk(2, dim=1)), tuple(t.topk(x, 1, dim=0, largest=False)),
                  t.topk(x, 3, -1).values), PERM)
add("topk[namedtuple]", both("topk"), lambda t, x: (lambda r: (r.values, r.indices))(t.topk(x, 2)), PERM)
add("sort", both("sort"),
    lambda t, x: (tuple(t.sort(x)), tuple(x.sort(dim=1)), tuple(t.sort(x, 0, descending=True)),
                  tuple(x.sort(descending=True, stable=True))), PERM)
add("sort[ties-stable]", both("sort"),
    lambda t, x: (tuple(t.sort(x, stable=True)), tuple(t.sort(x, descending=True, stable=True))),
    np.array([[2.0, 1.0, 2.0, 1.0, 3.0]], np.float32))
add("sort[int]", both("sort"), lambda t, x: tuple(t.sort(x, 1)), I)
add("sort[bool]", both("sort"), lambda t, x: (t.sort(x.float(), 1).values, t.sort(x, dim=1, stable=True).indices), BOOL)
add("argsort", both("argsort"),
    lambda t, x: (t.argsort(x), x.argsort(dim=0), t.argsort(x, 1, descending=True)), PERM)
add("median", both("median"),
    lambda t, x: (t.median(x), x.median(), tuple(t.median(x, 1)), tuple(x.median(dim=-1, keepdim=True))), PERM)
add("median[even]", both("median"), lambda t, x: (t.median(x), tuple(t.median(x, 1))), A)
add("Tensor.unique", registered("torch.Tensor.unique"),
    lambda t, x: (x.unique(), x.unique(return_counts=True), x.unique(return_inverse=True),
                  x.unique(return_inverse=True, return_counts=True)), I)
add("Tensor.unique[float]", registered("torch.Tensor.unique"), lambda t, x: x.unique(), np.round(A), grad=False)
add("err[topk-k]", both("topk"), lambda t, x: t.topk(x, 9), A, kind="raises")
add("err[sort-dim]", both("sort"), lambda t, x: t.sort(x, 2), A, kind="raises")


# --- dtypes, 0-d and empty inputs ---------------------------------------------------------------------
add("f64[reductions]", both("sum") + both("mean") + both("std") + both("logsumexp") + both("cumsum"),
    lambda t, x: (x.sum(1), x.mean(), x.std(0), x.logsumexp(1), x.cumsum(0), x.max(1).values, x.norm()), F64)
add("f16[reductions]", both("sum") + both("mean") + both("amax"),
    lambda t, x: (x.sum(1), x.mean(0), x.amax(1), x.max(), x.argmax(1)), A.astype(np.float16), grad=False, rtol=2e-3, atol=2e-3)
add("0d[reductions]", both("sum") + both("mean") + both("max") + both("argmax") + both("prod"),
    lambda t, x: (x.sum(), x.mean(0), x.max(), x.argmax(), x.prod(), x.amax(), x.cumsum(0), x.sum(dim=0, keepdim=True)),
    np.array(2.5, np.float32))
add("empty[reductions]", both("sum") + both("mean") + both("prod") + both("any") + both("all"),
    lambda t, x: (x.sum(), x.sum(0), x.prod(1), x.any(), x.all(), x.mean(1), x.amax(1), x.T.sum(1), x.T.prod(1),
                  x.T.mean(1), x.prod(), x.mean(), x.sum(0, keepdim=True), x.long().sum(0)), np.zeros((0, 3), np.float32),
    grad=False)

# --- second-order gradients --------------------------------------------------------------------------
def _grad_of(f):
    return lambda t, x: t.autograd.grad(f(t, x).sum(), x, create_graph=True)[0]


for _k, _f in {"sum": lambda t, x: t.sum(x * x, 1), "mean": lambda t, x: (x * x).mean(), "prod": lambda t, x: x.prod(1),
               "std": lambda t, x: x.std(1), "var": lambda t, x: x.var(), "norm": lambda t, x: x.norm(dim=1),
               "logsumexp": lambda t, x: t.logsumexp(x, 1), "amax": lambda t, x: (x * x).amax(1),
               "cumsum": lambda t, x: (x * x).cumsum(1), "cumprod": lambda t, x: x.cumprod(1),
               "max": lambda t, x: (x * x).max(1).values, "topk": lambda t, x: (x * x).topk(2).values,
               "sort": lambda t, x: (x * x).sort(1).values}.items():
    add(f"grad2[{_k}]", registered(f"torch.{_k}"), _grad_of(_f), PERM[0] * 0.5)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_reduction(c):
    run_case(c)
