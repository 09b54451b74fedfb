"""PyTorch-style help for the adapter: every public function and class has a docstring.

``help(torch.abs)``, ``torch.abs?`` and Jupyter's Shift+Tab read
``__doc__`` (and ``inspect.signature``, which the adapter's functions already
spell as PyTorch does).  Adapter objects written without a docstring get one
here, in one place, when a cell imports their module: the call as PyTorch
spells it, what it is, and where the support list says how complete it is.
Objects with their own docstring keep it.
"""

from __future__ import annotations

import inspect
import types

__all__ = ["document", "public_name"]

_DONE: set[str] = set()


def public_name(module_name: str, name: str) -> str:
    """``msnb.adapter.torch.nn.functional`` + ``relu`` -> ``torch.nn.functional.relu``."""
    parts = module_name.replace("msnb.adapter.", "", 1).split(".")
    kept = []
    for part in parts:
        if part.startswith("_"):
            break
        kept.append(part)
    if kept[:3] == ["torch", "nn", "modules"]:
        kept = kept[:2]
    return ".".join(kept + [name])


def _signature(obj: object) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def _text(public: str, obj: object) -> str:
    kind = "class" if isinstance(obj, type) else "function"
    return (f"{public}{_signature(obj)}\n\n"
            f"msnb's {kind} ``{public}``: PyTorch's API and semantics, computed with MindSpore "
            f"(see PyTorch's documentation of ``{public}`` for the arguments).\n"
            "What msnb supports of it, and what only partly: "
            "``python -m msnb.adapter.support --markdown``.")


def _document_methods(cls: type, public: str) -> int:
    """Public methods ``cls`` defines itself (``torch.Tensor.add``) without a docstring."""
    count = 0
    for attr, value in list(vars(cls).items()):
        if attr.startswith("_") or not inspect.isfunction(value) or value.__doc__:
            continue
        if not (value.__module__ or "").startswith("msnb.adapter."):
            continue
        value.__doc__ = _text(f"{public}.{attr}", value)
        count += 1
    return count


def document(module: types.ModuleType) -> int:
    """Give ``module``'s public adapter functions and classes without a
    docstring a PyTorch-style one (once per module); returns how many."""
    name = getattr(module, "__name__", "")
    if name in _DONE or not name.startswith("msnb.adapter."):
        return 0
    _DONE.add(name)
    count = 0
    classes: list[tuple[type, str]] = []
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for attr in names:
        obj = getattr(module, attr, None)
        if not (inspect.isfunction(obj) or isinstance(obj, type)):
            continue
        if not (getattr(obj, "__module__", "") or "").startswith("msnb.adapter."):
            continue
        # while torch.fx's hook is in place (a Proxy or a MaskedTensor alive) the name holds a wrapper:
        # the function it wraps, which the name holds again afterwards, gets the docstring too
        original = getattr(obj, "_msnb_fx_original", None)
        if original is not None and not original.__doc__:
            original.__doc__ = _text(public_name(name, attr), original)
        if not obj.__doc__:
            try:
                obj.__doc__ = _text(public_name(name, attr), obj)
            except (AttributeError, TypeError):  # a class whose __doc__ cannot be set
                continue
            count += 1
        if isinstance(obj, type):
            classes.append((obj, public_name(name, attr)))
    for cls, public in classes:  # after the functions: torch.Tensor.abs is torch.abs
        count += _document_methods(cls, public)
    for value in list(vars(module).values()):  # submodules already imported (torch.nn, ...)
        if isinstance(value, types.ModuleType) and value.__name__.startswith(name + "."):
            count += document(value)
    return count
