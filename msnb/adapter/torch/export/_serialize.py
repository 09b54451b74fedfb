"""``torch.export.save`` / ``torch.export.load``: a ``.pt2`` zip archive that
loading never runs code from.

msnb's archive holds ``msnb_export/format`` (``msnb-pt2 1``),
``msnb_export/program.json`` (the graph: each node's op, name, target and
arguments as JSON; functions by their ``torch.*`` / ``operator.*`` names) and
``msnb_export/data.pt`` (parameters, buffers, constants and tensor example
inputs, written by msnb's ``torch.save`` and read back with
``weights_only=True``).  Loading resolves a function name only among msnb's
``torch`` namespaces and Python's ``operator`` module, a method name only
among ``torch.Tensor``'s methods: nothing else can be called.  A ``.pt2``
written by PyTorch holds an ATen-operator graph, which msnb does not read:
loading one raises msnb's unsupported error by name."""

from __future__ import annotations

import importlib
import io
import json
import math
import operator
import os
import zipfile

from .._missing import NotSupportedError, not_supported_message

__all__ = ["save", "load"]

_FORMAT = b"msnb-pt2 1"
_PREFIX = "msnb_export/"
#: namespaces a call_function target may name when loading
_FUNCTION_NAMESPACES = {"torch": "msnb.adapter.torch", "torch.nn.functional": "msnb.adapter.torch.nn.functional",
                        "torch.linalg": "msnb.adapter.torch.linalg", "torch.special": "msnb.adapter.torch.special",
                        "torch.fft": "msnb.adapter.torch.fft"}
_BUILTINS = {"getattr": getattr}
#: torch functions with effects beyond their result (files, global state, callables): never called by a load
_DENY = frozenset({"save", "load", "from_file", "set_default_device", "set_default_tensor_type", "set_default_dtype",
                   "set_num_threads", "set_num_interop_threads", "use_deterministic_algorithms",
                   "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_grad_enabled",
                   "set_rng_state", "seed", "manual_seed", "initial_seed", "set_warn_always", "set_printoptions",
                   "compile", "vmap", "cond", "set_flush_denormal", "set_anomaly_enabled", "autocast",
                   "enable_grad", "no_grad", "inference_mode", "set_autocast_enabled", "typename", "is_tensor",
                   "is_storage", "cast_to_adapter_tensor", "cast_to_ms_tensor", "get_default_dtype"})


class _Refused(Exception):
    pass


def _encode(a, nodes):
    from .. import device, dtype
    if hasattr(a, "op") and hasattr(a, "users"):
        return {"node": a.name}
    if isinstance(a, bool) or a is None or isinstance(a, (int, str)):
        return a
    if isinstance(a, float):
        return a if math.isfinite(a) else {"float": repr(a)}
    if isinstance(a, tuple):
        return {"tuple": [_encode(v, nodes) for v in a]}
    if isinstance(a, list):
        return [_encode(v, nodes) for v in a]
    if isinstance(a, dict):
        return {"dict": [[_encode(k, nodes), _encode(v, nodes)] for k, v in a.items()]}
    if isinstance(a, slice):
        return {"slice": [_encode(a.start, nodes), _encode(a.stop, nodes), _encode(a.step, nodes)]}
    if isinstance(a, dtype):
        return {"dtype": str(a).replace("torch.", "")}
    if isinstance(a, device):
        return {"device": str(a)}
    raise _Refused(f"an argument of type {type(a).__name__}")


def _target_name(node):
    from ..fx.node import _qualified_name
    if node.op != "call_function":
        return node.target
    name = _qualified_name(node.target)
    if _resolve_function(name) is not node.target and \
            getattr(_resolve_function(name), "_msnb_fx_original", None) is not node.target:
        raise _Refused(f"the function {name}")
    return name


