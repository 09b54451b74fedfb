"""Creation functions accept PyTorch's signatures; CUDA-style device code runs."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


@pytest.mark.parametrize("make", [
    lambda t: t.arange(5), lambda t: t.arange(1, 4), lambda t: t.arange(0, 1, 0.25), lambda t: t.linspace(0, 1, 5),
    lambda t: t.eye(3), lambda t: t.zeros(2, 3), lambda t: t.ones((2,)), lambda t: t.full((2, 2), 7),
    lambda t: t.zeros_like(t.ones(2, dtype=t.int32)), lambda t: t.tensor([[1, 2], [3, 4]]),
    lambda t: t.tensor([1.0, 2.0], dtype=t.float64), lambda t: t.from_numpy(np.arange(3, dtype=np.int16)),
    lambda t: t.empty(3).shape, lambda t: t.tensor(True),
])
def test_creation_matches_pytorch(make):
    r, m = make(real), make(mt)
    if isinstance(r, tuple):
        assert tuple(r) == tuple(m)
        return
    assert str(r.dtype) == str(m.dtype) and tuple(r.shape) == tuple(m.shape)
    np.testing.assert_allclose(m.numpy(), r.numpy())


def test_random_signatures_and_seeding():
    assert tuple(mt.randint(10, (2, 2)).shape) == (2, 2)
    assert mt.randint(0, 10, (3,)).dtype is mt.int64
    assert tuple(mt.normal(0.0, 1.0, (2, 3)).shape) == (2, 3)
    assert tuple(mt.normal(mt.zeros(4), mt.ones(4)).shape) == (4,)
    mt.manual_seed(3)
    a = mt.randn(5)
    mt.manual_seed(3)
    assert mt.equal(a, mt.randn(5))
    g = mt.Generator().manual_seed(1)
    assert sorted(mt.randperm(6, generator=g).tolist()) == list(range(6))
    assert set(mt.bernoulli(mt.full((100,), 0.5)).unique().tolist()) <= {0.0, 1.0}


def test_cuda_style_code_runs_on_the_active_device():
    device = mt.device("cuda" if mt.cuda.is_available() else "cpu")
    x = mt.ones(2).to(device).cuda().to("cuda").to(0).cpu()
    assert x.device == mt.device("cpu") and x.tolist() == [1.0, 1.0]
    assert mt.cuda.is_available() is False and mt.cuda.device_count() == 0
    mt.backends.cudnn.benchmark = True
    assert mt.accelerator.is_available() is False


def test_conversions():
    x = mt.tensor([[1.5, 2.0]])
    assert x.tolist() == [[1.5, 2.0]] and x[0, 0].item() == 1.5
    assert np.asarray(x).shape == (1, 2) and x.numpy().dtype == np.float32
    assert x.long().dtype is mt.int64 and x.to(mt.float16).dtype is mt.float16
    assert int(mt.tensor(3)) == 3 and float(mt.tensor(2.5)) == 2.5


def test_unsupported_names_fail_loudly():
    with pytest.raises(AttributeError, match="torch.hash_tensor is not supported by msnb yet"):
        mt.hash_tensor
    with pytest.raises(AttributeError, match="torch.lobpcg is not supported by msnb yet"):
        mt.lobpcg
    with pytest.raises(AttributeError, match="torch.Tensor.int_repr is not supported by msnb yet"):
        mt.tensor([1, 2]).int_repr()
    with pytest.raises(AttributeError, match="has no attribute 'definitely_not_torch'"):
        mt.definitely_not_torch


def test_backend_modules_import_as_modules():
    """``import torch.backends.cudnn as cudnn`` (dcgan, imagenet) works: a module whose flags are recorded."""
    import importlib
    cudnn = importlib.import_module("msnb.adapter.torch.backends.cudnn")
    cudnn.benchmark = True
    import msnb.adapter.torch as t
    assert t.backends.cudnn.benchmark is True and t.backends.cudnn.is_available() is False
    assert t.backends.mps.is_available() is False and t.backends.cuda.is_built() is False
    cudnn.benchmark = False
