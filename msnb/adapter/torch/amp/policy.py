"""MindSpore's AMP levels (``--amp O0|O1|O2|O3``) applied to msnb ``nn`` modules.

What the levels mean follows ``mindspore.amp.auto_mixed_precision`` (MindSpore
2.10, ``mindspore/train/amp.py``):

* **O0** -- nothing changes; float32.
* **O1** -- the ops of MindSpore's white list (Dense/Linear, Conv*, MatMul,
  BatchMatMul, PReLU, ReLU, Ger, RNN cells) compute in float16: their inputs
  *and parameters* are cast to float16 and their results cast back to
  float32.  So every layer output stays float32; only the insides of those
  ops run in float16.  (This differs from ``torch.autocast``, whose
  lower-precision ops return float16.)
* **O2** -- the network computes in float16 (``Cell.to_float(float16)``)
  except the black list -- BatchNorm1d/2d/3d and LayerNorm -- which computes
  in float32 and hands float16 on (``_OutputTo16``); the network's output is
  cast to float32 (``_OutputTo32``) so the loss runs in float32.
* **O3** -- every module computes in float16, the output is cast to float32.

Loss modules (``nn.*Loss``) always compute in float32: MindSpore casts the
network output to float32 before the loss in its training wrappers.

Parameters are never cast in place.  As with MindSpore's ``to_float``, they
stay float32 (the "master weights" the optimizer updates and GradScaler
unscales), and each use inside an op is cast; the cast is differentiable, so
gradients arrive in float32.  Only ops that call
:func:`~msnb.adapter.torch.amp.autocast_mode.autocast_inputs` (or are wrapped
with ``autocast_op``) cast parameters: custom elementwise math with a
parameter (``x * self.scale``) promotes back to float32.

Where a level comes from, innermost first:

1. a ``torch.autocast`` region (enabled or not) around the module call: the
   code's own AMP wins and no level is applied inside it;
2. :func:`apply_level` on the module or a module that contains it;
3. the cell's ``--amp`` (:func:`active_level`: :func:`level_scope`, else the
   running cell's ``msnb.runtime.context.active().amp``).

Modules take part through one hook in ``nn.Module.__call__``::

    out = (_amp_policy.call_module(self, self.forward, args, kwargs) if _amp_policy.engaged()
           else self.forward(*args, **kwargs))

:func:`call_module` pushes the module's frame (so ops inside cast to the
module's dtype), casts the module's float inputs, and casts its output as
described above.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any, Callable, Iterator

from .. import _dtype as D
from . import autocast_mode as A

__all__ = ["LEVELS", "BLACK_LIST", "apply_level", "active_level", "level_scope", "module_level",
           "module_dtype_for", "call_module", "engaged"]

LEVELS = ("O0", "O1", "O2", "O3")
#: Modules that keep float32 under O2 (MindSpore's ``AMP_BLACK_LIST``), by class name.
BLACK_LIST = frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm"})
_MARK = "_msnb_amp_level"


class _Local(threading.local):
    def __init__(self) -> None:
        self.levels: list[str] = []  # level_scope stack
        self.modules: list[tuple[Any, str, Any]] = []  # (module, level, compute dtype) of running calls


_local = _Local()
_marked: "weakref.WeakSet" = weakref.WeakSet()  # live modules apply_level gave a level other than O0


def _check(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"amp level must be one of {'|'.join(LEVELS)}, not {level!r}")
    return level


def active_level() -> str:
    """The cell's AMP level: the innermost :func:`level_scope`, else the running
    ``%%torch_on_ascend`` cell's ``--amp``, else ``"O0"``."""
    if _local.levels:
        return _local.levels[-1]
    from msnb.runtime.context import active

    ctx = active()
    return ctx.amp if ctx is not None else "O0"


