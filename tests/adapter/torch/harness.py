"""Differential harness: run one function through real PyTorch and through
msnb's adapter on the same inputs, compare values, dtypes, shapes and grads.

Real torch is the oracle (tinygrad's ``helper_test_op`` pattern).

Besides :func:`compare` (numeric ops, with gradients) the harness has
:func:`compare_inplace` (in-place ops: the mutated tensor and the returned
object), :func:`compare_raises` (same exception type in both libraries) and
:func:`compare_behaviour` (non-numeric API: dtypes, devices, flags ...).

Coverage accounting: every differential case declares the registry names it
exercises in a :class:`Case`; the ``test_diff_*`` modules keep their cases in
module-level ``CASES`` tables, which ``test_diff_coverage`` reads, and
:data:`COVERED` collects the names of cases that passed in this run (the
terminal summary line in ``tests/conftest.py`` reports it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.support import load_registry

__all__ = ["compare", "compare_inplace", "compare_raises", "compare_behaviour", "run_case", "Case", "case",
           "real", "mt", "COVERED", "REGISTRY", "registered", "OWN_PREFIXES", "own_names"]

#: qualified names exercised by differential tests that passed in this run
COVERED: set[str] = set()
REGISTRY = load_registry()
#: registry namespaces the ``test_diff_*`` modules are responsible for
#: (nn, optim, utils, amp and torchvision register their own coverage)
OWN_EXCLUDE = ("torch.nn", "torch.optim", "torch.utils", "torchvision", "torch.jit", "torch.onnx",
               "torch.distributions", "torch.distributed")
OWN_PREFIXES = ("torch.",)


def own_names() -> set[str]:
    """Registry names the ``test_diff_*`` modules must cover."""
    return {n for n in REGISTRY if n.startswith(OWN_PREFIXES)
            and not any(n == p or n.startswith(p + ".") for p in OWN_EXCLUDE)}


def registered(*names: str) -> tuple[str, ...]:
    """The subset of ``names`` that the registry lists (generated case tables
    call only what msnb claims to support)."""
    return tuple(n for n in names if n in REGISTRY)


def _to(lib, arr, requires_grad):
    t = lib.tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _np(x):
    if hasattr(x, "detach"):
        x = x.detach()
    if hasattr(x, "dtype") and str(x.dtype) == "torch.bfloat16":
        x = x.float()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _flatten(x):
    if isinstance(x, (tuple, list)) and not isinstance(x, (real.Size, mt.Size)):
        out = []
        for v in x:
            out.extend(_flatten(v))
        return out
    return [x]


def _assert_same(r, m, rtol, atol, where=""):
    """Equal value, dtype and shape (tensors) or equal value and type (scalars)."""
    if isinstance(r, real.Tensor):
        assert isinstance(m, mt.Tensor), f"{where}msnb returned {type(m).__name__}, torch a Tensor"
        assert tuple(r.shape) == tuple(m.shape), f"{where}shape {tuple(m.shape)} != torch {tuple(r.shape)}"
        assert str(r.dtype) == str(m.dtype), f"{where}dtype {m.dtype} != torch {r.dtype}"
        rv, mv = _np(r), _np(m)
        if rv.dtype.kind in "fc" or mv.dtype.kind in "fc":
            np.testing.assert_allclose(mv.astype(np.complex128 if rv.dtype.kind == "c" else np.float64),
                                       rv.astype(np.complex128 if rv.dtype.kind == "c" else np.float64),
                                       rtol=rtol, atol=atol, err_msg=where)
        else:
            np.testing.assert_array_equal(mv, rv, err_msg=where)
    elif isinstance(r, (bool, int, float, complex)) and not isinstance(r, real.Tensor):
        assert type(r) is type(m), f"{where}msnb returned {type(m).__name__} {m!r}, torch {type(r).__name__} {r!r}"
        if isinstance(r, float) and math.isnan(r):
            assert math.isnan(m)
        else:
            assert m == r or (isinstance(r, float) and math.isclose(m, r, rel_tol=rtol, abs_tol=atol)), \
                f"{where}{m!r} != torch {r!r}"
    else:
        assert _norm(m) == _norm(r), f"{where}{_norm(m)!r} != torch {_norm(r)!r}"


def _norm(x):
    """A comparable form of a non-tensor result (dtypes, devices, sizes ...)."""
    if isinstance(x, (real.dtype, mt.dtype)):
        return ("dtype", str(x))
    if isinstance(x, (real.device, mt.device)):
        return ("device", str(x))
    if isinstance(x, (real.Size, mt.Size)):
        return ("size", tuple(x), repr(x).replace("torch.", ""))
    if isinstance(x, (tuple, list)):
        return type(x).__name__, tuple(_norm(v) for v in x)
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.tolist())
    return x


def compare(fn, *arrays, grad=True, rtol=1e-5, atol=1e-6, names=()):
    """Run ``fn(lib, *tensors)`` in both libraries; assert equal outputs and grads.

    Outputs may be tensors, Python scalars or (nested) tuples of them.
    Gradients: a random weighted sum of every float output is differentiated
    with respect to every float input."""
    rg = [grad and np.asarray(a).dtype.kind == "f" for a in arrays]
    rin = [_to(real, a, r) for a, r in zip(arrays, rg)]
    min_ = [_to(mt, a, r) for a, r in zip(arrays, rg)]
    rout = fn(real, *rin)
    mout = fn(mt, *min_)
    routs, mouts = _flatten(rout), _flatten(mout)
    assert len(routs) == len(mouts), (len(routs), len(mouts))
    for i, (r, m) in enumerate(zip(routs, mouts)):
        _assert_same(r, m, rtol, atol, where=f"output {i}: ")
    if any(rg):
        seed = np.random.default_rng(0)
        pairs = [(r, m) for r, m in zip(routs, mouts)
                 if isinstance(r, real.Tensor) and r.dtype.is_floating_point and r.requires_grad]
        if pairs:
            ws = [seed.standard_normal(tuple(r.shape)).astype(np.float32) for r, _ in pairs]
            rl = sum((r.float() * real.tensor(w)).sum() for (r, _), w in zip(pairs, ws))
            ml = sum((m.float() * mt.tensor(w)).sum() for (_, m), w in zip(pairs, ws))
            rl.backward()
            assert ml.requires_grad, "msnb output does not require grad"
            ml.backward()
            for k, (ri, mi, r) in enumerate(zip(rin, min_, rg)):
                if r:
                    if ri.grad is None:
                        assert mi.grad is None or np.allclose(_np(mi.grad), 0), f"input {k}: unexpected grad"
                        continue
                    assert mi.grad is not None, f"input {k}: msnb produced no gradient"
                    assert str(mi.grad.dtype) == str(ri.grad.dtype), (mi.grad.dtype, ri.grad.dtype)
                    np.testing.assert_allclose(_np(mi.grad), _np(ri.grad), rtol=max(rtol, 1e-4),
                                               atol=max(atol, 1e-5), err_msg=f"gradient of input {k}")
    COVERED.update(names)
    return mout


def compare_inplace(method, args_fn, *arrays, rtol=1e-5, atol=1e-6, names=(), grad=True):
    """``x.clone().<method>(*args_fn(lib, *rest))`` must return the clone
    itself and mutate it to torch's value; gradients flow through the clone."""

    def fn(lib, x, *rest):
        y = x.clone()
        ret = getattr(y, method)(*args_fn(lib, *rest))
        assert ret is y, f"{lib.__name__}: {method} did not return self"
        return y

    return compare(fn, *arrays, grad=grad, rtol=rtol, atol=atol, names=names)


