"""In-place update regions: ``optimizer.step()`` and gradient clipping.

Graph: ``(tensors the update reads) -> (what it returns, the tensors it
wrote)``; after each replay the written tensors get their new values in
place, so parameters, ``.grad`` and ``optimizer.state`` stay the same
objects as in PyNative.  Python numbers (learning rate, momentum, betas,
``max_norm``) are part of the guard key (step counts are not: a recorded
optimizer computes with its ``step`` tensor, see ``optim.optimizer.bump_step``): a scheduler that changes
the learning rate once per epoch costs one compile per value; numbers that
change at every step make the update run in PyNative (said once).
"""

from __future__ import annotations

import time

from .. import _ms
from .capture import Recording, _place, user_frame
from .region import Fallback, Region, _first_line, _report, compiling, fall_back, replayed

__all__ = ["optimizer_step", "clip_grad_norm", "opt_key", "write_back"]

#: distinct keys seen without any repeating: the update's numbers change every call
_MAX_KEYS = 12
_clip_regions: dict = {}


def _number_key(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tuple) and all(isinstance(x, (bool, int, float)) for x in v):
        return v
    return type(v).__name__


def write_back(t, new) -> None:
    """A compiled graph's new value for ``t`` (a parameter or optimizer state); a value
    cached on the object for the host (the optimizer's ``step`` count) is dropped with it,
    so a later PyNative step reads the new count."""
    _ms.set_data(t, new)
    t.__dict__.pop("_msnb_step", None)


class _Entry:
    def __init__(self, phase, n_out, written, out_meta=None):
        self.phase, self.n_out, self.written = phase, n_out, written
        #: (dtype, shape) of the result, from the recording (reading it then does not wait)
        self.out_meta = out_meta

    def run(self, inputs):
        from ..torch._core import meta, wrap
        outs = _ms.trace_run(self.phase, inputs)
        for i, new in zip(self.written, outs[self.n_out:]):
            write_back(inputs[i], new)
        replayed()
        return meta(wrap(outs[0]), *self.out_meta) if self.n_out else None


def run(region: Region, key, inputs, fn):
    """``fn()`` (returns a tensor or None) as a compiled graph over ``inputs`` when possible."""
    if "*" in region.eager or not inputs:
        return fn()
    entry = region.entries.get(key)
    if entry is not None:
        try:
            return entry.run(inputs)
        except Exception as exc:  # a compiled graph that fails to run: PyNative from now on
            del region.entries[key]
            return _failed(region, key, f"its compiled graph failed to run ({_first_line(exc)})", fn)
    if key in region.eager:
        return fn()
    if region.sighting(key) < 2:
        if len(region.seen) > _MAX_KEYS and not region.entries:
            file, line, text, _ = user_frame(3)
            fb = Fallback(region.label, "its numbers (e.g. the learning rate) change at every call, so "
                          "each call would need a new graph", _place(file, line) if file else "", text)
            region.eager["*"] = fb
            fall_back(fb)
        return fn()
    file, line, text, _ = user_frame(3)
    result = _MISSING
    try:
        with compiling(region.label):
            rec = Recording(region.phase("update"), inputs, (file, line))
            with rec:
                result = fn()
                ok = rec.close([result] if result is not None else [])
    except Exception as exc:  # the recorder or the compiler failed
        reason = f"MindSpore could not record or compile it ({_first_line(exc)})"
        return _failed(region, key, reason, fn if result is _MISSING else (lambda: result))
    if not ok:
        brk = rec.broken
        fb = Fallback(region.label, f"{brk.api} {brk.what}" if brk.api else brk.what,
                      brk.where if brk.file else "", brk.text)
        region.eager[key] = fb
        fall_back(fb)
        return result
    region.entries[key] = _Entry(rec.phase, int(result is not None), tuple(rec.written),
                                 None if result is None else (result.dtype, tuple(result.shape)))
    return result


_MISSING = object()


def _failed(region, key, reason, fn):
    """Run ``key`` in PyNative from now on; ``fn()`` gives this call's result
    (raising, as PyNative would, if the user's code is at fault)."""
    file, line, text, _ = user_frame(4)
    fb = Fallback(region.label, reason, _place(file, line) if file else "", text)
    region.eager[key] = fb
    out = fn()
    fall_back(fb)
    return out


# --- optimizer.step() -------------------------------------------------------------------

def optimizer_step(opt, fn) -> None:
    """``opt``'s update of every parameter (``fn()`` is the PyNative one)."""
    _time_step(opt)
    d = opt.__dict__
    region = d.get("_msnb_region")
    if region is None:
        region = d["_msnb_region"] = Region(f"{type(opt).__name__}.step")
    params, grads, states, key = opt_key(opt)
    run(region, key, (*params, *grads, *states), fn)


def opt_key(opt):
    """``(params with a grad, their grads, state tensors, guard key)`` of ``opt``'s next step."""
    from ..torch._tensor import Tensor
    params, grads, states, key = [], [], [], []
    for g in opt.param_groups:
        key.append(tuple((k, _number_key(v)) for k, v in sorted(g.items()) if k not in ("params", "param_names")))
        for p in g["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            st = opt.state.get(p, {})
            sk = []
            for k in sorted(st, key=str):
                v = st[k]
                if isinstance(v, Tensor):
                    states.append(v)
                    sk.append((k, tuple(v.shape), v.dtype))  # a step count is a graph input, not a key
                else:
                    sk.append((k, _number_key(v)))
            key.append((id(p), tuple(p.shape), p.dtype, tuple(p.grad.shape), p.grad.dtype, tuple(sk)))
    return params, grads, states, tuple(key)


def _time_step(opt) -> None:
    """Step time for the run report: the interval between two steps of one optimizer."""
    now = time.perf_counter()
    last = opt.__dict__.get("_msnb_last_step")
    opt.__dict__["_msnb_last_step"] = now
    rep = _report()
    if last is not None and rep is not None:
        rep.record_step(now - last)


# --- torch.nn.utils.clip_grad_norm_ --------------------------------------------------------

def clip_grad_norm(params, grads, numbers, fn):
    """Gradient clipping over ``grads`` (of ``params``); ``numbers`` = max_norm, norm_type, ...."""
    owner = tuple(id(p) for p in params)
    region = _clip_regions.get(owner)
    if region is None:
        if len(_clip_regions) > 64:
            _clip_regions.clear()
        region = _clip_regions[owner] = Region("clip_grad_norm_")
    key = (numbers, tuple((tuple(g.shape), g.dtype) for g in grads))
    return run(region, key, tuple(grads), fn)