@contextlib.contextmanager
def level_scope(level: str) -> Iterator[str]:
    """Run the enclosed code as a cell with ``--amp level`` (tests, ``msnb exec``, graph mode)."""
    _local.levels.append(_check(level))
    try:
        yield level
    finally:
        _local.levels.pop()


def apply_level(module, level: str):
    """Make ``module`` (and what it contains) compute at ``level`` whenever it is
    called, whatever the cell's ``--amp`` -- msnb's ``mindspore.amp.auto_mixed_precision``.

    Parameters are not touched; returns ``module``.  ``"O0"`` pins the module
    to float32 inside an O1-O3 cell.
    """
    _check(level)
    module.__dict__[_MARK] = level
    if level != "O0":
        _marked.add(module)
    else:
        _marked.discard(module)
    return module


def engaged() -> bool:
    """Cheap test for ``Module.__call__``: can any level apply now?"""
    if _marked or _local.modules:
        return True
    if _local.levels:
        return _local.levels[-1] != "O0"
    from msnb.runtime.context import active

    ctx = active()
    return ctx is not None and ctx.amp != "O0"


def _is_loss(module) -> bool:
    return any(c.__name__.endswith("Loss") and c.__module__.startswith("msnb.adapter.torch.nn")
               for c in type(module).__mro__)


def _in_torch_autocast() -> bool:
    return any(f.kind == "autocast" for f in A.current_frames())


def module_level(module) -> str:
    """The level ``module`` runs at if called now (see the module docstring)."""
    own = module.__dict__.get(_MARK)
    if own is not None:
        return own
    if _local.modules:
        return _local.modules[-1][1]
    return active_level()


def module_dtype_for(module, level: str | None = None):
    """The dtype ``module`` computes in at ``level`` (default: :func:`module_level`).

    float32 for O0 and O1 (O1 works per op), float32 for loss modules and,
    under O2, for the black list; float16 otherwise.
    """
    level = module_level(module) if level is None else level
    if level in ("O0", "O1") or _is_loss(module):
        return D.float32
    if level == "O2" and type(module).__name__ in BLACK_LIST:
        return D.float32
    return D.float16


def _cast_tree(value, dtype):
    if isinstance(value, tuple):
        return tuple(_cast_tree(v, dtype) for v in value)
    if isinstance(value, list):
        return [_cast_tree(v, dtype) for v in value]
    if isinstance(value, dict):
        return {k: _cast_tree(v, dtype) for k, v in value.items()}
    return A._cast_all((value,), dtype)[0]


def call_module(module, forward: Callable, args: tuple, kwargs: dict) -> Any:
    """Run ``forward(*args, **kwargs)`` for ``module`` at its AMP level.

    Re-entrant for the same module (a second hook around the same call does
    nothing), and a no-op inside a ``torch.autocast`` region.
    """
    stack = _local.modules
    if (stack and stack[-1][0] is module) or _in_torch_autocast():
        return forward(*args, **kwargs)
    level = module_level(module)
    dtype = module_dtype_for(module, level)
    parent = stack[-1] if stack else None
    in_cell = parent is not None and parent[1] in ("O2", "O3")  # called from a float16 network
    if level == "O1":
        frame = A.Frame("O1", True, D.float16)
    elif level in ("O2", "O3") or in_cell:  # an O0 module inside O2/O3 computes like the black list
        frame = A.Frame("cell", True, dtype)
        args, kwargs = _cast_tree(args, dtype), _cast_tree(kwargs, dtype)
    else:
        frame = None
    stack.append((module, level, dtype))
    if frame is not None:
        A.push(frame)
    try:
        out = forward(*args, **kwargs)
    finally:
        if frame is not None:
            A.pop(frame)
        stack.pop()
    if (in_cell or level in ("O2", "O3")) and not _is_loss(module):
        # MindSpore's _OutputTo16 around black-list cells, _OutputTo32 around the network
        out = _cast_tree(out, parent[2] if in_cell else D.float32)
    return out
