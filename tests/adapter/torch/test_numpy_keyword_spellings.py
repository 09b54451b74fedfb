"""NumPy's keyword spellings (``axis``, ``keepdims``, ``x``, ``x2``) where PyTorch's parser takes them.

d2l writes ``y_hat.argmax(axis=1)`` and ``X.sum(axis=0, keepdims=True)``; its
batch-norm chapter failed on the first of them.  PyTorch takes the spellings on
native functions only, so the Python-level ones (``torch.split``,
``Tensor.unique``, ``F.softmax``) must still refuse them, and giving both
spellings of one argument is a ``TypeError``.
"""

import pytest

from .harness import compare_behaviour, compare_raises


def _x(t):
    return t.arange(12.0).reshape(3, 4) - 5


_ACCEPTED = {
    "Tensor.argmax-axis": lambda t: _x(t).argmax(axis=1),
    "Tensor.sum-axis-keepdims": lambda t: _x(t).sum(axis=0, keepdims=True),
    "Tensor.mean-axis": lambda t: _x(t).mean(axis=1, keepdims=True),
    "Tensor.max-axis": lambda t: _x(t).max(axis=1),
    "Tensor.softmax-axis": lambda t: _x(t).softmax(axis=0),
    "Tensor.cumsum-axis": lambda t: _x(t).cumsum(axis=1),
    "Tensor.cumsum_-axis": lambda t: _x(t).cumsum_(axis=1),
    "Tensor.std-axis-keepdims": lambda t: _x(t).std(axis=0, keepdims=True),
    "Tensor.squeeze-axis": lambda t: _x(t)[:1].squeeze(axis=0),
    "Tensor.unsqueeze-axis": lambda t: _x(t).unsqueeze(axis=0).shape,
    "torch.sum-x-axis": lambda t: t.sum(x=_x(t), axis=0),
    "torch.sum-a-axis": lambda t: t.sum(a=_x(t), axis=0),
    "torch.add-x1-x2": lambda t: t.add(x1=_x(t), x2=_x(t)),
    "torch.add-input-x2": lambda t: t.add(input=_x(t), x2=_x(t)),
    "torch.cat-axis": lambda t: t.cat([_x(t), _x(t)], axis=1),
    "torch.stack-axis": lambda t: t.stack([_x(t), _x(t)], axis=1),
    "torch.argmin-axis-keepdims": lambda t: t.argmin(_x(t), axis=0, keepdims=True),
    "torch.logsumexp-axis": lambda t: t.logsumexp(_x(t), axis=1),
    "torch.amax-axis": lambda t: t.amax(_x(t), axis=(0, 1)),
    "torch.softmax-axis": lambda t: t.softmax(_x(t), axis=1),
    "torch.flatten-input": lambda t: t.flatten(x=_x(t)),
    "torch.exp-x": lambda t: t.exp(x=_x(t)),
    "torch.relu-a": lambda t: t.relu(a=_x(t)),
    "Tensor.add-x2": lambda t: _x(t).add(x2=_x(t)),
    "linalg.vector_norm-x-axis": lambda t: t.linalg.vector_norm(x=_x(t), axis=0),
    "special.logsumexp-axis": lambda t: t.special.logsumexp(_x(t), axis=1),
    "fft.fft-axis": lambda t: t.fft.fft(_x(t), axis=0).abs(),
    "nn.functional.gelu-x": lambda t: __import__(t.__name__ + ".nn.functional", fromlist=["gelu"]).gelu(x=_x(t)),
}


@pytest.mark.parametrize("name", sorted(_ACCEPTED))
def test_native_functions_take_numpy_spellings(name):
    compare_behaviour(_ACCEPTED[name])


_REFUSED = {
    "Tensor.argmax-axis-and-dim": lambda t: _x(t).argmax(axis=1, dim=1),
    "Tensor.sum-keepdim-and-keepdims": lambda t: _x(t).sum(0, keepdim=True, keepdims=True),
    "torch.split-axis": lambda t: t.split(_x(t), 2, axis=0),
    "Tensor.split-axis": lambda t: _x(t).split(2, axis=0),
    "Tensor.unique-axis": lambda t: _x(t).unique(axis=0),
    "nn.functional.softmax-axis": lambda t: __import__(t.__name__ + ".nn.functional", fromlist=["softmax"]).softmax(
        _x(t), axis=0),
    "Tensor.type-axis": lambda t: _x(t).type(axis=1),
    # a spelling of self (the method's input) by keyword is a TypeError, translated or not
    "Tensor.exp-x": lambda t: _x(t).exp(x=_x(t)),
    "Tensor.neg-input": lambda t: _x(t).neg(input=_x(t)),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_python_level_functions_and_double_spellings_refuse(name):
    compare_raises(_REFUSED[name])


def test_wrapped_functions_still_pickle_by_reference():
    """``rpc_sync(worker, torch.add, ...)`` and ``mp.spawn`` pickle torch functions by
    name: the spelling wrapper must be the object found at that name."""
    import pickle

    import msnb.adapter.torch as mt
    for fn in (mt.add, mt.sum, mt.linalg.vector_norm, mt.special.logsumexp, mt.nn.functional.gelu):
        assert pickle.loads(pickle.dumps(fn)) is fn


def test_methods_whose_only_spelling_is_of_self_are_not_wrapped():
    """``x.exp()`` pays no spelling wrapper (one Python call per op: benchmarks/op_overhead.py)."""
    import msnb.adapter.torch as mt
    for name in ("exp", "neg", "relu", "abs", "sqrt"):
        assert not getattr(mt.Tensor.__dict__[name], "_msnb_numpy_names", False), name
    assert getattr(mt.Tensor.__dict__["add"], "_msnb_numpy_names", False)  # other= has the x2 spelling
    assert getattr(mt.exp, "_msnb_numpy_names", False)  # torch.exp(x=...) still translates
