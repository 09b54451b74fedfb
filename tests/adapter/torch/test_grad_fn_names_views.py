"""``grad_fn`` names of view, shape, reduction and matrix ops as PyTorch's.

msnb builds many ops from smaller kernels (``t`` from a permute, ``stack``
from unsqueeze + cat, ``var`` from mean/mul/sum/div); their result's node
still carries the name PyTorch's op gives, so ``print(y)`` shows
``grad_fn=<TBackward0>``, ``<SelectBackward0>``, ``<VarBackward0>`` ... as
PyTorch prints.  Each case is checked against real PyTorch: the node's
``name()`` and the ``grad_fn=<...>`` part of the printed tensor."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import mt, real

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1


CASES = {
    "t": lambda t, x: x[0].t(),
    "T": lambda t, x: x[0].T,
    "mT": lambda t, x: x.mT,
    "transpose": lambda t, x: x.transpose(0, 1),
    "permute": lambda t, x: x.permute(2, 0, 1),
    "squeeze": lambda t, x: x[:1].squeeze(),
    "squeeze(0)": lambda t, x: x[:1].squeeze(0),
    "unsqueeze": lambda t, x: x.unsqueeze(1),
    "stack": lambda t, x: t.stack([x, x]),
    "cat": lambda t, x: t.cat([x, x]),
    "x[0]": lambda t, x: x[0],
    "x[:, 1]": lambda t, x: x[:, 1],
    "x[1:]": lambda t, x: x[1:],
    "x[:, ::2]": lambda t, x: x[:, ::2],
    "x[0, 1:]": lambda t, x: x[0, 1:],
    "x[..., 0]": lambda t, x: x[..., 0],
    "x[None]": lambda t, x: x[None],
    "x[idx]": lambda t, x: x[t.tensor([1, 0])],
    "x[mask]": lambda t, x: x[x > 0],
    "chunk": lambda t, x: x.chunk(3, 1)[0],
    "split": lambda t, x: x.split(2, 2)[1],
    "split[list]": lambda t, x: x.split([1, 3], 2)[1],
    "unbind": lambda t, x: x.unbind(0)[1],
    "narrow": lambda t, x: x.narrow(1, 0, 2),
    "select": lambda t, x: x.select(1, 2),
    "view": lambda t, x: x.view(6, 4),
    "reshape": lambda t, x: x.reshape(-1),
    "flatten": lambda t, x: x.flatten(),
    "expand": lambda t, x: x[:, :1].expand(2, 3, 4),
    "repeat": lambda t, x: x.repeat(2, 1, 1),
    "flip": lambda t, x: x.flip(0),
    "roll": lambda t, x: x.roll(1, 0),
    "linear nobias": lambda t, x: t.nn.functional.linear(x, t.ones(5, 4)),
    "linear bias": lambda t, x: t.nn.functional.linear(x, t.ones(5, 4), t.ones(5)),
    "linear 2d nobias": lambda t, x: t.nn.functional.linear(x[0], t.ones(5, 4)),
    "linear 2d bias": lambda t, x: t.nn.functional.linear(x[0], t.ones(5, 4), t.ones(5)),
    "var": lambda t, x: x.var(),
    "var(1)": lambda t, x: x.var(1),
    "std": lambda t, x: x.std(),
    "std(1)": lambda t, x: x.std(1),
    "masked_fill": lambda t, x: x.masked_fill(x > 0, 0.0),
    "masked_fill_": lambda t, x: (x * 1).masked_fill_(x > 0, 0.0),
    "addmm": lambda t, x: t.addmm(t.ones(3), x[0], t.ones(4, 3)),
    "mm": lambda t, x: x[0] @ t.ones(4, 3),
    "bmm": lambda t, x: x @ t.ones(2, 4, 3),
    "matmul 3d@2d": lambda t, x: x @ t.ones(4, 3),
    "logsumexp": lambda t, x: x.logsumexp(1),
    "pad": lambda t, x: t.nn.functional.pad(x, (1, 1)),
    "pad reflect": lambda t, x: t.nn.functional.pad(x, (1, 1), mode="reflect"),
    "topk": lambda t, x: x.topk(2)[0],
    "sort": lambda t, x: x.sort()[0],
    "max(1)": lambda t, x: x.max(1)[0],
    "max": lambda t, x: x.max(),
    "min(1)": lambda t, x: x.min(1)[0],
    "mean": lambda t, x: x.mean(),
    "mean(1)": lambda t, x: x.mean(1),
    "sum": lambda t, x: x.sum(),
    "sum(1)": lambda t, x: x.sum(1),
    "prod": lambda t, x: x.prod(),
    "norm": lambda t, x: x.norm(),
    "abs": lambda t, x: x.abs(),
    "clamp": lambda t, x: x.clamp(0, 1),
    "where": lambda t, x: t.where(x > 0, x, 0.0),
    "pow": lambda t, x: x ** 2,
    "sqrt": lambda t, x: x.abs().sqrt(),
    "exp": lambda t, x: x.exp(),
    "log": lambda t, x: x.abs().log(),
    "neg": lambda t, x: -x,
    "sub": lambda t, x: x - 1,
    "rsub": lambda t, x: 1 - x,
    "mul": lambda t, x: x * 2,
    "div": lambda t, x: x / 2,
    "add": lambda t, x: x + 1,
    "tanh": lambda t, x: x.tanh(),
    "sigmoid": lambda t, x: x.sigmoid(),
    "relu": lambda t, x: x.relu(),
    "softmax": lambda t, x: x.softmax(-1),
    "cumsum": lambda t, x: x.cumsum(0),
    "gather": lambda t, x: x.gather(2, t.zeros(2, 3, 1, dtype=t.int64)),
    "index_select": lambda t, x: x.index_select(0, t.tensor([1])),
    "clone": lambda t, x: x.clone(),
    "contiguous-t": lambda t, x: x.transpose(0, 1).contiguous(),
    "float": lambda t, x: x.double(),
    "detach+": lambda t, x: x.detach().requires_grad_() * 1,
    "einsum": lambda t, x: t.einsum("bij->bji", x),
    "tril": lambda t, x: x.tril(),
    "outer": lambda t, x: t.outer(x[0, 0], x[0, 1]),
    "movedim": lambda t, x: x.movedim(0, 2),
    "swapaxes": lambda t, x: x.swapaxes(0, 1),
    "view_as": lambda t, x: x.view_as(x),
    "expand_as": lambda t, x: x[:, :1].expand_as(x),
    "squeeze(-1)": lambda t, x: x[..., :1].squeeze(-1),
    "flatten(1)": lambda t, x: x.flatten(1),
    "amax": lambda t, x: x.amax(1),
    "argmax-based": lambda t, x: x.max(dim=1).values,
    "maximum": lambda t, x: t.maximum(x, x * 2),
    "lerp": lambda t, x: t.lerp(x, x * 2, 0.5),
    "mean keepdim": lambda t, x: x.mean(-1, keepdim=True),
    "square": lambda t, x: x.square(),
    "rsqrt": lambda t, x: x.abs().add(1).rsqrt(),
    "reciprocal": lambda t, x: x.add(5).reciprocal(),
    "log_softmax": lambda t, x: x.log_softmax(-1),
    "avg_pool1d": lambda t, x: t.nn.functional.avg_pool1d(x, 2),
    "max_pool1d": lambda t, x: t.nn.functional.max_pool1d(x, 2),
    "adaptive_avg_pool2d": lambda t, x: t.nn.functional.adaptive_avg_pool2d(x[None], 1),
    "normalize": lambda t, x: t.nn.functional.normalize(x, dim=1),
    "cosine_similarity": lambda t, x: t.nn.functional.cosine_similarity(x, x * 2, dim=1),
    "baddbmm": lambda t, x: t.baddbmm(x, x, t.ones(2, 4, 4)),
    "unfold": lambda t, x: x.unfold(2, 2, 1),
    "cummax": lambda t, x: x.cummax(0)[0],
    "cummin": lambda t, x: x.cummin(1)[0],
    "conv1d": lambda t, x: t.nn.functional.conv1d(x, t.ones(2, 3, 2)),
    "conv1d bias": lambda t, x: t.nn.functional.conv1d(x, t.ones(2, 3, 2), t.ones(2)),
    "cdist": lambda t, x: t.cdist(x, x * 2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_node_name_and_print_match_pytorch(name):
    shown = []
    for t in (real, mt):
        x = t.tensor(X, requires_grad=True)
        out = CASES[name](t, x)
        shown.append((out.grad_fn.name(), repr(out).rsplit("grad_fn=", 1)[-1]))
    assert shown[1] == shown[0]


@pytest.mark.parametrize("name", ["chunk", "split", "unbind"])
def test_every_piece_of_a_split_is_named(name):
    """All the views ``split`` / ``chunk`` / ``unbind`` return carry PyTorch's name, not only the first."""
    pieces = {"chunk": lambda x: x.chunk(3, 1), "split": lambda x: x.split(2, 2), "unbind": lambda x: x.unbind(0)}
    names = []
    for t in (real, mt):
        names.append([p.grad_fn.name() for p in pieces[name](t.tensor(X, requires_grad=True))])
    assert names[1] == names[0]


def test_renamed_ops_keep_their_gradients():
    """Naming changes nothing numerically: a chain of renamed ops backpropagates as in PyTorch."""
    grads = []
    for t in (real, mt):
        x = t.tensor(X, requires_grad=True)
        y = t.stack([x[0].t(), x[1].transpose(0, 1)]).var(1).logsumexp(0)
        z = t.nn.functional.pad(x.masked_fill(x > 0.5, 0.25), (1, 1)).std() + y.sum() + (1 - x).square().sum()
        z.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)
