"""Differential tests of forward-mode AD duals against real PyTorch (the forward-AD
tutorial): ``make_dual`` keeps the tangent object itself when its layout is the
primal's and a copy in the primal's layout otherwise, and a dual made from a primal
that requires grad (a module's Parameter, as with ``functional_call``) carries its
tangent to the outputs."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
FWD = ("torch.autograd.forward_ad.dual_level", "torch.autograd.forward_ad.make_dual",
       "torch.autograd.forward_ad.unpack_dual")
R = np.random.default_rng(0)
P = R.standard_normal((4, 4)).astype(np.float32)
T = R.standard_normal((4, 4)).astype(np.float32)
X = R.standard_normal((3, 4)).astype(np.float32)


def beh(id, fn, names=FWD, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def kept(t):
    fw = t.autograd.forward_ad
    primal, tangent = t.tensor(P), t.tensor(T)
    with fw.dual_level():
        same = fw.unpack_dual(fw.make_dual(primal, tangent)).tangent
        other = fw.unpack_dual(fw.make_dual(primal, tangent.T)).tangent
        return same is tangent, other is tangent, other.is_contiguous(), other


beh("tangent kept when layouts match, copied otherwise", kept)


def from_requires_grad(t, parameter):
    fw = t.autograd.forward_ad
    base = t.nn.Parameter(t.tensor(P)) if parameter else t.tensor(P, requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(base, t.tensor(T))
        out = fw.unpack_dual((d.sin() * 2).sum(0))
        return out.primal, out.tangent


beh("dual of a Parameter", lambda t: from_requires_grad(t, True))
beh("dual of a tensor that requires grad", lambda t: from_requires_grad(t, False))


def functional_call_jvp(t):
    fw = t.autograd.forward_ad
    t.manual_seed(0)
    model = t.nn.Linear(4, 3)
    tangents = {n: t.ones_like(p) * 0.5 for n, p in model.named_parameters()}
    with fw.dual_level():
        duals = {n: fw.make_dual(p, tangents[n]) for n, p in model.named_parameters()}
        out = t.func.functional_call(model, duals, t.tensor(X))
        return fw.unpack_dual(out).tangent


beh("functional_call with dual parameters", functional_call_jvp,
    names=FWD + ("torch.func.functional_call",))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_forward_ad_duals_match_pytorch(c):
    run_case(c)
