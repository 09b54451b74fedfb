"""``share_memory_`` / ``Module.share_memory`` and multiprocessing's pickler, in one process: a shared
tensor's reads and writes go through its shared-memory segment, which is what another process maps."""

from __future__ import annotations

import io
import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

import msnb.adapter.torch as torch
import msnb.adapter.torch.multiprocessing  # noqa: F401 - registers the reducers


def _through_multiprocessing(obj):
    """What the receiving process gets: multiprocessing's pickler, then plain unpickling."""
    buf = io.BytesIO()
    ForkingPickler(buf).dump(obj)
    return pickle.loads(buf.getvalue())


def test_share_memory_keeps_the_values_and_writes_reach_the_other_side():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared()
    other = _through_multiprocessing(t)
    assert other.is_shared() and other.tolist() == [[0, 1, 2], [3, 4, 5]]
    t.add_(1)  # in place: stored into the segment
    assert other.tolist() == [[1, 2, 3], [4, 5, 6]]
    other[0, 0] = 100.0
    assert t[0, 0].item() == 100.0


def test_a_new_shape_ends_the_sharing_honestly():
    t = torch.zeros(3).share_memory_()
    t.data = torch.zeros(5)
    assert not t.is_shared()


def test_sending_a_tensor_moves_it_to_shared_memory_as_pytorch_does():
    t = torch.ones(3, dtype=torch.int64)
    got = _through_multiprocessing(t)
    assert t.is_shared() and got.dtype == torch.int64 and got.tolist() == [1, 1, 1]
    assert not pickle.loads(pickle.dumps(torch.ones(2))).is_shared()  # plain pickle still copies


def test_module_share_memory_shares_parameters_and_buffers_and_optimizer_steps_land_there():
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters()) and all(b.is_shared() for b in model.buffers())
    twin = _through_multiprocessing(model)
    assert isinstance(twin[0].weight, torch.nn.Parameter) and twin[0].weight.requires_grad
    opt = torch.optim.SGD(twin.parameters(), lr=0.5)
    twin(torch.ones(4, 3)).sum().backward()
    before = model[0].bias.detach().clone()
    grad = twin[0].bias.grad.clone()
    opt.step()
    np.testing.assert_allclose(model[0].bias.detach().numpy(), (before - 0.5 * grad).numpy(), rtol=1e-6)


def test_what_cannot_cross_a_process_boundary_says_so():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf tensor which requires_grad"):
        _through_multiprocessing(x * 2)
    with pytest.raises(NotImplementedError, match="bfloat16"):
        torch.ones(2, dtype=torch.bfloat16).share_memory_()