def compare_raises(fn, *arrays, names=()):
    """Both libraries raise, with the same exception type (or a subclass of torch's)."""
    errs = []
    for lib in (real, mt):
        ts = [lib.tensor(a) for a in arrays]
        try:
            res = fn(lib, *ts)
        except Exception as e:  # noqa: BLE001 - the point is to capture it
            errs.append(e)
        else:
            raise AssertionError(f"{lib.__name__} did not raise (returned {res!r})")
    r, m = errs
    assert isinstance(m, type(r)), f"msnb raised {type(m).__name__}: {m}; torch raised {type(r).__name__}: {r}"
    COVERED.update(names)


def compare_behaviour(fn, rtol=1e-5, atol=1e-6, names=()):
    """``fn(lib)`` gives the same result in both libraries, or raises the same
    exception type.  Tensors compare by value/dtype/shape, dtypes/devices/sizes
    by their printed form, other values by ``==``."""
    out = []
    for lib in (real, mt):
        try:
            out.append(("ok", fn(lib)))
        except Exception as e:  # noqa: BLE001
            out.append(("err", e))
    (rk, r), (mk, m) = out
    if rk == "err" or mk == "err":
        assert rk == mk, f"torch: {rk} {r!r}; msnb: {mk} {m!r}"
        assert isinstance(m, type(r)), f"msnb raised {type(m).__name__}: {m}; torch {type(r).__name__}: {r}"
    else:
        rs, ms_ = _flatten(r), _flatten(m)
        assert len(rs) == len(ms_), (r, m)
        for i, (a, b) in enumerate(zip(rs, ms_)):
            _assert_same(a, b, rtol, atol, where=f"item {i}: ")
    COVERED.update(names)


@dataclass
class Case:
    """One differential check and the registry names it covers."""

    id: str
    names: tuple[str, ...]
    fn: Callable
    arrays: tuple = ()
    kind: str = "compare"  # compare | inplace | raises | behaviour | custom
    opts: dict[str, Any] = field(default_factory=dict)

    def __repr__(self):
        return self.id


def case(id, names, fn, *arrays, kind="compare", **opts):
    if isinstance(names, str):
        names = (names,)
    return Case(id, tuple(names), fn, arrays, kind, opts)


def run_case(c: Case):
    """Run one :class:`Case` with the matching comparison."""
    if c.kind == "compare":
        compare(c.fn, *c.arrays, names=c.names, **c.opts)
    elif c.kind == "inplace":
        method, args_fn = c.fn
        compare_inplace(method, args_fn, *c.arrays, names=c.names, **c.opts)
    elif c.kind == "raises":
        compare_raises(c.fn, *c.arrays, names=c.names)
    elif c.kind == "behaviour":
        compare_behaviour(c.fn, names=c.names, **c.opts)
    elif c.kind == "custom":  # fn(real, mt) asserts by itself
        c.fn(real, mt)
        COVERED.update(c.names)
    else:
        raise ValueError(c.kind)
