"""msnb implementation of ``torch.fx.proxy``: values that record what is done to them.

A :class:`Proxy` stands for a graph :class:`~torch.fx.Node`.  Operators,
``Tensor`` methods and ``torch.*`` functions applied to it append nodes to
its tracer's graph (the functions through :mod:`._hook`).  Python control
flow on a Proxy cannot be recorded and raises :class:`TraceError`, as in
PyTorch.
"""

from __future__ import annotations

import dis
from collections import OrderedDict
import inspect
import operator
from typing import Any

from .._missing import module_getattr
from . import _hook
from .graph import Graph
from .node import Node

__all__ = ["TraceError", "TracerBase", "GraphAppendingTracer", "Proxy", "Attribute", "ParameterProxy"]


class TraceError(ValueError):
    """Raised when symbolic tracing meets something it cannot record (PyTorch's ``TraceError``)."""


_BASE_TYPES = (str, int, float, bool, complex, bytes, type(None), type(...), range)


class TracerBase:
    """What every tracer does: make nodes from calls and turn arguments into graph values."""

    graph: Graph
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    #: True while a trace runs and holds the torch-function hook for all its Proxies
    _holds_hook = False

    def __init__(self):
        self.module_stack: dict[str, tuple] = {}
        self.scope = None

    def create_node(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                    type_expr: Any | None = None) -> Node:
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        if self.module_stack:
            node.meta["nn_module_stack"] = OrderedDict(self.module_stack)
        return node

    def proxy(self, node: Node) -> "Proxy":
        return Proxy(node, self)

    def create_proxy(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr: Any | None = None, proxy_factory_fn=None) -> "Proxy":
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple) or not isinstance(kwargs_, dict):
            raise AssertionError("create_arg must keep args a tuple and kwargs a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a: Any):
        """``a`` as a graph argument: Proxies become their nodes, containers are mapped, constants kept."""
        from .. import Tensor, device, dtype
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(v) for v in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(v) for v in a)
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, _BASE_TYPES) or isinstance(a, (dtype, device)) or a == "torch.contiguous_format":
            return a
        if isinstance(a, Tensor) and isinstance(self, GraphAppendingTracer):
            return a  # no root to hold it: the generated code gets it as a global constant
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: "Proxy") -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: "Proxy"):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop "
                         "or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: "Proxy"):
        return Attribute(obj, "keys")()

    def path_of_module(self, mod) -> str:
        raise NotImplementedError("path_of_module needs a root module (use torch.fx.Tracer)")


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing graph (for Proxies made around its nodes)."""

    def __init__(self, graph: Graph):
        super().__init__()
        self.graph = graph
        self.scope = None


class Proxy:
    """msnb implementation of ``torch.fx.Proxy``: stands for ``node`` while tracing."""

    def __init__(self, node: Node, tracer: TracerBase | None = None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node
        if not tracer._holds_hook:  # a trace's Proxies (kept alive by a traceback, say) do not hold it after
            _hook.acquire()
            self._msnb_hooked = True

    def __del__(self):
        if self.__dict__.get("_msnb_hooked"):
            try:
                _hook.release()
            except Exception:  # noqa: BLE001 - interpreter shutdown: the hook module is already gone
                pass

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> "Attribute":
        if k.startswith("__") and k.endswith("__") or k in ("tracer", "node", "_msnb_hooked"):
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        raise TraceError("a torch.fx.Proxy cannot be deep-copied while tracing")

    def __call__(self, *args, **kwargs) -> "Proxy":
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        inst = _instruction_at(frame)
        if inst is not None and inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    def keys(self):
        return self.tracer.keys(self)

    __hash__ = object.__hash__


def _instruction_at(frame):
    if frame is None:
        return None
    for inst in dis.get_instructions(frame.f_code):
        if inst.offset == frame.f_lasti:
            return inst
    return None


def _make_magic(op):
    def impl(*args):
        tracer = next(a.tracer for a in args if isinstance(a, Proxy))
        return tracer.create_proxy("call_function", op, args, {})
    return impl


def _make_reflected(op):
    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", op, (rhs, self), {})
    return impl


_REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_",
                "xor", "matmul")
for _name in _REFLECTABLE + ("eq", "ne", "lt", "gt", "le", "ge", "neg", "pos", "invert", "getitem", "abs"):
    _op = getattr(operator, _name)
    setattr(Proxy, f"__{_name.rstrip('_')}__", _make_magic(_op))
for _name in _REFLECTABLE:
    setattr(Proxy, f"__r{_name.rstrip('_')}__", _make_reflected(getattr(operator, _name)))
Proxy.__hash__ = object.__hash__


class Attribute(Proxy):
    """``proxy.attr``: a ``getattr`` node made only when the value is used, a ``call_method`` node when called."""

    def __init__(self, root: Proxy, attr: str):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    def __del__(self):
        pass

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __getattr__(self, k):
        if k in ("root", "attr", "tracer", "_node"):
            raise AttributeError(k)
        return super().__getattr__(k)

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A Proxy for a parameter whose shape is known while tracing."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


_hook._PROXY = Proxy

__getattr__ = module_getattr("torch.fx.proxy")
