"""NumPy's keyword spellings, accepted where PyTorch accepts them.

PyTorch's C++ argument parser lets every native function and Tensor method
take ``axis=`` for ``dim=``, ``keepdims=`` for ``keepdim=``, ``x=`` / ``a=`` /
``x1=`` for ``input=`` and ``x2=`` for ``other=`` (d2l writes
``y_hat.argmax(axis=1)`` and ``X.sum(axis=0, keepdims=True)`` throughout).
Functions PyTorch writes in Python (``torch.split``, ``Tensor.unique``,
``F.softmax``, ...) do not, and giving both spellings of one argument is a
``TypeError`` naming the alias, as PyTorch's is.  Which functions are native
is read from PyTorch itself by ``tools/gen_torch_api_names.py``
(``_api_names.NATIVE_FUNCTIONS``); :func:`apply` wraps msnb's implementations
of exactly those whose own signature has the canonical parameter.
"""

from __future__ import annotations

import functools
import inspect

from ._api_names import NATIVE_FUNCTIONS

__all__ = ["ALIASES", "accepting_numpy_names", "apply", "apply_to_tensor"]

#: canonical parameter -> NumPy spellings PyTorch's parser maps onto it
ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}


def _parameters(fn):
    """The keyword parameters ``fn`` names, or None when it takes ``**kwargs`` (or cannot be read)."""
    code = getattr(fn, "__code__", None)
    if code is not None and not hasattr(fn, "__wrapped__"):  # a plain function: no inspect.signature (import time)
        if code.co_flags & inspect.CO_VARKEYWORDS:  # forwards: read what it forwards to, when it says
            target = (fn.__kwdefaults__ or {}).get("_fn")  # (Tensor methods bound to torch.* functions)
            return _parameters(target) if callable(target) else None
        return set(code.co_varnames[code.co_posonlyargcount:code.co_argcount + code.co_kwonlyargcount])
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _self_parameter(fn):
    """The name of ``fn``'s first positional parameter (``self`` when ``fn`` is a method), or None."""
    code = getattr(fn, "__code__", None)
    if code is None or hasattr(fn, "__wrapped__") or not code.co_argcount:
        return None
    return code.co_varnames[0]


def accepting_numpy_names(fn, name, method=False):
    """``fn`` taking NumPy's spellings of its parameters (``fn`` itself when it has none of them).

    A function that forwards ``**kwargs`` gets every spelling translated: what it
    forwards to refuses a parameter it lacks with a ``TypeError``, as PyTorch does.
    As a Tensor method (``method``), ``fn``'s first parameter is ``self``: a spelling of it
    given by keyword (``x.exp(x=y)``) is a ``TypeError`` with or without the translation (as
    in PyTorch), so a method whose only spellings are of ``self`` is left as it is -- one
    Python call less on ``x.exp()`` (benchmarks/op_overhead.py)."""
    if getattr(fn, "_msnb_numpy_names", False) or getattr(fn, "_msnb_unsupported", False):
        return fn
    params = _parameters(fn)
    own = _self_parameter(fn) if method and params is not None else None
    renames = tuple((alias, canon) for canon, aliases in ALIASES.items()
                    if (params is None or canon in params) and canon != own for alias in aliases)
    if not renames:
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            for alias, canon in renames:
                if alias in kwargs:
                    if canon in kwargs:
                        raise TypeError(f"{name}() got an unexpected keyword argument '{alias}'")
                    kwargs[canon] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    wrapper._msnb_numpy_names = True
    return wrapper


def apply(namespace: dict, module: str) -> None:
    """Wrap the functions of ``namespace`` (a module's globals) that are native in PyTorch's ``module``."""
    for name in NATIVE_FUNCTIONS.get(module, ()):
        fn = namespace.get(name)
        if callable(fn) and not isinstance(fn, type) and getattr(fn, "__module__", "").startswith("msnb."):
            wrapped = accepting_numpy_names(fn, name)
            if wrapped is not fn:  # pickled by reference (torch.multiprocessing, rpc): found where it now lives
                wrapped.__module__, wrapped.__qualname__ = namespace["__name__"], name
            namespace[name] = wrapped


def apply_to_tensor(tensor_cls) -> None:
    """Wrap the Tensor methods that are native in PyTorch (``x.sum(axis=0, keepdims=True)``)."""
    for name in NATIVE_FUNCTIONS.get("torch.Tensor", ()):
        fn = tensor_cls.__dict__.get(name)
        if callable(fn) and not isinstance(fn, (type, staticmethod, classmethod)):
            setattr(tensor_cls, name, accepting_numpy_names(fn, name, method=True))
