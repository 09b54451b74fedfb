"""msnb's stand-in for ``__torch_function__`` (msnb/adapter/torch/fx/_hook.py):
torch functions record a node when given a Proxy only while a Proxy (or a
trace) is alive; otherwise every name is the original function, so code that
never uses FX pays nothing.  A trace that fails leaves nothing patched."""

from __future__ import annotations

import sys

import pytest

import msnb.adapter.torch as mt
from msnb.adapter.torch import fx
from msnb.adapter.torch.fx import _hook
from msnb.adapter.torch.nn.modules.module import Module

_PATCHED = ((mt, "relu"), (mt, "cat"), (mt.nn.functional, "relu"), (mt.linalg, "norm"), (mt.nn.ReLU, "_fn"),
            (mt.Tensor, "__add__"), (mt.Tensor, "__rmul__"))


@pytest.fixture(autouse=True)
def _masked_tensor_hook_off():
    """Once torch.masked's MaskedTensor is loaded (by an earlier test on this worker) the wrappers
    stay in place for the session; these tests look at the idle hook, so they take it away meanwhile."""
    masked = sys.modules.get("msnb.adapter.torch.masked.maskedtensor")
    if masked is not None:
        masked._unhook()
    yield
    if masked is not None:
        masked._hook_once()


def _current():
    return [vars(owner)[name] for owner, name in _PATCHED]


def test_no_proxy_means_the_original_functions():
    assert not _hook.active()
    originals = _current()
    assert all(not hasattr(getattr(f, "__func__", f), "_msnb_fx_original") for f in originals)
    g = fx.Graph()
    p = fx.Proxy(g.placeholder("x"))
    assert _hook.active()
    wrapped = _current()
    assert all(w is not o for w, o in zip(wrapped, originals))
    # with a Proxy alive, calls on tensors still compute as before
    assert mt.relu(mt.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
    assert (mt.tensor([1.0]) + mt.tensor([2.0])).tolist() == [3.0]
    assert mt.relu(p).node.target is originals[0]
    del p
    assert not _hook.active()
    assert all(c is o for c, o in zip(_current(), originals))


def test_failed_trace_restores_everything():
    before = _current() + [vars(Module)["__call__"], vars(Module)["__getattr__"]]

    class Branchy(mt.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = mt.nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x) if x.sum() > 0 else x

    with pytest.raises(fx.proxy.TraceError) as kept:  # its traceback keeps the trace's Proxies alive
        fx.symbolic_trace(Branchy())
    assert kept.value is not None and not _hook.active()
    assert _current() + [vars(Module)["__call__"], vars(Module)["__getattr__"]] == before
    assert Branchy()(mt.ones(1, 2)).shape == (1, 2)