def _resolve_function(name: str):
    ns, _, attr = name.rpartition(".")
    if attr.startswith("__"):
        return None
    if ns == "operator":
        return getattr(operator, attr, None) if not attr.startswith("_") else None
    if ns == "builtins":
        return _BUILTINS.get(attr)
    mod = _FUNCTION_NAMESPACES.get(ns)
    if mod is None or attr in _DENY or attr.startswith("_") and attr != "_assert":
        return None
    from ..fx._hook import qualified_name_of
    fn = vars(importlib.import_module(mod)).get(attr)
    fn = getattr(fn, "_msnb_fx_original", fn)
    if fn is None or isinstance(fn, type) or qualified_name_of(fn) != name:
        return None  # only the functions msnb's tracer records under this very name
    return fn


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol: int = 2) -> None:
    """msnb implementation of ``torch.export.save``: write ``ep`` as msnb's ``.pt2`` archive."""
    from .. import Tensor
    from .. import save as torch_save
    from .exported_program import ExportedProgram
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got '{type(ep).__name__}' "
                        "instead.")
    nodes = []
    try:
        for n in ep._graph.nodes:
            nodes.append({"op": n.op, "name": n.name, "target": _target_name(n),
                          "args": _encode(n.args, nodes), "kwargs": _encode(n.kwargs, nodes)})
    except _Refused as e:
        raise NotSupportedError(not_supported_message(f"torch.export.save of a program calling {e}")) from None
    tensors, attrs = {}, {}
    persistent = set(ep._root.state_dict())
    for target, v in ep._root.named_parameters():
        attrs[target] = {"kind": "parameter", "requires_grad": bool(v.requires_grad)}
        tensors["attr:" + target] = v.detach()
    for target, v in ep._root.named_buffers():
        attrs[target] = {"kind": "buffer", "persistent": target in persistent}
        tensors["attr:" + target] = v.detach()
    for n in ep._graph.nodes:
        if n.op == "get_attr" and n.target not in attrs:
            attrs[n.target] = {"kind": "constant"}
            tensors["attr:" + n.target] = n.meta["val"].detach()
    examples = {}
    for name, v in ep._examples.items():
        if isinstance(v, Tensor):
            tensors["input:" + name] = v.detach()
            examples[name] = {"tensor": True}
        else:
            try:
                examples[name] = {"value": _encode(v, nodes)}
            except _Refused:
                raise NotSupportedError(not_supported_message(f"torch.export.save of an input of type "
                                                              f"{type(v).__name__}")) from None
    program = {"nodes": nodes, "attrs": attrs, "inputs": ep._names, "examples": examples,
               "n_args": len(ep.example_inputs[0]),
               "dynamic": [[k[0], k[1], lo, hi, ep._symbols[k]] for k, (lo, hi) in ep._dynamic.items()]}
    buf = io.BytesIO()
    torch_save(tensors, buf)
    own = not hasattr(f, "write")
    out = open(os.fspath(f), "wb") if own else f
    try:
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
            z.writestr(_PREFIX + "format", _FORMAT)
            z.writestr(_PREFIX + "program.json", json.dumps(program))
            z.writestr(_PREFIX + "data.pt", buf.getvalue())
            for k, v in (extra_files or {}).items():
                z.writestr(_PREFIX + "extra/" + k, v if isinstance(v, bytes) else str(v).encode())
    finally:
        if own:
            out.close()


def _decode(a, env):
    from .. import device
    from .. import _dtype
    if isinstance(a, list):
        return [_decode(v, env) for v in a]
    if not isinstance(a, dict):
        return a
    (key, v), = a.items()
    if key == "node":
        return env[v]
    if key == "tuple":
        return tuple(_decode(x, env) for x in v)
    if key == "dict":
        return {_decode(k, env): _decode(x, env) for k, x in v}
    if key == "slice":
        return slice(*(_decode(x, env) for x in v))
    if key == "float":
        return float(v)
    if key == "dtype":
        dt = getattr(_dtype, v, None)
        if dt is None:
            raise ValueError(f"unknown dtype {v!r} in the archive")
        return dt
    if key == "device":
        return device(v)
    raise ValueError(f"unknown value {a!r} in the archive")


