"""``torch.as_strided`` of a view addresses the view's storage, which is its base's: a partial
view (``base[5:15]``) reads the elements around it, the default offset is the view's own, and
only elements inside the view get gradient (PyTorch's; its OpInfo ``as_strided.partial_views``
samples).  Differential against real PyTorch: values and first-order gradients, to the base and
to a leaf view, function and method forms."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(5)
FLAT = rng.standard_normal(20)
GRID = rng.standard_normal((4, 5))
NAMES = registered("torch.as_strided", "torch.Tensor.as_strided")

CASES = []
for _off in (None, 0, 3, 10):
    _kw = {} if _off is None else {"storage_offset": _off}
    CASES.append(case(f"slice-of-flat[offset={_off}]", NAMES,
                      lambda t, b, kw=_kw: t.as_strided(b[5:15], (2, 2), (1, 2), **kw), FLAT))
    CASES.append(case(f"row-slice[offset={_off}]", NAMES,
                      lambda t, b, kw=_kw: b[1:3].as_strided((3, 2), (2, 5), **kw), GRID))
CASES.append(case("view-of-view", NAMES, lambda t, b: t.as_strided(b.reshape(-1)[4:16][2:10], (2, 3), (3, 1)),
                  FLAT))
CASES.append(case("whole-tensor", NAMES, lambda t, b: t.as_strided(b, (3, 3), (5, 1), 1), GRID))


def _leaf_view(t, base, off, n):
    """A leaf view of a base that does not require grad (the OpInfo samples' inputs)."""
    v = t.tensor(base)[off:off + n]
    v.requires_grad_(True)
    return v


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_as_strided_of_views(c):
    run_case(c)


@pytest.mark.parametrize("off", [None, 0, 10])
def test_gradient_reaches_a_leaf_view_inside_it_only(off):
    import torch
    import msnb.adapter.torch as mt
    kw = {} if off is None else {"storage_offset": off}
    grads, outs = [], []
    for lib in (torch, mt):
        v = _leaf_view(lib, FLAT.astype(np.float32), 5, 10)
        y = lib.as_strided(v, (2, 2), (1, 2), **kw)
        (y * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        outs.append(y.detach().numpy())
        grads.append(v.grad.numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)
