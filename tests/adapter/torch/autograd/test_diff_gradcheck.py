"""Differential tests of ``torch.autograd.gradcheck`` / ``gradgradcheck`` against real
PyTorch (the custom-Function tutorials check their backward with them): the verdict on
correct and wrong backwards, ``raise_exception=False``, the error types (GradcheckError
is a RuntimeError; no input requiring grad is a ValueError), the single-precision
warning, several inputs and outputs, non-tensor arguments, and both import spellings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
NAMES = ("torch.autograd.gradcheck", "torch.autograd.gradgradcheck", "torch.autograd.grad",
         "torch.autograd.Function")
R = np.random.default_rng(0)
X = R.standard_normal(3)
Y = R.standard_normal((2, 3))


def beh(id, fn):
    CASES.append(case(id, NAMES, fn, kind="behaviour"))


def x(t):
    return t.tensor(X, dtype=t.float64, requires_grad=True)


def y(t):
    return t.tensor(Y, dtype=t.float64, requires_grad=True)


def halved(t):
    class Half(t.autograd.Function):
        """x * x with half the true gradient."""

        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a
    return Half


def square(t):
    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * g * a
    return Square


beh("correct Function", lambda t: t.autograd.gradcheck(square(t).apply, (x(t),)))
beh("lambda of ops", lambda t: t.autograd.gradcheck(lambda a: a.sin() * 2, (x(t),)))
beh("one tensor, not a tuple", lambda t: t.autograd.gradcheck(t.sin, x(t)))
beh("wrong backward: False", lambda t: t.autograd.gradcheck(halved(t).apply, (x(t),), raise_exception=False))
beh("wrong backward: GradcheckError, a RuntimeError", lambda t: (lambda e: (
    type(e).__name__, isinstance(e, RuntimeError), str(e).splitlines()[0]))(
    _raised(lambda: t.autograd.gradcheck(halved(t).apply, (x(t),)))))
beh("no input requires grad: ValueError", lambda t: t.autograd.gradcheck(t.sin, (t.tensor(X, dtype=t.float64),)))
beh("two inputs, two outputs", lambda t: t.autograd.gradcheck(lambda a, b: (a * b.sum(), b.exp()), (x(t), y(t))))
beh("fast_mode", lambda t: t.autograd.gradcheck(lambda a, b: (a * b.sum(), b.exp()), (x(t), y(t)), fast_mode=True))
beh("non-tensor argument", lambda t: t.autograd.gradcheck(lambda a, n: a * n, (x(t), 3)))
beh("output not requiring grad", lambda t: t.autograd.gradcheck(lambda a: (a * 2, t.ones(2)), (x(t),)))
beh("gradgradcheck", lambda t: t.autograd.gradgradcheck(lambda a: a.sin() * a, (x(t),)))
beh("gradgradcheck of a Function without double backward: False", lambda t: t.autograd.gradgradcheck(
    halved(t).apply, (x(t),), raise_exception=False))


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return e
    return None


def single_precision_warns(t):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ok = t.autograd.gradcheck(t.sin, (t.tensor(X, dtype=t.float32, requires_grad=True),), raise_exception=False)
    return ok, [str(m.message)[:60] for m in w if issubclass(m.category, UserWarning)]


beh("float32 input warns", single_precision_warns)


def error_module(t):
    """``from torch.autograd.gradcheck import GradcheckError``, then the function still works."""
    import importlib
    mod = importlib.import_module(f"{t.__name__}.autograd.gradcheck")
    e = _raised(lambda: t.autograd.gradcheck(halved(t).apply, (x(t),)))
    return isinstance(e, mod.GradcheckError), t.autograd.gradcheck(t.sin, (x(t),)), str(e).splitlines()[0]


beh("GradcheckError from the gradcheck module", error_module)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_gradcheck_matches_pytorch(c):
    run_case(c)