def load(f, *, extra_files=None, expected_opset_version=None):
    """msnb implementation of ``torch.export.load``: read msnb's ``.pt2`` archive (no code runs)."""
    from .. import Tensor
    from .. import load as torch_load
    from .._api_names import TENSOR_METHODS
    from ..fx.graph import Graph
    from ..nn import Module, Parameter
    from .exported_program import ExportedProgram
    with zipfile.ZipFile(f if hasattr(f, "read") else os.fspath(f)) as z:
        names = set(z.namelist())
        if _PREFIX + "format" not in names:
            if any(n.endswith("archive_format") for n in names):
                raise NotSupportedError(not_supported_message(
                    "torch.export.load of a .pt2 archive written by PyTorch (its graph is made of ATen "
                    "operators)"))
            raise RuntimeError("not a torch.export archive: no archive format record")
        if z.read(_PREFIX + "format") != _FORMAT:
            raise RuntimeError(f"unknown msnb export archive format {z.read(_PREFIX + 'format')!r}")
        program = json.loads(z.read(_PREFIX + "program.json"))
        tensors = torch_load(io.BytesIO(z.read(_PREFIX + "data.pt")), weights_only=True)
        if extra_files is not None:
            for k in extra_files:
                extra_files[k] = z.read(_PREFIX + "extra/" + k).decode()
    root = Module()
    for target, info in program["attrs"].items():
        t = tensors["attr:" + target]
        owner = root
        *path, field = target.split(".")
        for p in path:
            if p not in owner._modules:
                owner.add_module(p, Module())
            owner = owner._modules[p]
        if info["kind"] == "parameter":
            owner.register_parameter(field, Parameter(t, requires_grad=info["requires_grad"]))
        elif info["kind"] == "buffer":
            owner.register_buffer(field, t, persistent=info["persistent"])
        else:
            object.__setattr__(owner, field, t)
    methods = set(TENSOR_METHODS) | {f"__{n}__" for n in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv",
                                                          "rtruediv", "floordiv", "rfloordiv", "mod", "rmod",
                                                          "pow", "rpow", "matmul", "rmatmul", "and", "or",
                                                          "xor", "getitem", "rdiv")}
    g = Graph()
    env = {}
    for n in program["nodes"]:
        op, target = n["op"], n["target"]
        args, kwargs = _decode(n["args"], env), _decode(n["kwargs"], env)
        if op == "call_function":
            fn = _resolve_function(target)
            if fn is None:
                raise RuntimeError(f"torch.export.load refuses the archive: it calls {target!r}, which is not a "
                                   "torch function")
            if fn is getattr and not (len(args) == 2 and isinstance(args[1], str) and not args[1].startswith("_")):
                raise RuntimeError("torch.export.load refuses the archive: it reads a private attribute")
            target = fn
        elif op == "call_method":
            if target not in methods:
                raise RuntimeError(f"torch.export.load refuses the archive: it calls the method {target!r}, which "
                                   "is not a torch.Tensor method")
        elif op == "get_attr":
            if target not in program["attrs"]:
                raise RuntimeError(f"torch.export.load refuses the archive: unknown attribute {target!r}")
        elif op not in ("placeholder", "output"):
            raise RuntimeError(f"torch.export.load refuses the archive: unknown node kind {op!r}")
        node = g.create_node(op, target, tuple(args) if op != "output" else tuple(args), kwargs, n["name"])
        env[n["name"]] = node
    examples = {}
    for name, info in program["examples"].items():
        examples[name] = tensors["input:" + name] if info.get("tensor") else _decode(info["value"], env)
    _propagate(g, root, examples)
    dynamic = {(a, i): (lo, hi) for a, i, lo, hi, _ in program["dynamic"]}
    symbols = {(a, i): s for a, i, _, _, s in program["dynamic"]}
    names = program["inputs"]
    k = program["n_args"]
    example_inputs = (tuple(examples[x] for x in names[:k]), {x: examples[x] for x in names[k:]})
    if not all(isinstance(v, Tensor) or v is None or isinstance(v, (int, float, bool, str)) for v in examples.values()):
        raise RuntimeError("torch.export.load refuses the archive: unexpected example input")
    return ExportedProgram(root, g, examples, names, dynamic, symbols, example_inputs)


def _propagate(g, root, examples) -> None:
    """Each node's value on the example inputs (``node.meta['val']``), as the trace left it."""
    from ..autograd.grad_mode import no_grad
    from ..fx.node import map_arg
    with no_grad():
        for node in g.nodes:
            a = map_arg(node.args, lambda n: n.meta["val"])
            k = map_arg(node.kwargs, lambda n: n.meta["val"])
            if node.op == "placeholder":
                node.meta["val"] = examples[node.target]
            elif node.op == "get_attr":
                v = root
                for p in node.target.split("."):
                    v = getattr(v, p)
                node.meta["val"] = v
            elif node.op == "call_function":
                node.meta["val"] = node.target(*a, **k)
            elif node.op == "call_method":
                node.meta["val"] = getattr(a[0], node.target)(*a[1:], **k)

