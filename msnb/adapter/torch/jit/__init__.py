"""msnb implementation of ``torch.jit``.

msnb has no TorchScript.  ``torch.jit.script`` and ``torch.jit.trace`` on an
``nn.Module`` return a module that runs as compiled MindSpore graphs (msnb
graph mode, said once at its first call) and keeps the original's attributes
and state-dict keys; on a function they return the function, which runs as
Python.  What only TorchScript has -- ``.save``, ``.code``, ``.graph``,
``torch.jit.save`` / ``load``, ``freeze`` -- raises msnb's unsupported error.
The decorators scripted code uses (``ignore``, ``unused``, ``export``,
``Final``, ``annotate``, ``is_scripting``, ...) work as they do in eager
PyTorch.
"""

from __future__ import annotations

from typing import Final  # noqa: F401 - torch.jit.Final is typing.Final

from .._compiled import OptimizedModule
from ..nn.modules.module import Module

__all__ = ["script", "trace", "trace_module", "ScriptModule", "ScriptFunction", "RecursiveScriptModule",
           "ignore", "unused", "export", "interface", "is_scripting", "is_tracing", "annotate", "Final",
           "save", "load", "freeze", "optimize_for_inference", "fork", "wait", "Attribute",
           "enable_onednn_fusion", "onednn_fusion_enabled", "set_fusion_strategy"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _unsupported(what: str):
    return NotImplementedError(f"{what} is not supported by msnb yet: msnb has no TorchScript ({_SUPPORT})")


class RecursiveScriptModule(OptimizedModule):
    """What ``torch.jit.script(module)`` / ``trace(module, ...)`` return: the
    original module (same parameters, same state-dict keys) run as compiled
    graphs."""

    def __init__(self, mod, api):
        super().__init__(mod, api)

    # PyTorch's script module has the original's keys, not ``_orig_mod.`` ones.
    def state_dict(self, *args, **kwargs):
        return self._orig_mod.state_dict(*args, **kwargs)

    def load_state_dict(self, *args, **kwargs):
        return self._orig_mod.load_state_dict(*args, **kwargs)

    def named_parameters(self, *args, **kwargs):
        return self._orig_mod.named_parameters(*args, **kwargs)

    def named_buffers(self, *args, **kwargs):
        return self._orig_mod.named_buffers(*args, **kwargs)

    def named_children(self):
        return self._orig_mod.named_children()

    def named_modules(self, *args, **kwargs):
        return self._orig_mod.named_modules(*args, **kwargs)

    def parameters(self, recurse=True):
        return self._orig_mod.parameters(recurse)

    def buffers(self, recurse=True):
        return self._orig_mod.buffers(recurse)

    def children(self):
        return self._orig_mod.children()

    def modules(self):
        return self._orig_mod.modules()

    def train(self, mode=True):
        self._orig_mod.train(mode)
        return super().train(mode)

    def save(self, *args, **kwargs):
        raise _unsupported("torch.jit.ScriptModule.save")

    def save_to_buffer(self, *args, **kwargs):
        raise _unsupported("torch.jit.ScriptModule.save_to_buffer")

    @property
    def code(self):
        raise _unsupported("torch.jit.ScriptModule.code")

    @property
    def graph(self):
        raise _unsupported("torch.jit.ScriptModule.graph")

    @property
    def inlined_graph(self):
        raise _unsupported("torch.jit.ScriptModule.inlined_graph")

    def __repr__(self):
        return f"RecursiveScriptModule(original_name={type(self._orig_mod).__name__})"


ScriptModule = RecursiveScriptModule


class ScriptFunction:
    """``torch.jit.ScriptFunction``: msnb never makes one (scripted functions stay Python)."""

    def __init__(self, *args, **kwargs):
        raise _unsupported("torch.jit.ScriptFunction")


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """msnb implementation of ``torch.jit.script``: a module runs as compiled
    graphs; a function or class is returned unchanged and runs as Python."""
    if isinstance(obj, RecursiveScriptModule):
        return obj
    if isinstance(obj, Module):
        return RecursiveScriptModule(obj, "torch.jit.script")
    if callable(obj):
        return obj
    raise RuntimeError(f"torch.jit.script: expected a module, function or class, got {type(obj).__name__}")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """msnb implementation of ``torch.jit.trace``: the example inputs are run
    once (as PyTorch does, so errors show at trace time); a module then runs
    as compiled graphs, a function is returned unchanged."""
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("torch.jit.trace: example_inputs or example_kwarg_inputs is required")
    args = example_inputs if isinstance(example_inputs, tuple) else (
        () if example_inputs is None else (example_inputs,))
    func(*args, **(example_kwarg_inputs or {}))
    if isinstance(func, Module):
        return RecursiveScriptModule(func, "torch.jit.trace")
    return func


def trace_module(mod, inputs, *args, **kwargs):
    """msnb implementation of ``torch.jit.trace_module`` (``inputs`` maps method names to example inputs)."""
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    for method, example in inputs.items():
        example = example if isinstance(example, tuple) else (example,)
        getattr(mod, method)(*example)
    return RecursiveScriptModule(mod, "torch.jit.trace_module")


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore``: the function is left as Python (it always is in msnb)."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """``@torch.jit.unused``: left as Python."""
    return fn


def export(fn):
    """``@torch.jit.export``: marks a method; nothing to do outside TorchScript."""
    return fn


def interface(obj):
    """``@torch.jit.interface``: the class is returned unchanged."""
    return obj


def is_scripting() -> bool:
    """False: msnb never runs code as TorchScript."""
    return False


def is_tracing() -> bool:
    """False: ``torch.jit.trace`` runs its example as plain eager code."""
    return False


def annotate(the_type, the_value):
    """``torch.jit.annotate``: returns the value (a type hint for the TorchScript compiler)."""
    return the_value


class Attribute:
    """``torch.jit.Attribute(value, type)``: in eager code, just the value."""

    def __new__(cls, value, type=None):  # noqa: A002 - torch's name
        return value


def save(m, f, _extra_files=None):
    raise _unsupported("torch.jit.save")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise _unsupported("torch.jit.load")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    raise _unsupported("torch.jit.freeze")


def optimize_for_inference(mod, other_methods=None):
    raise _unsupported("torch.jit.optimize_for_inference")


def fork(func, *args, **kwargs):
    raise _unsupported("torch.jit.fork")


def wait(future):
    raise _unsupported("torch.jit.wait")


_fusion = {"onednn": False}


def enable_onednn_fusion(enabled: bool):
    """Recorded only: msnb does not run TorchScript fusion passes."""
    _fusion["onednn"] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    return _fusion["onednn"]


def set_fusion_strategy(strategy):
    """Returns the previous strategy, as PyTorch does; msnb has no fuser to configure."""
    prev = _fusion.get("strategy", [("STATIC", 2), ("DYNAMIC", 10)])
    _fusion["strategy"] = list(strategy)
    return prev


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.jit")
