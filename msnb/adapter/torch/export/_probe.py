"""Which dimensions marked dynamic the exported graph really follows.

msnb's traced graph holds the sizes ``forward`` read while tracing as
constants, so instead of PyTorch's symbolic reasoning each dimension marked
dynamic is probed: the example input is resized along it (its own values
repeated or cut, so integer inputs stay valid indices) and the graph is run
and compared with the module run eagerly on the same input.  Dimensions that
share one named :class:`Dim` are probed together, and ``Dim.AUTO``
dimensions that fail alone are probed again with the others of the same
example size (``x + y`` with a shared batch: PyTorch finds them equal).  A dimension the graph
cannot follow is static for ``Dim.AUTO`` and PyTorch's
``Constraints violated`` error for ``Dim.DYNAMIC`` or a named ``Dim``; an
example size of 0 or 1 is static (PyTorch's 0/1 specialisation)."""

from __future__ import annotations

import math

from ._errors import UserError
from .dynamic_shapes import Dim, DimHint, _DimHintType, _INT_OO

__all__ = ["resolve_dynamic"]


def _range_of(d):
    if isinstance(d, Dim):
        return max(d.min, 2), (None if d.max == _INT_OO else d.max)
    return max(d.min or 2, 2), d.max


def _resized(t, dim, size):
    from .. import arange
    n = t.shape[dim]
    return t.index_select(dim, arange(size) % n)


def _same(a, b) -> bool:
    from .. import Tensor
    if isinstance(a, Tensor) != isinstance(b, Tensor):
        return False
    if isinstance(a, Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.numel() == 0:
            return True
        x, y = a.detach().double().numpy(), b.detach().double().numpy()
        import numpy as np
        return bool(np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True))
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b or (isinstance(a, float) and math.isnan(a) and isinstance(b, float) and math.isnan(b))


def _follows(mod, gm, inputs, dims_sizes) -> bool:
    """The graph gives the module's own result on inputs resized as ``dims_sizes`` says."""
    from .. import manual_seed
    from ..autograd.grad_mode import no_grad
    probe = dict(inputs)
    for (name, i), size in dims_sizes.items():
        probe[name] = _resized(probe[name], i, size)
    with no_grad():
        try:
            manual_seed(0)
            want = mod(**probe)
        except Exception:  # noqa: BLE001 - the module itself refuses this size: the dimension is not free
            return False
        try:
            manual_seed(0)
            got = gm(**probe)
        except Exception:  # noqa: BLE001 - the graph holds a size read while tracing
            return False
    return _same(want, got)


def _violation(label, size):
    return UserError(f"Constraints violated ({label})! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
                     f"  - You marked {label} as dynamic but your code specialized it to be a constant ({size}). If "
                     "you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using "
                     "Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.\nSuggested fixes:\n"
                     f"  {label} = {size}")


def resolve_dynamic(mod, graph, inputs: dict, spec: dict):
    """``({(arg, dim): (min, max)}, {(arg, dim): symbol})`` for the dimensions that stay dynamic."""
    if not spec:
        return {}, {}
    from ..fx.graph_module import GraphModule
    import copy
    gm = GraphModule(mod, copy.deepcopy(graph))
    groups: dict = {}
    for key, d in spec.items():
        groups.setdefault(id(d) if isinstance(d, Dim) else key, []).append((key, d))
    dynamic, symbols = {}, {}
    n = 0
    retry: dict = {}  # example size -> Dim.AUTO dimensions that failed alone
    for members in groups.values():
        (name, i), d = members[0]
        size = inputs[name].shape[i]
        auto = isinstance(d, DimHint) and d.type == _DimHintType.AUTO
        label = d.__name__ if isinstance(d, Dim) else f"L['{name}'].size()[{i}]"
        lo, hi = _range_of(d)
        if any(inputs[k[0]].shape[k[1]] != size for k, _ in members):
            raise UserError(f"Constraints violated ({label})! The inputs that share {label} have different sizes")
        if size < 2:
            if auto:
                continue
            raise _violation(label, size)
        candidates = [s for s in (size + 1, size - 1) if s >= lo and (hi is None or s <= hi) and s >= 2]
        ok = bool(candidates) and _follows(mod, gm, inputs, {k: candidates[0] for k, _ in members})
        if not ok:
            if auto:
                if candidates:
                    retry.setdefault((size, candidates[0]), []).append(members[0][0])
                continue
            raise _violation(label, size)
        for k, _ in members:
            dynamic[k] = (lo, hi)
            symbols[k] = f"s{n}"
        n += 1
    for (size, probe), keys in retry.items():
        if len(keys) > 1 and _follows(mod, gm, inputs, {k: probe for k in keys}):
            for k in keys:
                dynamic[k] = (2, None)
                symbols[k] = f"s{n}"
            n += 1
    return dynamic, symbols
