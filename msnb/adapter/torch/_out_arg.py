"""``out=`` for every function PyTorch gives one, the PyTorch way.

PyTorch's functions with an out variant (``torch.take(x, i, out=o)``,
``torch.sort(x, out=(v, i))``) write the result into ``out`` and return it;
msnb's implementations mostly compute out of place.  The namespaces wrap
each function PyTorch lists as taking ``out=`` (``_api_names.OUT_FUNCTIONS``):
where msnb's implementation has no ``out`` parameter, or has one but returned
something else than ``out`` (it computed the result and ignored ``out``),
the wrapper hands the result to :func:`msnb.adapter.torch._core.write_out`
(one place for PyTorch's rules: the resize warning, the dtype cast check,
no autograd through ``out=``, no ``out`` whose elements share memory).
The ops listed in :data:`NO_OVERLAP` also refuse an ``out`` that shares
memory with one of their tensor arguments, as PyTorch's do.  A function
PyTorch gives no ``out=`` (``torch.det``: only ``torch.linalg.det`` has it)
refuses the keyword with PyTorch's ``TypeError`` where msnb's shares an
implementation that takes it.
"""

from __future__ import annotations

import functools
import inspect

__all__ = ["NO_OVERLAP", "apply", "write_outs", "tensor_args"]

#: ops whose ``out`` must have their input's very dtype (no cast)
SAME_DTYPE = frozenset({"take"})
#: ops whose PyTorch kernels refuse an ``out`` overlapping any tensor argument (``assert_no_overlap``)
NO_OVERLAP = frozenset({"gather", "index_select", "take", "masked_select", "cat", "concat", "concatenate",
                        "kthvalue"})


def tensor_args(args, kwargs):
    """The tensors among a call's arguments (one level into lists and tuples: ``cat``'s)."""
    from .._ms import TensorPy
    found = []
    for v in list(args) + list(kwargs.values()):
        for x in (v if isinstance(v, (list, tuple)) else (v,)):
            if isinstance(x, TensorPy):
                found.append(x)
    return found


def write_outs(name, out, result, inputs=()):
    """``write_out`` for one result or for each of a tuple of results (``out`` then a tuple of as
    many tensors); returns ``out`` (a tuple result's own type, e.g. ``torch.return_types.sort``)."""
    from .._ms import TensorPy
    from ._core import write_out
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of {len(result)} Tensors")
        outs = [write_out(o, r, inputs) for o, r in zip(out, result)]
        return type(result)(*outs) if hasattr(result, "_fields") else type(result)(outs)
    if not isinstance(out, TensorPy):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    return write_out(out, result, inputs)


def _out_param(fn):
    """``"out"`` (``fn`` has an ``out`` parameter), ``""`` (it has none) or None (it takes any keyword,
    or has no Python signature: not wrapped)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    if "out" in params:
        return "out"
    return None if any(p.kind is p.VAR_KEYWORD for p in params.values()) else ""


def _is_out(result, out):
    """Whether the implementation returned ``out`` itself (or a tuple of its very tensors)."""
    if result is out:
        return True
    return isinstance(result, tuple) and isinstance(out, (tuple, list)) and len(result) == len(out) and \
        all(r is o for r, o in zip(result, out))


def _wrap(fn, name, passes_out):
    overlap = name in NO_OVERLAP

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        result = fn(*args, out=out, **kwargs) if passes_out else fn(*args, **kwargs)
        if _is_out(result, out):
            return result
        if name in SAME_DTYPE and args and getattr(out, "dtype", None) is not args[0].dtype:
            from ._dtype import _name_of
            raise RuntimeError(f"{name}(): self and out expected to have the same dtype, but got self.dtype = "
                               f"{_name_of(args[0].dtype)} and out.dtype = {_name_of(out.dtype)}")
        return write_outs(name, out, result, tensor_args(args, kwargs) if overlap else ())

    wrapper._msnb_out_arg = True
    return wrapper


#: the wrapper made for each (implementation, name, kind): a namespace executed again (a reloaded
#: ``msnb.adapter.torch``) binds the same objects, so aliases (``torch.functional.norm is torch.norm``) hold
_MADE: dict = {}


def _once(kind, fn, name, make):
    key = (kind, fn, name)
    if key not in _MADE:
        _MADE[key] = make()
    return _MADE[key]


def _refuse_out(fn, name):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        return fn(*args, **kwargs)

    wrapper._msnb_out_arg = True
    return wrapper


def apply(namespace: dict, module: str) -> None:
    """Give ``out=`` to ``namespace``'s functions (a module's globals) that PyTorch's ``module``
    offers it on, the PyTorch way; refuse it on those PyTorch offers it on nowhere."""
    from ._api_names import MODULE_NAMES, OUT_FUNCTIONS
    takes = set(OUT_FUNCTIONS.get(module, ()))
    for name in set(MODULE_NAMES.get(module, ())) - takes:
        fn = namespace.get(name)
        if callable(fn) and not isinstance(fn, type) and _out_param(fn) == "out" and \
                not getattr(fn, "_msnb_out_arg", False):
            wrapped = _once("refuse", fn, name, lambda fn=fn, name=name: _refuse_out(fn, name))
            wrapped.__module__, wrapped.__qualname__ = namespace["__name__"], name
            namespace[name] = wrapped
    for name in sorted(takes):
        fn = namespace.get(name)
        if not callable(fn) or isinstance(fn, type) or getattr(fn, "_msnb_out_arg", False):
            continue
        param = _out_param(fn)
        if param is None:
            continue
        wrapped = _once("out", fn, name, lambda fn=fn, name=name, p=param: _wrap(fn, name, p == "out"))
        wrapped.__module__, wrapped.__qualname__ = namespace["__name__"], name  # pickled by reference
        namespace[name] = wrapped
