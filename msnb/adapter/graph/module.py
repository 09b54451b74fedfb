"""A top-level ``nn.Module`` call as compiled graphs.

Forward graph: ``(tensor args, parameters, buffers) -> (outputs, residuals,
written buffers)``.  With autograd on, a backward graph ``(output grads,
residuals, inputs) -> gradients`` is recorded right after it, by running
msnb's own autograd engine on the recorded forward under the recorder; the
replayed call then carries one autograd node whose backward runs that graph,
so ``loss.backward()`` and the optimizer see ordinary ``.grad`` values.
"""

from __future__ import annotations

from .. import _ms
from . import tree
from .capture import Recording, _place, refill, residuals, user_frame
from .region import Fallback, Region, _first_line, compiling, fall_back, replayed

__all__ = ["call"]


def _tensor_cls():
    from ..torch._tensor import Tensor
    return Tensor


def _region(module) -> Region:
    d = module.__dict__
    r = d.get("_msnb_region")
    if r is None:
        r = d["_msnb_region"] = Region(f"{type(module).__name__}.forward")
    return r


def _amp_key():
    from ..torch.amp import autocast_mode, policy
    frames = autocast_mode.current_frames()
    return policy.active_level(), tuple((f.kind, f.device_type, f.enabled, str(f.dtype)) for f in frames)


def _guard(module, leaves, spec):
    """The guard key of this call, or a reason string when it cannot be compiled."""
    from ..torch.amp.policy import _MARK as amp_mark  # a per-module AMP level (apply_level)
    from ..torch.autograd.grad_mode import STATE as GRAD
    mods = list(module.modules())
    for m in mods:
        d = m.__dict__
        if d.get("_forward_hooks") or d.get("_forward_pre_hooks") or d.get("_backward_hooks"):
            return f"{type(m).__name__} has hooks registered"
    return (GRAD.enabled, _amp_key(), spec,
            tuple((tuple(a.shape), a.dtype, a.requires_grad) for a in leaves),
            tuple((m.training, m.__dict__.get(amp_mark)) for m in mods),
            tuple((id(p), tuple(p.shape), p.dtype, p.requires_grad) for p in module.parameters()),
            tuple((id(b), tuple(b.shape), b.dtype) for b in module.buffers()))


class _Entry:
    """One compiled forward (and backward) for one guard key."""

    def __init__(self, fwd, n_out, spec, n_res, written):
        self.fwd, self.n_out, self.spec, self.n_res, self.written = fwd, n_out, spec, n_res, written
        self.bwd, self.diff, self.wrt, self.mask = None, (), (), ()
        self.on_fail = None  # on_fail(reason): the key runs in PyNative from now on
        self.feeds = ()  # random draws fed to the forward graph (capture.Recording.feed)
        #: (dtype, shape) of each output and each gradient, from the recording: a replay's
        #: results carry them, so reading a shape does not wait for the graph to finish
        self.metas, self.gmetas = (), ()

    def run(self, inputs, redo):
        from ..torch._core import meta, wrap
        if self.feeds:
            refill(self.feeds)
        outs = _ms.trace_run(self.fwd, inputs)
        n, r = self.n_out, self.n_res
        for i, new in zip(self.written, outs[n + r:]):
            _ms.set_data(inputs[i], new)
        flat = [meta(wrap(o), *m) for o, m in zip(outs[:n], self.metas)]
        if self.bwd is not None:
            from ..torch.autograd.grad_mode import STATE as GRAD
            if GRAD.enabled:
                self.attach(flat, outs[n:n + r], inputs, redo)
        replayed()
        return flat

    def attach(self, flat, res, inputs, redo):
        """Give ``flat``'s differentiable outputs one autograd node running the backward graph.

        ``redo()`` re-runs the forward eagerly: a backward with
        ``create_graph=True`` (gradients of gradients) differentiates that
        instead, as the compiled backward is not itself differentiable."""
        from ..torch._core import K, meta, record, wrap
        from ..torch.autograd.grad_mode import STATE as GRAD
        diff = tuple(flat[i] for i in self.diff)
        wrt = tuple(inputs[i] for i in self.wrt)
        bwd, mask, idx, gmetas = self.bwd, self.mask, self.diff, self.gmetas
        written = self.written or self.feeds  # a re-run would update buffers / draw again

        def backward(*grads):
            if GRAD.enabled:  # create_graph=True
                return _eager_backward(redo, idx, wrt, grads, written, True)
            gs = tuple(g if g is not None else wrap(K.zeros_like(d)) for g, d in zip(grads, diff))
            try:
                out = iter(_ms.trace_run(bwd, (*gs, *res, *inputs)))
            except Exception as exc:  # the compiled backward failed: differentiate the forward eagerly
                if self.on_fail is not None:
                    self.on_fail(f"its compiled backward failed to run ({_first_line(exc)})")
                if written:
                    raise
                return _eager_backward(redo, idx, wrt, grads, written, False)
            return tuple(meta(wrap(next(out)), *gm) if m else None for m, gm in zip(mask, gmetas))

        record("CompiledFunctionBackward", diff, wrt, backward)


