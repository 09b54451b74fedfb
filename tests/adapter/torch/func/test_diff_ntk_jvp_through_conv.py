"""The neural-tangent-kernel tutorial's two computations on a small CNN, against real
PyTorch: ``vmap(jacrev)`` of a ``functional_call`` over the parameters (Jacobian
contraction), and ``vjp`` then ``jvp`` over the parameters (NTK-vector products) -- the
``jvp`` goes through the convolutions by double-vjp, so it needs their backward to be
differentiable.  Both kernels match PyTorch's, and each other, as the tutorial asserts."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, run_case

R = np.random.default_rng(4)
X1 = R.standard_normal((2, 2, 6, 6)).astype(np.float32)
X2 = R.standard_normal((2, 2, 6, 6)).astype(np.float32)
NAMES = ("torch.func.jvp", "torch.func.vjp", "torch.func.jacrev", "torch.func.vmap", "torch.func.functional_call")


def net_and_fn(t):
    t.manual_seed(0)
    net = t.nn.Sequential(t.nn.Conv2d(2, 3, 3, stride=2, padding=1), t.nn.ReLU(), t.nn.Conv2d(3, 2, 2),
                          t.nn.Flatten(), t.nn.Linear(8, 3))
    params = {k: v.detach() for k, v in net.named_parameters()}

    def fnet_single(params, x):
        return t.func.functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)
    return params, fnet_single


def ntk_by_jacobians(t):
    params, f = net_and_fn(t)
    vm = t.func.vmap(t.func.jacrev(f), (None, 0))
    j1 = [j.flatten(2) for j in vm(params, t.tensor(X1)).values()]
    j2 = [j.flatten(2) for j in vm(params, t.tensor(X2)).values()]
    return t.stack([t.einsum("Naf,Mbf->NMab", a, b) for a, b in zip(j1, j2)]).sum(0)


def ntk_by_products(t):
    params, f = net_and_fn(t)
    rows = []
    for a in t.tensor(X1):
        row = []
        for b in t.tensor(X2):
            out, vjp_fn = t.func.vjp(lambda p: f(p, a), params)
            cols = []
            for v in t.eye(out.numel()):
                (vjps,) = vjp_fn(v)
                cols.append(t.func.jvp(lambda p: f(p, b), (params,), (vjps,))[1])
            row.append(t.stack(cols))
        rows.append(t.stack(row))
    return t.stack(rows)


def both_agree(t):
    return bool(t.allclose(ntk_by_jacobians(t), ntk_by_products(t), atol=1e-4))


CASES = [case("NTK by Jacobian contraction", NAMES, ntk_by_jacobians, kind="behaviour", rtol=1e-4, atol=1e-5),
         case("NTK by vjp then jvp through convolutions", NAMES, ntk_by_products, kind="behaviour", rtol=1e-4,
              atol=1e-5),
         case("the two NTKs agree", NAMES, both_agree, kind="behaviour")]


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_ntk_matches_pytorch(c):
    run_case(c)
