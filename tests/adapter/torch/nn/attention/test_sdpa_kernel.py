"""``torch.nn.attention.sdpa_kernel`` / ``SDPBackend`` against real PyTorch on CPU.

For every backend list and every kind of input (masks, causal, dropout,
grouped heads, 3-D inputs, mismatched shapes, integer dtypes) both libraries
must agree on the outcome: the same values and gradients, or the same
exception with the same message and the same warnings saying why the flash
kernel refused.  Also: a fully masked row gives zeros (PyTorch's safe
softmax), the switches are restored on exit, and ``torch.backends.cuda``'s
``*_sdp_enabled`` report what the block set."""

import warnings

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

NAMES = ("torch.nn.attention.sdpa_kernel", "torch.nn.attention.SDPBackend",
         "torch.nn.attention.WARN_FOR_UNFUSED_KERNELS",
         *(f"torch.nn.attention.SDPBackend.{b}" for b in ("ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION",
                                                          "CUDNN_ATTENTION", "OVERRIDEABLE")))

RNG = np.random.default_rng(7)


def _arr(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


Q, K, V = _arr(2, 3, 4, 8), _arr(2, 3, 5, 8), _arr(2, 3, 5, 8)
BOOL_MASK = RNG.random((4, 5)) > 0.3
BOOL_MASK[:, 0] = True
INPUTS = {
    "plain": ((Q, K, V), {}),
    "bool mask": ((Q, K, V), {"attn_mask": BOOL_MASK}),
    "float 4-D mask": ((Q, K, V), {"attn_mask": _arr(2, 1, 4, 5)}),
    "causal": ((Q, K, V), {"is_causal": True}),
    "causal and mask": ((Q, K, V), {"is_causal": True, "attn_mask": _arr(4, 5)}),
    "scale": ((Q, K, V), {"scale": 0.3}),
    "grouped heads": ((_arr(2, 6, 4, 8), K, V), {"enable_gqa": True}),
    "grouped heads that do not divide": ((_arr(2, 4, 4, 8), K, V), {"enable_gqa": True}),
    "dropout": ((Q, K, V), {"dropout_p": 0.5}),
    "3-D inputs": ((Q[0], K[0], V[0]), {}),
    "value head dim differs": ((Q, K, _arr(2, 3, 5, 6)), {}),
    "key batch broadcast": ((Q, K[:1], V[:1]), {}),
    "heads differ without gqa": ((_arr(2, 6, 4, 8), K, V), {}),
    "3-D mask": ((Q, K, V), {"attn_mask": _arr(3, 4, 5)}),
    "float64": ((Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64)), {}),
}
B = ("MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "OVERRIDEABLE")
CHOICES = {"default": None, **{b: (b,) for b in B}, "MATH+EFFICIENT": ("EFFICIENT_ATTENTION", "MATH"),
           "FLASH+CUDNN": ("FLASH_ATTENTION", "CUDNN_ATTENTION"), "none": ()}


def _run(lib, choice, arrays, kw):
    """(outcome, value or exception text, gradients, warning texts) of one call."""
    sk, sb = lib.nn.attention.sdpa_kernel, lib.nn.attention.SDPBackend
    ts = [lib.tensor(a, requires_grad=True) for a in arrays]
    kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        try:
            if choice is None:
                out = lib.nn.functional.scaled_dot_product_attention(*ts, **kw)
            else:
                with sk([getattr(sb, b) for b in choice]):
                    out = lib.nn.functional.scaled_dot_product_attention(*ts, **kw)
        except Exception as e:  # noqa: BLE001 - the outcome being compared
            return "raised", f"{type(e).__name__}: {e}", None, [str(w.message).split(" (Triggered")[0] for w in got]
    grads = None
    if "dropout_p" not in kw:
        (out * lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)).astype(
            str(out.dtype).replace("torch.", "")))).sum().backward()
        grads = [t.grad.detach().numpy() for t in ts]
    return "ran", out.detach().numpy() if "dropout_p" not in kw else tuple(out.shape), grads, \
        [str(w.message).split(" (Triggered")[0] for w in got if "sdp" in str(w.message).lower() or
         "attention" in str(w.message).lower() or "kernel" in str(w.message).lower()]