def _eager_backward(redo, idx, wrt, grads, written, create_graph):
    """Gradients for ``wrt`` from an eager re-run of the forward (``redo``)."""
    from ..torch.autograd.grad_mode import enable_grad
    from ..torch.autograd.graph import run_backward
    if written:
        raise RuntimeError("msnb graph mode: a backward with create_graph=True through a compiled module that "
                           "updates its buffers (e.g. BatchNorm in train mode) or draws random numbers (dropout) "
                           "is not supported; run this cell with --mode pynative")
    with enable_grad():
        flat = redo()
    outs = [flat[i] for i in idx]
    pairs = [(o, g) for o, g in zip(outs, grads) if g is not None]
    # stop at ``wrt``: the engine running this node continues upstream itself
    return run_backward([o for o, _ in pairs], [g for _, g in pairs], retain_graph=create_graph,
                        create_graph=create_graph, inputs=list(wrt), capture=True, allow_unused=True,
                        stop_at_inputs=True)


def call(module, args, kwargs, eager):
    """Run ``module(*args, **kwargs)`` in graph mode; ``eager(args, kwargs)`` is the PyNative call."""
    Tensor = _tensor_cls()
    region = _region(module)
    try:
        leaves, spec = tree.flatten((args, kwargs), Tensor)
        key = _guard(module, leaves, spec)
    except tree.Unsupported as exc:
        key = f"an argument of type {exc} (tensors, Python constants and tuples/lists/dicts of them are compiled)"
    if isinstance(key, str):
        file, line, text, _ = user_frame(2)
        fall_back(Fallback(region.label, key, _place(file, line) if file else "", text))
        return eager(args, kwargs)
    if key in region.eager:
        return eager(args, kwargs)
    entry = region.entries.get(key)
    params = tuple(module.parameters())
    buffers = tuple(module.buffers())
    if entry is not None:
        try:
            flat = entry.run((*leaves, *params, *buffers), _redo(eager, spec, leaves, Tensor))
        except Exception as exc:  # a compiled graph that fails to run: PyNative from now on
            del region.entries[key]
            file, line, text, _ = user_frame(2)
            fb = Fallback(region.label, f"its compiled graph failed to run ({_first_line(exc)})",
                          _place(file, line) if file else "", text)
            region.eager[key] = fb
            out = eager(args, kwargs)
            fall_back(fb)
            return out
        return tree.unflatten(entry.spec, flat)
    if region.sighting(key) < 2:
        return eager(args, kwargs)
    return _record(region, key, leaves, spec, params, buffers, eager, Tensor)


def _redo(eager, spec, leaves, Tensor):
    def redo():
        a, k = tree.unflatten(spec, leaves)
        return tree.flatten(eager(a, k), Tensor)[0]
    return redo


def _record(region, key, leaves, spec, params, buffers, eager, Tensor):
    """Record and compile this key's graphs while running the call eagerly once.

    If MindSpore's recorder or compiler fails (not the user's code), the key
    runs in PyNative from now on: when the eager run already finished its
    result is kept, otherwise the call is run again eagerly (an error the
    user's code raises there is the one PyNative would raise)."""
    aliases = [_alias(a) for a in leaves]
    rargs, rkwargs = tree.unflatten(spec, aliases)
    inputs = (*aliases, *params, *buffers)
    file, line, text, _ = user_frame(3)
    state = {"out": _MISSING}
    try:
        with compiling(region.label):
            done = _record_graphs(region, key, spec, leaves, params, buffers, inputs, rargs, rkwargs, eager, Tensor,
                                  (file, line, text), state)
    except Exception as exc:  # the recorder or the compiler failed
        fb = Fallback(region.label, f"MindSpore could not record or compile it ({_first_line(exc)})",
                      _place(file, line) if file else "", text)
        region.eager[key] = fb
        out = state["out"]
        if out is _MISSING:
            a, k = tree.unflatten(spec, leaves)
            out = eager(a, k)  # raises here if the user's code is at fault
        fall_back(fb)
        return out
    return done


