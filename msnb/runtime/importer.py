"""Import resolution for code that msnb runs: ``torch`` means msnb's adapter.

The finder sits on ``sys.meta_path`` only while a ``%%torch_on_ascend`` cell or
an ``msnb exec`` script runs, so every other cell imports the real PyTorch (or
fails with the usual ModuleNotFoundError).  ``sys.modules`` entries for the
aliased families are saved before and put back after, so neither side sees
the other's modules.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.abc
import importlib.machinery
import inspect
import sys
import types

from msnb.adapter import ALIASES, adapter_module_for

__all__ = ["AdapterFinder", "ImportScope", "FAMILIES", "import_for_cell_code", "is_adapter_object", "shadow_real_torch",
           "unshadow"]


def _families() -> tuple[str, ...]:
    """Top-level names whose sys.modules entries a scope saves and restores."""
    return tuple(sorted({alias.split(".")[0] for alias in ALIASES}))


#: Top-level names touched by the scope (read from the alias table at import).
FAMILIES = _families()

#: Parents of dotted aliases (``msadapter`` for ``msadapter.pytorch``) that
#: have no adapter module of their own; the finder makes an empty package.
_MARK = "__msnb_alias_package__"


def _in_family(name: str, families: tuple[str, ...]) -> bool:
    root = name.partition(".")[0]
    return root in families


def is_adapter_object(value: object) -> bool:
    """True for adapter modules, classes and functions (what a cell pins).

    Instances such as tensors are not pinned: they are data, not names of
    the API, and their class already carries the adapter.
    """
    if isinstance(value, types.ModuleType):
        name = getattr(value, "__name__", "") or ""
        return name.startswith("msnb.adapter.") or getattr(value, _MARK, False)
    if isinstance(value, type) or inspect.isroutine(value):
        module = getattr(value, "__module__", "") or ""
        return module.startswith("msnb.adapter.")
    return False


def _missing_module_message(fullname: str, target_name: str) -> str:
    """A PyTorch submodule msnb lacks says so and points to the support list;
    a name PyTorch does not have either gets Python's usual message."""
    from msnb.adapter.torch._api_names import SUBMODULES
    from msnb.adapter.torch._missing import not_supported_message

    torch_name = "torch" + target_name[len("msnb.adapter.torch"):] if target_name.startswith("msnb.adapter.torch.") \
        else None
    if torch_name in SUBMODULES:
        return not_supported_message(torch_name)
    return f"No module named {fullname!r} (msnb's adapter has no {target_name!r})"


#: ``__dict__`` key of an adapter module's own ``__spec__`` while an alias import runs
_OWN_SPEC = "_msnb_own_spec"


class AdapterFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Meta-path finder that answers aliased names with adapter modules."""

    def find_spec(self, fullname, path=None, target=None):
        __tracebackhide__ = True  # the user's import line is the frame that matters
        target_name = adapter_module_for(fullname)
        if target_name is None:
            if any(alias.startswith(fullname + ".") for alias in ALIASES):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None
        try:
            importlib.import_module(target_name)
        except ModuleNotFoundError as exc:
            if exc.name and target_name.startswith(exc.name):
                raise ModuleNotFoundError(_missing_module_message(fullname, target_name), name=fullname) from None
            raise
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        target_name = adapter_module_for(spec.name)
        if target_name is None:
            package = types.ModuleType(spec.name, "msnb alias package for the adapter")
            package.__path__ = []
            setattr(package, _MARK, True)
            return package
        module = sys.modules[target_name]
        from msnb.runtime.docstrings import document

        document(module)
        # importlib gives the returned module the alias's spec next; exec_module puts msnb's back, so
        # relative imports inside its functions keep __package__ == __spec__.parent (no ImportWarning)
        module.__dict__.setdefault(_OWN_SPEC, module.__spec__)
        return module

    def exec_module(self, module):
        """Nothing to run: the adapter module is already imported; it keeps its own spec."""
        own = module.__dict__.get(_OWN_SPEC)
        if own is not None:
            module.__spec__ = own


class ImportScope:
    """Context manager: aliased imports resolve to the adapter inside it.

    On exit (also after an exception or KeyboardInterrupt) the aliased
    ``sys.modules`` entries are exactly what they were on entry.
    """

    def __init__(self) -> None:
        self.finder = AdapterFinder()
        self._saved: dict[str, types.ModuleType] | None = None

    def __enter__(self) -> "ImportScope":
        families = _families()
        self._saved = {
            name: sys.modules.pop(name)
            for name in list(sys.modules)
            if _in_family(name, families)
        }
        sys.meta_path.insert(0, self.finder)
        importlib.invalidate_caches()
        return self

    def __exit__(self, *exc_info) -> None:
        families = _families()
        if self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)
        for name in [n for n in sys.modules if _in_family(n, families)]:
            del sys.modules[name]
        sys.modules.update(self._saved or {})
        self._saved = None


def _is_real_family_object(value: object, families: tuple[str, ...]) -> str | None:
    """The module name behind ``value`` when it is a real (not adapter) torch-family
    module, class or function; else None."""
    if isinstance(value, types.ModuleType):
        name = getattr(value, "__name__", "") or ""
    elif isinstance(value, type) or inspect.isroutine(value):
        name = getattr(value, "__module__", "") or ""
    else:
        return None
    return name if _in_family(name, families) else None


def _adapter_twin(value: object, module_name: str) -> object | None:
    """The adapter's object for a real one (call inside an ImportScope)."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    if isinstance(value, types.ModuleType):
        return module
    found = module
    for part in (getattr(value, "__qualname__", "") or "").split("."):
        found = getattr(found, part, None)
        if found is None:  # e.g. real torch.ones is _VariableFunctionsClass.ones: try its plain name
            return getattr(module, getattr(value, "__name__", "") or "", None)
    return found


def shadow_real_torch(user_ns: dict) -> dict[str, tuple[object, object]]:
    """Inside an ImportScope: rebind names of ``user_ns`` that hold real PyTorch
    modules, classes or functions (``import torch`` in a plain cell) to the
    adapter's, so the cell does not run real PyTorch silently.  Returns
    ``{name: (real, adapter)}`` for :func:`unshadow`."""
    families = _families()
    shadowed = {}
    for name, value in list(user_ns.items()):
        if name.startswith("_"):
            continue
        module_name = _is_real_family_object(value, families)
        if module_name is None:
            continue
        twin = _adapter_twin(value, module_name)
        if twin is not None and twin is not value:
            shadowed[name] = (value, twin)
            user_ns[name] = twin
    return shadowed


def unshadow(user_ns: dict, shadowed: dict[str, tuple[object, object]], bound: set[str]) -> None:
    """Give plain cells their real PyTorch names back, unless the cell bound the name itself."""
    for name, (real, twin) in shadowed.items():
        if name not in bound and user_ns.get(name) is twin:
            user_ns[name] = real


def import_for_cell_code(name, globals=None, locals=None, fromlist=(), level=0):
    """``__import__`` for functions a magic cell defined: called later from a plain
    cell, ``import torch`` in their body still resolves to the adapter."""
    if level == 0 and _in_family(name, _families()) and not any(isinstance(f, AdapterFinder) for f in sys.meta_path):
        with ImportScope():
            return builtins.__import__(name, globals, locals, fromlist, level)
    return builtins.__import__(name, globals, locals, fromlist, level)
