"""Regenerate msnb/adapter/torch/_api_names.py from an installed PyTorch.

Run by hand when the reference PyTorch version changes:
    python tools/gen_torch_api_names.py
The adapter uses these names to tell "a torch API msnb does not implement"
(clear NotImplementedError) from "no such attribute" (AttributeError).
"""

import importlib
import inspect
import pkgutil
import pprint
import re
import types
from pathlib import Path

import torch

MODULES = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.optim",
           "torch.optim.lr_scheduler", "torch.utils.data", "torch.autograd", "torch.cuda",
           "torch.fft", "torch.linalg", "torch.special", "torch.distributed", "torch.amp",
           "torch.backends", "torch.nn.utils", "torch.distributions", "torch.sparse", "torch.jit",
           "torch.testing", "torch.multiprocessing", "torch.accelerator", "torch.utils",
           "torch.nn.parallel", "torch.onnx", "torch.random", "torch.serialization", "torch.masked", "torch.signal",
           "torch.signal.windows", "torch.nn.utils.rnn", "torch.nn.utils.parametrize", "torch.export",
           "torch.export.dynamic_shapes", "torch.export.graph_signature", "torch.export.exported_program",
           "torch.nested"]

NUMPY_COMPAT_MODULES = ["torch", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft"]

#: namespaces whose functions may take ``out=``
OUT_MODULES = ["torch", "torch.linalg", "torch.fft", "torch.special", "torch.nn.functional"]


def _out_functions_of_op_db():
    """Functions PyTorch's OpInfo database says take ``out=`` (``supports_out``), by identity."""
    from torch.testing._internal.common_methods_invocations import op_db
    return {id(op.op) for op in op_db if op.supports_out and op.op is not None}


def _parser_says(fn, *args):
    """What PyTorch's argument parser answers to ``fn(*args, out=<tensor>)``: True (it took ``out``),
    False (it refused the keyword) or None (it cannot tell: arguments are missing)."""
    try:
        fn(*args, out=torch.empty(0))
    except TypeError as e:
        msg = str(e)
        if "unexpected keyword argument 'out'" in msg:
            return False
        if "expected one of:" in msg:  # the overloads are listed: does one take out?
            return bool(re.search(r"\bout = None|Tensors? out\b", msg))
        return None
    except Exception:  # noqa: BLE001 - the parser took the call; the kernel refused the dummy arguments
        return True
    return True


def takes_out(fn, op_db_out, overrides):
    """Whether ``fn`` accepts ``out=``: its Python signature names it (or takes ``**kwargs``: then as for
    a C binding); for a C binding (no Python signature), what the argument parser answers (given more arguments until it can tell), else PyTorch's
    OpInfo database (``supports_out``) or ``torch.overrides.get_testing_overrides()``."""
    if not callable(fn) or isinstance(fn, type):
        return False
    try:
        params = inspect.signature(fn).parameters
        if "out" in params or not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            return "out" in params
    except (TypeError, ValueError):  # a C binding
        pass
    t = torch.ones(2, 2)
    for args in ((), (t,), (2,), (t, t), (t, 0), (2, 2), (t, 0, t), (t, 0, t, t)):  # until the parser reads keywords
        said = _parser_says(fn, *args)
        if said is not None:
            return said
    lam = overrides.get(fn)
    return id(fn) in op_db_out or (lam is not None and "out" in inspect.signature(lam).parameters)


def submodules(package, prefix):
    """Public dotted submodule names below ``package``, found on disk (nothing imported)."""
    names = []
    for info in pkgutil.iter_modules(package.__path__ if hasattr(package, "__path__") else package, prefix):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
        if info.ispkg:
            path = [str(Path(info.module_finder.path) / info.name.rsplit(".", 1)[-1])]
            names += submodules(path, info.name + ".")
    return names


def public(mod):
    names = set(getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")])
    if mod is torch:  # functions torch re-exports outside __all__ (torch.lu, torch.svd_lowrank, ...)
        names |= {n for n in dir(mod) if callable(getattr(mod, n)) and not isinstance(getattr(mod, n), type)}
    return sorted(n for n in names if not n.startswith("_"))


def torchs_own(mod, name):
    """Whether ``mod.name`` is PyTorch's own (a function, class, submodule or constant of torch), not a
    name the module imported from elsewhere (``typing.Any``, ``functools.wraps``, ``torch`` itself)."""
    if name.startswith("_") or name == "TYPE_CHECKING":
        return False
    obj = getattr(mod, name, None)
    if isinstance(obj, types.ModuleType):
        return obj.__name__.startswith("torch.")
    if isinstance(obj, (int, float, str, bytes)) and not isinstance(obj, bool):
        return True
    owner = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "")
    return isinstance(owner, str) and owner.split(".")[0] == "torch"


def dir_names(mod, listed):
    """Public names ``dir(mod)`` shows beyond ``__all__`` (``listed``) that are PyTorch's own."""
    return sorted(n for n in dir(mod) if n not in listed and torchs_own(mod, n))


def main():
    out = {}
    for m in MODULES:
        try:
            out[m] = public(importlib.import_module(m))
        except Exception:  # a module missing in this build
            continue
    tensor = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    native = {m: sorted(n for n in out[m] if isinstance(getattr(importlib.import_module(m), n, None),
                                                        types.BuiltinFunctionType))
              for m in NUMPY_COMPAT_MODULES if m in out}
    extra = {m: tuple(dir_names(importlib.import_module(m), set(v))) for m, v in out.items()}
    extra = {m: v for m, v in extra.items() if v}
    op_db_out, overrides = _out_functions_of_op_db(), torch.overrides.get_testing_overrides()
    out_fns = {m: tuple(n for n in out[m] if takes_out(getattr(importlib.import_module(m), n, None), op_db_out,
                                                       overrides))
               for m in OUT_MODULES if m in out}
    native["torch.Tensor"] = sorted(n for n in tensor if type(getattr(torch.Tensor, n)).__name__ == "method_descriptor")
    text = ['"""Public names of PyTorch %s, generated by tools/gen_torch_api_names.py.\n\nDo not edit."""\n' % torch.__version__,
            f"TORCH_VERSION = {torch.__version__.split('+')[0]!r}\n",
            "TENSOR_METHODS = frozenset(" + pprint.pformat(tensor, width=100, compact=True) + ")\n",
            "MODULE_NAMES = " + pprint.pformat({k: tuple(v) for k, v in out.items()}, width=100, compact=True) + "\n",
            "#: functions PyTorch's C++ argument parser reads (they take numpy's ``axis``/``keepdims``/``x``/``x2``\n"
            "#: spellings of ``dim``/``keepdim``/``input``/``other``; PyTorch's Python-level functions do not)\n"
            "NATIVE_FUNCTIONS = " + pprint.pformat({k: tuple(v) for k, v in native.items()}, width=100, compact=True)
            + "\n",
            "#: further public names of PyTorch's own that ``dir()`` shows (outside ``__all__``): also named\n"
            "#: as not supported when msnb lacks them\n"
            "DIR_NAMES = " + pprint.pformat(extra, width=100, compact=True) + "\n",
            "#: functions that take ``out=``\n"
            "OUT_FUNCTIONS = " + pprint.pformat(out_fns, width=100, compact=True) + "\n",
            "#: PyTorch's public submodules (``torch.distributed.rpc``, ...)\n"
            "SUBMODULES = frozenset(" + pprint.pformat(sorted(submodules(torch, "torch.")), width=100, compact=True)
            + ")\n"]
    Path(__file__).resolve().parents[1].joinpath("msnb/adapter/torch/_api_names.py").write_text("\n".join(text))


if __name__ == "__main__":
    main()
