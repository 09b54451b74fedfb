"""Shape ops and indexing match PyTorch, including gradients through them."""

import numpy as np
import pytest

from .harness import compare

rng = np.random.default_rng(1)
X = rng.standard_normal((2, 3, 4)).astype(np.float32)

SHAPE = {
    "view": lambda t, x: x.view(6, 4), "reshape": lambda t, x: x.reshape(-1), "permute": lambda t, x: x.permute(2, 0, 1),
    "transpose": lambda t, x: x.transpose(0, 2), "squeeze": lambda t, x: x.unsqueeze(1).squeeze(1),
    "flatten": lambda t, x: x.flatten(1), "cat": lambda t, x: t.cat([x, x * 2], 1),
    "stack": lambda t, x: t.stack([x, x], 0), "split": lambda t, x: x.split([1, 2], 1),
    "chunk": lambda t, x: x.chunk(2, 2), "expand": lambda t, x: x[:, :1].expand(2, 3, 4),
    "repeat": lambda t, x: x.repeat(1, 2, 1), "flip": lambda t, x: x.flip(0),
    "where": lambda t, x: t.where(x > 0, x, x * 0.1), "masked_fill": lambda t, x: x.masked_fill(x < 0, 0.0),
    "gather": lambda t, x: x.gather(2, t.tensor([[[0, 3], [1, 1], [2, 0]]] * 2)),
    "index_select": lambda t, x: x.index_select(2, t.tensor([3, 0])),
    "scatter": lambda t, x: t.zeros(2, 3, 4).scatter(2, t.tensor([[[0], [1], [2]]] * 2), x[:, :, :1]),
    "unbind": lambda t, x: x.unbind(1), "narrow": lambda t, x: x.narrow(2, 1, 2), "tril": lambda t, x: x[0].tril(),
}


@pytest.mark.parametrize("name", sorted(SHAPE))
def test_shape_ops(name):
    compare(SHAPE[name], X, names=(f"torch.{name}",))


INDEX = {
    "int": lambda t, x: x[1], "slice_step": lambda t, x: x[:, ::2, 1:], "none_ellipsis": lambda t, x: x[None, ..., 0],
    "negative": lambda t, x: x[-1, -2], "bool_mask": lambda t, x: x[x > 0], "int_list": lambda t, x: x[:, [0, 2]],
    "int_tensor_pair": lambda t, x: x[t.tensor([0, 1]), t.tensor([2, 0])],
    "dup_indices": lambda t, x: x[t.tensor([0, 0, 1])],
}


@pytest.mark.parametrize("name", sorted(INDEX))
def test_getitem(name):
    compare(INDEX[name], X, names=("torch.Tensor.__getitem__",))


def test_setitem_matches_pytorch():
    def f(t, x):
        y = x * 1
        y[0, :, 0::2] = 7.0
        y[y > 1.5] = -1.0
        y[:, 1] = t.tensor([1.0, 2.0, 3.0, 4.0])
        return y
    compare(f, X, names=("torch.Tensor.__setitem__",))


def test_einsum_and_matmul():
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    compare(lambda t, x, y: x @ y, a, b, rtol=1e-4, names=("torch.matmul",))
    compare(lambda t, x, y: t.bmm(x, y), a, b, rtol=1e-4, names=("torch.bmm",))
    compare(lambda t, x, y: t.einsum("bij,bjk->bik", x, y), a, b, rtol=1e-4, names=("torch.einsum",))
    compare(lambda t, x, y: t.einsum("bij,bjk->ik", x, y), a, b, rtol=1e-4, names=("torch.einsum",))
    compare(lambda t, x: x @ x[0, 0], a, rtol=1e-4, names=("torch.matmul",))
