"""Differential tests: the torch names libraries built on torch (torchmetrics,
lightning) read at import and use -- ``bincount``, the default device, the
deterministic-algorithms flag, ``Tensor.is_mps`` and friends, ``torch._C``'s
usage logger -- give PyTorch's answers, raise PyTorch's exception types, and
``torch._C`` names msnb lacks raise msnb's unsupported error."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, mt, real, registered, run_case

IDX = np.array([0, 2, 2, 5, 1], np.int64)
W32 = np.array([0.5, 1.0, 2.0, -1.0, 3.0], np.float32)

CASES = [
    case("bincount", registered("torch.bincount", "torch.Tensor.bincount"),
         lambda t, x: (t.bincount(x), x.bincount(minlength=9)), IDX, grad=False),
    case("bincount[weights f32]", registered("torch.bincount"),
         lambda t, x, w: t.bincount(x, weights=w, minlength=7), IDX, W32, grad=False),
    case("bincount[weights int -> f64]", registered("torch.bincount"),
         lambda t, x: t.bincount(x, weights=x), IDX, grad=False),
    case("bincount[empty]", registered("torch.bincount"),
         lambda t, x: t.bincount(x[:0]), IDX, grad=False),
    case("bincount[negative]", registered("torch.bincount"), lambda t, x: t.bincount(x - 1), IDX, kind="raises"),
    case("bincount[2-d]", registered("torch.bincount"), lambda t, x: t.bincount(x.reshape(1, 5)), IDX,
         kind="raises"),
    case("bincount[float]", registered("torch.bincount"), lambda t, x: t.bincount(x), W32, kind="raises"),
    case("bincount[weights length]", registered("torch.bincount"),
         lambda t, x, w: t.bincount(x, weights=w[:3]), IDX, W32, kind="raises"),
    case("get_default_device", registered("torch.get_default_device"),
         lambda t: str(t.get_default_device()) == str(t.empty(0).device), kind="behaviour"),
    case("deterministic flags", registered("torch.use_deterministic_algorithms",
                                           "torch.are_deterministic_algorithms_enabled",
                                           "torch.is_deterministic_algorithms_warn_only_enabled",
                                           "torch.get_deterministic_debug_mode", "torch.set_deterministic_debug_mode"),
         lambda t: _flags(t), kind="behaviour"),
    case("deterministic[non-bool]", registered("torch.use_deterministic_algorithms"),
         lambda t: t.use_deterministic_algorithms(1), kind="behaviour"),
    case("deterministic[bad debug mode]", registered("torch.set_deterministic_debug_mode"),
         lambda t: t.set_deterministic_debug_mode("loud"), kind="behaviour"),
    case("device kind flags", registered("torch.Tensor.is_mps", "torch.Tensor.is_xpu", "torch.Tensor.is_nested",
                                         "torch.Tensor.is_mkldnn", "torch.Tensor.is_sparse_csr"),
         lambda t: [getattr(t.ones(2), a) for a in ("is_mps", "is_xpu", "is_nested", "is_mkldnn", "is_sparse_csr")],
         kind="behaviour"),
]


def _flags(t):
    seen = []
    try:
        for mode, warn in ((True, False), (True, True), (False, True), (False, False)):
            t.use_deterministic_algorithms(mode, warn_only=warn)
            seen.append((t.are_deterministic_algorithms_enabled(), t.is_deterministic_algorithms_warn_only_enabled(),
                         t.get_deterministic_debug_mode()))
        for m in ("error", 1, "default"):
            t.set_deterministic_debug_mode(m)
            seen.append(t.get_deterministic_debug_mode())
    finally:
        t.use_deterministic_algorithms(False)
    return seen


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_library_internals(c):
    run_case(c)


def test_log_api_usage_once_prints_once_when_asked(monkeypatch, capsys):
    """PyTorch prints ``PYTORCH_API_USAGE <event>`` once per event with PYTORCH_API_USAGE_STDERR set; silent otherwise."""
    from msnb.adapter.torch import _C
    _C._log_api_usage_once("msnb.test.quiet")
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("PYTORCH_API_USAGE_STDERR", "1")
    _C._log_api_usage_once("msnb.test.loud")
    _C._log_api_usage_once("msnb.test.loud")
    assert capsys.readouterr().err == "PYTORCH_API_USAGE msnb.test.loud\n"
    with pytest.raises(TypeError):
        real._C._log_api_usage_once(3)
    with pytest.raises(TypeError):
        _C._log_api_usage_once(3)


def test_other_torch_C_names_raise_msnb_unsupported_error():
    with pytest.raises(AttributeError, match="torch._C._jit_set_profiling_mode is not supported by msnb"):
        mt._C._jit_set_profiling_mode(False)
    assert mt._C._get_tracing_state() is None and real._C._get_tracing_state() is None
