"""Calls that use the parameters PyTorch's signatures have and msnb's lacked
(issue #14 point 7: ``inspect.signature`` shows PyTorch's signature, so what
it shows must also work).  Each runs on real PyTorch and msnb and must give
the same result or raise the same exception type."""

import warnings

import pytest

from .harness import compare_behaviour


def _enable_grad_bare_decorator(t):
    @t.enable_grad
    def grad_on():
        return t.is_grad_enabled()

    with t.no_grad():
        return grad_on(), t.is_grad_enabled()


def _hardtanh_deprecated_names(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = t.nn.Hardtanh(min_value=-0.5, max_value=0.25)
    assert any("deprecated" in str(w.message) for w in caught)
    return m.min_val, m.max_val, m(t.tensor([-2.0, 0.0, 2.0]))


def _tensordot_out(t):
    out = t.empty(0)
    res = t.tensordot(t.arange(6.0).reshape(2, 3), t.arange(12.0).reshape(3, 4), dims=1, out=out)
    return res is out, out


@pytest.mark.parametrize("fn", [
    _enable_grad_bare_decorator,
    lambda t: (t.enable_grad()(lambda: t.is_grad_enabled()))(),
    _hardtanh_deprecated_names,
    lambda t: t.nn.Hardtanh(1.0, 1.0),  # AssertionError in both
    _tensordot_out,
    lambda t: t.nn.Conv2d(1, 2, 3, output_padding=1),  # TypeError: not a parameter of Conv2d
    lambda t: t.nn.Conv1d(1, 2, 3, 1, 0, 1, 1, False, "zeros").bias,
], ids=["enable_grad-bare-decorator", "enable_grad-called", "Hardtanh-min_value", "Hardtanh-bad-range",
        "tensordot-out", "Conv2d-no-output_padding", "Conv1d-positional"])
def test_pytorch_parameters_work(fn):
    compare_behaviour(fn)


def test_compile_takes_pytorchs_options():
    """msnb only (real ``torch.compile`` imports its compiler stack, ~40 s):
    PyTorch's compiler options are taken; ``disable=True`` returns the module."""
    import msnb.adapter.torch as t

    lin = t.nn.Linear(2, 2)
    compiled = t.compile(lin, fullgraph=True, dynamic=False, backend="inductor", mode="reduce-overhead",
                         options={}, name="lin", recompile_limit=4, isolate_recompiles=False, shapes_spec=None)
    assert type(compiled).__name__ == "OptimizedModule" and compiled._orig_mod is lin
    assert t.compile(disable=True)(lin) is lin
