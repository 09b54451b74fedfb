"""Differential tests of ``torch.autograd.functional`` and ``torch.autograd.forward_ad``
against real PyTorch: jacobians, hessians, vector products, dual tensors, and the
exception types of their argument checks."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, run_case

rng = np.random.default_rng(7)
X = rng.standard_normal(3).astype(np.float32)
Y = rng.standard_normal(2).astype(np.float32)

CASES = []


def beh(id, names, fn, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def F(t):  # noqa: N802 - the module under test
    return t.autograd.functional


def cube(a):
    return (a ** 3).sum()


JAC = ("torch.autograd.functional.jacobian",)
beh("jacobian", JAC, lambda t: F(t).jacobian(lambda a: a.sin() * 2, t.tensor(X)))
beh("jacobian[tuple in/out]", JAC, lambda t: F(t).jacobian(lambda a, b: (a[:2] * b, a.sum()), (t.tensor(X), t.tensor(Y))))
beh("jacobian[tuple of one input]", JAC, lambda t: F(t).jacobian(lambda a: a * 2, (t.tensor(X),)))
beh("jacobian[independent output]", JAC, lambda t: F(t).jacobian(lambda a: t.tensor(Y), t.tensor(X)))
beh("jacobian[create_graph]", JAC, lambda t: (lambda j: (j, j.requires_grad))(
    F(t).jacobian(lambda a: a ** 2, t.tensor(X), create_graph=True)))
beh("jacobian[vectorize, forward-mode]", JAC, lambda t: F(t).jacobian(
    lambda a: a.exp(), t.tensor(X), vectorize=True, strategy="forward-mode"))
for bad_id, bad in (("strict", lambda t: F(t).jacobian(lambda a: t.tensor(Y), t.tensor(X), strict=True)),
                    ("forward without vectorize", lambda t: F(t).jacobian(lambda a: a, t.tensor(X),
                                                                          strategy="forward-mode")),
                    ("strategy", lambda t: F(t).jacobian(lambda a: a, t.tensor(X), strategy="foo")),
                    ("non-tensor output", lambda t: F(t).jacobian(lambda a: 3, t.tensor(X))),
                    ("non-tensor input", lambda t: F(t).jacobian(lambda a: a, 1.0))):
    beh(f"jacobian raises[{bad_id}]", JAC, bad)
beh("hessian", ("torch.autograd.functional.hessian",), lambda t: F(t).hessian(cube, t.tensor(X)), rtol=1e-4)
beh("hessian[tuple inputs]", ("torch.autograd.functional.hessian",),
    lambda t: F(t).hessian(lambda a, b: (a[:2] * b).sin().sum(), (t.tensor(X), t.tensor(Y))), rtol=1e-4, atol=1e-5)
beh("hessian raises[non-scalar]", ("torch.autograd.functional.hessian",), lambda t: F(t).hessian(lambda a: a ** 3,
                                                                                               t.tensor(X)))
beh("vjp", ("torch.autograd.functional.vjp",), lambda t: F(t).vjp(lambda a: a ** 2, t.tensor(X), t.ones(3)))
beh("vjp[scalar, v None]", ("torch.autograd.functional.vjp",), lambda t: F(t).vjp(cube, t.tensor(X)))
beh("vjp[create_graph]", ("torch.autograd.functional.vjp",), lambda t: [
    v.requires_grad for v in F(t).vjp(lambda a: a ** 2, t.tensor(X), t.ones(3), create_graph=True)])
beh("vjp raises[v None]", ("torch.autograd.functional.vjp",), lambda t: F(t).vjp(lambda a: a ** 2, t.tensor(X)))
beh("jvp", ("torch.autograd.functional.jvp",), lambda t: F(t).jvp(lambda a: a.sin() * a, t.tensor(X), t.ones(3)))
beh("jvp raises[v None]", ("torch.autograd.functional.jvp",), lambda t: F(t).jvp(lambda a: a, t.tensor(X)))
beh("hvp", ("torch.autograd.functional.hvp",), lambda t: F(t).hvp(cube, t.tensor(X), t.ones(3)))
beh("vhp[tuple]", ("torch.autograd.functional.vhp",), lambda t: F(t).vhp(cube, (t.tensor(X),), (t.ones(3),)))
beh("hvp raises[non-scalar]", ("torch.autograd.functional.hvp",), lambda t: F(t).hvp(lambda a: a ** 3, t.tensor(X),
                                                                                   t.ones(3)))


# --- forward_ad ----------------------------------------------------------------------------
def FW(t):  # noqa: N802
    return t.autograd.forward_ad


FWD = ("torch.autograd.forward_ad.dual_level", "torch.autograd.forward_ad.make_dual",
       "torch.autograd.forward_ad.unpack_dual", "torch.autograd.forward_ad.UnpackedDualTensor")


def dual_sin(t):
    fw = FW(t)
    with fw.dual_level():
        d = fw.make_dual(t.tensor(X), t.ones(3) * 2)
        out = fw.unpack_dual((d.sin() * 3).tanh())
        plain = fw.unpack_dual(t.tensor(X))
        own = fw.unpack_dual(d)
    return out.primal, out.tangent, plain.tangent is None, own.tangent, type(out).__name__, out._fields


beh("forward_ad", FWD, dual_sin)


def dual_module(t):
    fw = FW(t)
    t.manual_seed(0)
    m = t.nn.Linear(3, 2)
    with fw.dual_level():
        params = {k: fw.make_dual(p.detach(), t.ones_like(p)) for k, p in m.named_parameters()}
        out = t.func.functional_call(m, params, (t.tensor(X),))
        return fw.unpack_dual(out).tangent


beh("forward_ad[module params]", FWD + ("torch.func.functional_call",), dual_module)


def level_calls(t):
    fw = FW(t)
    lv = fw.enter_dual_level()
    d = fw.make_dual(t.tensor(X), t.tensor(X))
    jv = fw.unpack_dual(d * d).tangent
    fw.exit_dual_level()
    return lv, jv


beh("forward_ad[enter/exit level]", ("torch.autograd.forward_ad.enter_dual_level",
                                     "torch.autograd.forward_ad.exit_dual_level"), level_calls)
beh("forward_ad raises[no level]", FWD, lambda t: FW(t).make_dual(t.tensor(X), t.tensor(X)))


def bad_tangent(t):
    with FW(t).dual_level():
        return FW(t).make_dual(t.tensor(X), t.ones(2))


beh("forward_ad raises[tangent shape]", FWD, bad_tangent)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_autograd_functional_matches_pytorch(c):
    run_case(c)


def test_unpack_dual_refuses_tangents_through_no_grad():
    """PyTorch carries tangents through no_grad code; msnb's tape does not record
    there, so unpack_dual raises rather than return a tangent missing a term."""
    import msnb.adapter.torch as mt
    from msnb.adapter.torch._missing import NotSupportedError
    fw = mt.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(mt.ones(2), mt.ones(2))
        with mt.no_grad():
            z = d * 2
        with pytest.raises(NotSupportedError, match="grad recording off"):
            fw.unpack_dual(z + d)