_MISSING = object()


def _marker(region, key, src):
    """``mark(reason)``: drop ``key``'s graphs; it runs in PyNative from now on."""
    file, line, text = src

    def mark(reason):
        region.entries.pop(key, None)
        if key not in region.eager:
            fb = Fallback(region.label, reason, _place(file, line) if file else "", text)
            region.eager[key] = fb
            fall_back(fb)
    return mark


def _record_graphs(region, key, spec, leaves, params, buffers, inputs, rargs, rkwargs, eager, Tensor, src, state):
    from ..torch.autograd.graph import run_backward
    from ..torch._core import K, wrap
    file, line, text = src
    where = (file, line)
    rec = Recording(region.phase("fwd"), inputs, where)
    with rec:
        out = state["out"] = eager(rargs, rkwargs)
        try:
            flat, ospec = tree.flatten(out, Tensor)
        except tree.Unsupported as exc:
            rec.broken = rec.broken or _why(f"it returns {exc} (tensors, Python constants and "
                                            "tuples/lists/dicts of them are compiled)", file, line, text)
            flat, ospec = [], None
        diff = [i for i, o in enumerate(flat) if o._grad_fn is not None]
        res = residuals([flat[i] for i in diff], inputs) if diff else []
        ok = rec.close([*flat, *res])
    if not ok:
        return _give_up(region, key, rec.broken, out)
    entry = _Entry(rec.phase, len(flat), ospec, len(res), tuple(rec.written))
    entry.on_fail = _marker(region, key, src)
    entry.feeds = tuple(rec.feeds)
    entry.metas = tuple(_meta_of(o) for o in flat)
    if diff:
        wrt = [i for i, t in enumerate(inputs) if t.requires_grad or t._grad_fn is not None]
        sens = [wrap(K.ones_like(flat[i])) for i in diff]
        brec = Recording(region.phase("bwd"), (*sens, *res, *inputs), where)
        brec.allow_feeds = False
        with brec:
            grads = run_backward([flat[i] for i in diff], sens, retain_graph=True,
                                 inputs=[inputs[i] for i in wrt], capture=True, allow_unused=True,
                                 stop_at_inputs=True)
            ok = brec.close([g for g in grads if g is not None])
        if not ok:
            return _give_up(region, key, brec.broken, out)
        entry.bwd, entry.diff, entry.wrt = brec.phase, tuple(diff), tuple(wrt)
        entry.mask = tuple(g is not None for g in grads)
        entry.gmetas = tuple(_meta_of(g) if g is not None else None for g in grads)
    region.entries[key] = entry
    if diff:  # this call's results: swap the recorded tape for the compiled backward
        for o in flat:
            o._grad_fn = None
        entry.attach(flat, tuple(res), (*leaves, *params, *buffers), _redo(eager, spec, leaves, Tensor))
    return out if not flat else tree.unflatten(ospec, flat)


def _meta_of(t):
    """(torch dtype, shape tuple) of a recorded result."""
    return t.dtype, tuple(t.shape)


def _alias(x):
    """A new tensor object standing for the region input ``x``: the recorder's
    input, and the edge where the region's backward graph stops.  It stays
    linked to ``x``'s autograd history, so a recording that falls back still
    returns results that backpropagate into ``x``."""
    from ..torch._core import K, needs_grad, record, wrap
    al = wrap(K.identity(x))
    if needs_grad(x):
        record("GraphInputBackward", al, (x,), lambda g: (g,))
    return al


def _why(reason, file, line, text):
    from .capture import Break
    return Break(reason, "", file, line, text)


def _give_up(region, key, brk, out):
    """The recording was broken: keep this call's eager result, run the key in PyNative from now on."""
    reason = f"{brk.api} {brk.what}" if brk.api else brk.what
    fb = Fallback(region.label, reason, brk.where if brk.file else "", brk.text)
    region.eager[key] = fb
    fall_back(fb)
    return out
