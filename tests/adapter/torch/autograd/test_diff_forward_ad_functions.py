"""Forward-mode AD through custom ``autograd.Function``s, against real PyTorch (the
forward-AD tutorial's ``Fn`` has a ``jvp`` and no ``backward``): the output's tangent is
what the Function's ``jvp`` returns (a tensor input without a tangent gives it zeros), a
Function without ``jvp`` refuses dual inputs with PyTorch's NotImplementedError, a Function
applied to plain tensors inside a dual level leaves other tangents readable, and
``gradcheck(check_forward_ad=True, check_backward_ad=False)`` checks the ``jvp``."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
FWD = ("torch.autograd.forward_ad.dual_level", "torch.autograd.forward_ad.make_dual",
       "torch.autograd.forward_ad.unpack_dual", "torch.autograd.Function")
R = np.random.default_rng(1)
A = R.standard_normal((3, 4))
B = R.standard_normal((3, 4))
T = R.standard_normal((3, 4))


def beh(id, fn, names=FWD, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def exp_fn(t):
    class Exp(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = t.exp(x)
            ctx.result = r
            return r

        @staticmethod
        def jvp(ctx, g):
            out = g * ctx.result
            del ctx.result
            return out

    return Exp


def mul_fn(t):
    class Mul(t.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x * y, x + y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.x, ctx.y = inputs

        @staticmethod
        def jvp(ctx, gx, gy):
            return gx * ctx.y + gy * ctx.x, gx + gy

    return Mul


def custom_jvp(t):
    fw = t.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(t.tensor(A), t.tensor(T))
        out = exp_fn(t).apply(d)
        after = fw.unpack_dual(out.sin() * 2)
        return fw.unpack_dual(out).tangent, after.tangent, after.primal


def custom_jvp_two_outputs(t):
    fw = t.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(t.tensor(A), t.tensor(T))
        p, s = mul_fn(t).apply(d, t.tensor(B))  # B has no tangent: jvp sees zeros for it
        return fw.unpack_dual(p).tangent, fw.unpack_dual(s).tangent


def no_jvp(t):
    class Twice(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    fw = t.autograd.forward_ad
    with fw.dual_level():
        Twice.apply(fw.make_dual(t.tensor(A), t.tensor(T)))


def plain_function_in_level(t):
    fw = t.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(t.tensor(A), t.tensor(T))
        plain = exp_fn(t).apply(t.tensor(B))  # no dual input: no tangent, and d's stays readable
        return fw.unpack_dual(plain).tangent is None, fw.unpack_dual(d * plain).tangent


def gradcheck_forward(t):
    x = t.tensor(A, requires_grad=True)
    return t.autograd.gradcheck(exp_fn(t).apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                check_undefined_grad=False, check_batched_grad=False)


def gradcheck_forward_wrong(t):
    class Bad(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def jvp(ctx, g):
            return g * 2

    x = t.tensor(A[:1, :2].copy(), requires_grad=True)
    return t.autograd.gradcheck(Bad.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                check_undefined_grad=False, raise_exception=False)


beh("custom Function jvp gives the tangent", custom_jvp)
beh("custom Function jvp with setup_context, two outputs", custom_jvp_two_outputs)
CASES.append(case("custom Function without jvp refuses a dual", FWD, no_jvp, kind="raises"))
beh("custom Function on plain tensors in a dual level", plain_function_in_level)
beh("gradcheck check_forward_ad of a jvp", gradcheck_forward,
    names=("torch.autograd.gradcheck", "torch.autograd.Function"))
beh("gradcheck check_forward_ad finds a wrong jvp", gradcheck_forward_wrong,
    names=("torch.autograd.gradcheck", "torch.autograd.Function"))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_forward_ad_custom_functions_match_pytorch(c):
    run_case(c)
