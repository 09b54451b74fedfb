"""Differential helpers for modules: build the same layer in real PyTorch and
in msnb, copy real torch's ``state_dict`` into msnb's, run the same inputs and
compare outputs and the gradients w.r.t. every float input and parameter."""

from __future__ import annotations

import numpy as np

from ..harness import COVERED, mt, real

__all__ = ["check_module", "copy_state", "to_lib", "np_of", "COVERED", "mt", "real"]


def np_of(x):
    x = x.detach() if hasattr(x, "detach") else x
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def to_lib(lib, a, grad=True):
    if a is None:
        return None
    t = lib.tensor(a)
    if grad and np.asarray(a).dtype.kind == "f":
        t.requires_grad_(True)
    return t


def copy_state(real_mod, msnb_mod):
    """The brief's recipe: real torch's state_dict values into msnb's module."""
    msnb_mod.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in real_mod.state_dict().items()})


def _flat(x):
    if isinstance(x, (tuple, list)):
        out = []
        for v in x:
            out.extend(_flat(v))
        return out
    return [x]


def _close(m, r, rtol, atol, what):
    np.testing.assert_allclose(np_of(m).astype(np.float64), np_of(r).astype(np.float64), rtol=rtol, atol=atol,
                               err_msg=what)


def check_module(make, *arrays, call=None, train=False, rtol=1e-5, atol=1e-6, grad=True, names=(),
                 check_repr=True, grad_rtol=None):
    """``make(lib)`` builds the module in one library; ``call(mod, *tensors)``
    (default ``mod(*tensors)``) runs it.  Checks state_dict keys (names and
    order), repr, outputs, buffers after the call, and gradients."""
    rm, mm = make(real), make(mt)
    assert list(rm.state_dict()) == list(mm.state_dict()), (list(rm.state_dict()), list(mm.state_dict()))
    if check_repr:
        assert repr(mm) == repr(rm), f"\n{mm!r}\n!=\n{rm!r}"
    copy_state(rm, mm)
    rm.train(train)
    mm.train(train)
    rin = [to_lib(real, a, grad) for a in arrays]
    min_ = [to_lib(mt, a, grad) for a in arrays]
    call = call or (lambda mod, *xs: mod(*xs))
    routs, mouts = _flat(call(rm, *rin)), _flat(call(mm, *min_))
    assert len(routs) == len(mouts)
    for i, (r, m) in enumerate(zip(routs, mouts)):
        if r is None:
            assert m is None, f"output {i}: torch gives None"
            continue
        assert tuple(r.shape) == tuple(m.shape), (i, r.shape, m.shape)
        assert str(r.dtype) == str(m.dtype), (i, r.dtype, m.dtype)
        _close(m, r, rtol, atol, f"output {i}")
    for (k, rb), (k2, mb) in zip(rm.named_buffers(), mm.named_buffers()):
        assert k == k2
        _close(mb, rb, rtol, atol, f"buffer {k}")
    if grad:
        rng = np.random.default_rng(0)
        pairs = [(r, m) for r, m in zip(routs, mouts) if r is not None and r.dtype.is_floating_point
                 and r.requires_grad]
        if pairs:
            ws = [rng.standard_normal(tuple(r.shape)).astype(np.float32) for r, _ in pairs]
            sum((r * real.tensor(w)).sum() for (r, _), w in zip(pairs, ws)).backward()
            sum((m * mt.tensor(w)).sum() for (_, m), w in zip(pairs, ws)).backward()
            gr = grad_rtol or max(rtol, 1e-4)
            ga = max(atol, 1e-5)
            for i, (ri, mi) in enumerate(zip(rin, min_)):
                if ri is not None and ri.requires_grad:
                    if ri.grad is None:
                        assert mi.grad is None or not np.any(np_of(mi.grad)), f"input {i}"
                    else:
                        assert mi.grad is not None, f"msnb gave no gradient for input {i}"
                        _close(mi.grad, ri.grad, gr, ga, f"grad of input {i}")
            mparams = dict(mm.named_parameters())
            for k, rp in rm.named_parameters():
                mp = mparams[k]
                if rp.grad is None:
                    assert mp.grad is None or not np.any(np_of(mp.grad)), f"param {k}"
                else:
                    assert mp.grad is not None, f"msnb gave no gradient for {k}"
                    _close(mp.grad, rp.grad, gr, ga, f"grad of {k}")
    COVERED.update(names)
    return rm, mm