@pytest.mark.parametrize("choice", sorted(CHOICES))
def test_backend_choice_matches_pytorch_on_cpu(choice):
    for what, (arrays, kw) in INPUTS.items():
        r = _run(real, CHOICES[choice], arrays, kw)
        m = _run(mt, CHOICES[choice], arrays, kw)
        where = f"{choice} / {what}"
        assert m[0] == r[0], f"{where}: msnb {m[0]} ({m[1]}), torch {r[0]} ({r[1]})"
        assert m[3] == r[3], f"{where}: warnings {m[3]} != torch {r[3]}"
        if r[0] == "raised":  # the selection's own errors word for word; a shape error from matmul by type
            own = any(w in r[1] for w in ("kernel", "backend", "heads", "attn_mask"))
            assert (m[1] == r[1]) if own else m[1].split(":")[0] == r[1].split(":")[0], f"{where}: {m[1]} / {r[1]}"
            continue
        if isinstance(r[1], tuple):
            assert m[1] == r[1], where
            continue
        tol = 1e-12 if r[1].dtype == np.float64 else 1e-6
        np.testing.assert_allclose(m[1], r[1], rtol=1e-5, atol=tol, err_msg=where)
        for i, (gm, gr) in enumerate(zip(m[2], r[2])):
            np.testing.assert_allclose(gm, gr, rtol=1e-4, atol=1e-5, err_msg=f"{where}: gradient {i}")


def test_fully_masked_rows_give_zeros_and_zero_gradients():
    mask = np.ones((4, 5), bool)
    mask[1] = False
    fmask = np.zeros((4, 5), np.float32)
    fmask[2] = -np.inf
    for m in (mask, fmask):
        for choice in (None, ("MATH",), ("FLASH_ATTENTION",)):
            r, mm = (_run(lib, choice, (Q, K, V), {"attn_mask": m}) for lib in (real, mt))
            assert not np.isnan(mm[1]).any()
            np.testing.assert_allclose(mm[1], r[1], rtol=1e-5, atol=1e-6)
            for gm, gr in zip(mm[2], r[2]):
                np.testing.assert_allclose(gm, gr, rtol=1e-4, atol=1e-5)


def _members(t):
    sb = t.nn.attention.SDPBackend
    return [(b.name, int(b), repr(b), str(b)) for b in (sb.ERROR, sb.MATH, sb.FLASH_ATTENTION,
                                                       sb.EFFICIENT_ATTENTION, sb.CUDNN_ATTENTION, sb.OVERRIDEABLE)]


def test_sdpbackend_members_match():
    assert _members(mt) == _members(real)
    assert mt.nn.attention.WARN_FOR_UNFUSED_KERNELS is real.nn.attention.WARN_FOR_UNFUSED_KERNELS


def _switches(t):
    c = t.backends.cuda
    return c.flash_sdp_enabled(), c.math_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.cudnn_sdp_enabled()


def _states(t):
    sk, sb = t.nn.attention.sdpa_kernel, t.nn.attention.SDPBackend
    out = [_switches(t)]
    with sk(sb.MATH):
        out.append(_switches(t))
        with sk([sb.FLASH_ATTENTION, sb.CUDNN_ATTENTION], set_priority=True):
            out.append(_switches(t))
        out.append(_switches(t))
    out.append(_switches(t))
    try:
        with sk(sb.EFFICIENT_ATTENTION):
            raise KeyError("leaves the block")
    except KeyError:
        out.append(_switches(t))
    t.backends.cuda.enable_math_sdp(False)
    out.append(_switches(t))
    t.backends.cuda.enable_math_sdp(True)
    with sk(sb.MATH) as got:
        out.append(got)
    return out


def test_switches_are_set_inside_and_restored_after():
    assert _states(mt) == _states(real)


@pytest.mark.parametrize("bad", ["math", (real.nn.attention.SDPBackend.MATH,), 0])
def test_a_backend_that_is_not_sdpbackend_is_refused_alike(bad):
    errs = []
    for t in (real, mt):
        arg = bad if not isinstance(bad, tuple) else tuple(getattr(t.nn.attention.SDPBackend, b.name) for b in bad)
        with pytest.raises(AssertionError) as e:
            with t.nn.attention.sdpa_kernel(arg):
                pass
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def test_import_from_a_torch_cell():
    from msnb.runtime.importer import ImportScope

    with ImportScope():
        from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: PLC0415 - what a cell writes
    assert sdpa_kernel is mt.nn.attention.sdpa_kernel and SDPBackend is mt.nn.attention.SDPBackend
