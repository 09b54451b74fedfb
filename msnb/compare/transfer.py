"""Sending a cell's inputs to the PyTorch process.

The names a cell reads are looked up in the notebook's namespace and
encoded: msnb tensors become numpy arrays (rebuilt as real tensors, with
``requires_grad``), adapter modules become the matching ``torch`` /
``torchvision`` import, functions and classes defined in earlier cells
travel as their source, and anything else that pickles goes as is.  What
cannot travel is listed, so a ``NameError`` on the PyTorch side can say why.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import pickle
import types
from typing import Any

import numpy as np

__all__ = ["names_read", "encode_inputs", "decode_inputs", "torch_name"]

_ADAPTER = "msnb.adapter."


def torch_name(module_name: str) -> str:
    """``msnb.adapter.torch.nn`` -> ``torch.nn`` (other names unchanged)."""
    return module_name[len(_ADAPTER):] if module_name.startswith(_ADAPTER) else module_name


def names_read(source: str) -> list[str]:
    """Free names the source reads (first-use order, builtins excluded)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    seen: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not hasattr(builtins, node.id):
            seen.setdefault(node.id, None)
    return list(seen)


def _is_msnb_tensor(v) -> bool:
    return type(v).__module__.startswith(_ADAPTER) and hasattr(v, "detach") and hasattr(v, "numpy")


def _encode(value: Any):
    if isinstance(value, types.ModuleType):
        return ("module", torch_name(value.__name__))
    if _is_msnb_tensor(value):
        return ("tensor", np.asarray(value.detach().numpy()), bool(value.requires_grad))
    if isinstance(value, (types.FunctionType, type)) and getattr(value, "__module__", "") == "__main__":
        try:
            return ("source", inspect.getsource(value))
        except (OSError, TypeError):
            return None
    if inspect.isroutine(value) or isinstance(value, type):
        mod = getattr(value, "__module__", "") or ""
        if mod.startswith(_ADAPTER) or mod.startswith("msnb."):
            return ("attr", torch_name(mod), value.__qualname__) if mod.startswith(_ADAPTER) else None
    if type(value).__module__.startswith("msnb."):
        return None  # an adapter object (model, optimizer, ...): made in the cell on each side instead
    try:
        pickle.dumps(value)
    except Exception:  # noqa: BLE001 - anything unpicklable stays behind
        return None
    return ("value", value)


def encode_inputs(source: str, namespace: dict) -> tuple[dict, list[str], list[str]]:
    """(encoded inputs, source blocks to run first, names that could not travel)."""
    inputs, preamble, left = {}, [], []
    todo, done = names_read(source), set()
    while todo:
        name = todo.pop(0)
        if name in done or name not in namespace:
            continue
        done.add(name)
        enc = _encode(namespace[name])
        if enc is None:
            left.append(name)
        elif enc[0] == "source":
            preamble.append(enc[1])
            todo.extend(names_read(enc[1]))
        else:
            inputs[name] = enc
    return inputs, preamble[::-1], left


def decode_inputs(inputs: dict, torch) -> dict:
    """The child's namespace values (``torch`` is the real one)."""
    out = {}
    for name, enc in inputs.items():
        try:
            out[name] = _decode(enc, torch)
        except (ImportError, AttributeError):
            continue  # PyTorch has no such name: the cell's own NameError will say so
    return out


def _decode(enc, torch):
    import importlib
    kind = enc[0]
    if kind == "module":
        return importlib.import_module(enc[1])
    if kind == "tensor":
        t = torch.from_numpy(np.array(enc[1]))
        return t.requires_grad_(True) if enc[2] else t
    if kind == "attr":
        obj = importlib.import_module(enc[1])
        for part in enc[2].split("."):
            obj = getattr(obj, part)
        return obj
    return enc[1]
