"""PyTorch's in-place variants (``x.acosh_()``, ``x.cumsum_(0)``, ``x.clamp_min_(0)``)
exist for every out-of-place method msnb has: each returns ``x`` itself, holds
PyTorch's values, keeps ``x``'s dtype, and is refused on a leaf that requires
grad, as in PyTorch."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torch._tensor import _bind_inplace_variants  # noqa: F401 - the binding under test

DATA = [0.25, 0.5, 0.75]
#: argument lists tried in turn for each method (the first PyTorch accepts is compared)
ARGS = [(), (0,), (0.5,), ("other",)]


def _inplace_names():
    x = mt.ones(1)
    return sorted(n for n in dir(real.Tensor)
                  if n.endswith("_") and not n.startswith("_") and hasattr(x, n) and hasattr(real.Tensor, n[:-1]))


def _call(lib, name, args):
    lib.manual_seed(0)  # the random fillers (bernoulli_, normal_, ...) draw PyTorch's stream
    t = lib.tensor(DATA)
    args = [lib.tensor([0.5, 1.0, 2.0]) if a == "other" else a for a in args]
    return t, getattr(t, name)(*args)


def test_each_inplace_method_pytorch_accepts_on_floats_matches_it():
    compared = 0
    for name in _inplace_names():
        for args in ARGS:
            try:
                rt, rout = _call(real, name, args)
            except Exception:  # noqa: BLE001 - PyTorch refuses these arguments: try the next list
                continue
            if not isinstance(rout, real.Tensor) or rout is not rt:
                break
            mtt, mout = _call(mt, name, args)
            assert mout is mtt, name
            assert str(mtt.dtype) == str(rt.dtype), name
            np.testing.assert_allclose(mtt.detach().numpy(), rt.detach().numpy(), rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=name)
            compared += 1
            break
    assert compared > 100


@pytest.mark.parametrize("name", ["acosh_", "cumsum_", "clamp_min_", "lgamma_"])
def test_derived_variants_exist_and_refuse_leaves_like_pytorch(name):
    args = (0,) if name == "cumsum_" else (0.5,) if name == "clamp_min_" else ()
    for lib in (real, mt):
        w = lib.tensor(DATA, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            getattr(w, name)(*args)


def test_gradient_flows_through_a_derived_inplace_op():
    grads = []
    for lib in (real, mt):
        y = lib.tensor([1.5, 2.0], requires_grad=True)
        z = y * 2
        z.cumsum_(0)
        (z * lib.tensor([1.0, 3.0])).sum().backward()
        grads.append(y.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])
