"""Tracing for ``torch.export``: msnb's :class:`torch.fx.Tracer` run on the
example inputs, every node carrying the value it computed (``node.meta['val']``).

Unlike ``symbolic_trace``, modules are traced through (no leaf modules) and a
tensor's ``shape`` / ``dim()`` / ``dtype`` ... read while tracing give the
example's values, so shape checks in ``forward`` run as Python (PyTorch's
export specialises on them the same way).  Python control flow on a value
computed from tensor data raises PyTorch's error.  Non-tensor inputs are
constants of the program (they keep their placeholder)."""

from __future__ import annotations

from ..fx._symbolic_trace import Tracer
from ..fx.node import map_arg
from ..fx.proxy import Attribute, Proxy
from ._errors import GuardOnDataDependentSymNode, Unsupported

__all__ = ["ExportTracer", "ValueProxy"]

#: tensor attributes and methods that describe it rather than compute: read from the example value
_META = frozenset({"shape", "ndim", "dtype", "device", "is_cuda", "requires_grad", "layout", "is_sparse", "size",
                   "dim", "numel", "nelement", "is_floating_point", "is_complex", "is_contiguous", "element_size",
                   "get_device", "is_leaf", "names", "is_quantized", "is_meta", "is_nested", "data_ptr"})


class ValueProxy(Proxy):
    """A Proxy that knows the value its node computed on the example inputs."""

    @property
    def value(self):
        return self.node.meta["val"]

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__") or k in ("tracer", "node", "_msnb_hooked"):
            raise AttributeError(k)
        from .. import Tensor
        v = self.node.meta.get("val")
        if k in _META and isinstance(v, Tensor):
            return getattr(v, k)
        return Attribute(self, k)

    def __len__(self):
        from .. import Tensor
        v = self.node.meta.get("val")
        if isinstance(v, Tensor):
            return len(v)
        return super().__len__()


def _attr_of(root, target: str):
    """``root.<target>`` read past the trace's own ``Module.__getattr__`` (which makes Proxies)."""
    value = root
    for part in target.split("."):
        d = vars(value)
        for store in ("_parameters", "_buffers", "_modules"):
            if part in d.get(store, ()):
                value = d[store][part]
                break
        else:
            value = object.__getattribute__(value, part)
    return value


class ExportTracer(Tracer):
    """Traces a module through to msnb's torch functions, computing as it goes."""

    def __init__(self, inputs: dict, strict: bool):
        super().__init__()
        self._inputs = inputs
        self._strict = strict

    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        return False

    def proxy(self, node):
        return ValueProxy(node, self)

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        if kind == "get_attr":  # parameters, buffers and tensor constants met as arguments
            node.meta["val"] = _attr_of(self.root, target)
        return node

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        from .. import Tensor
        if kind == "placeholder":
            key = target.lstrip("*")
            if key not in self._inputs:
                raise Unsupported(f"forward takes *{key}: msnb's torch.export needs named inputs")
            value = self._inputs[key]
            p = super().create_proxy(kind, target, args, kwargs, name, type_expr)
            p.node.meta["val"] = value
            return p if isinstance(value, Tensor) else value
        p = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        node = p.node
        a = map_arg(node.args, lambda n: n.meta["val"])
        k = map_arg(node.kwargs, lambda n: n.meta["val"])
        if kind == "get_attr":
            value = node.meta["val"]
        elif kind == "call_method":
            value = getattr(a[0], target)(*a[1:], **k)
        elif kind == "call_function":
            value = target(*a, **k)
        else:  # call_module never happens: no leaf modules
            raise Unsupported(f"unexpected {kind} node while exporting")
        node.meta["val"] = value
        return p

    def to_bool(self, obj):
        if self._strict:
            raise Unsupported("Data-dependent branching\n  Explanation: Detected data-dependent branching (e.g. "
                              "`if my_tensor.sum() > 0:`). msnb's export cannot trace dynamic control flow.")
        raise GuardOnDataDependentSymNode(f"Could not guard on data-dependent expression {obj.node.name} (a value "
                                          "computed from tensor data decides Python control flow)")

    def iter(self, obj):
        v = obj.node.meta.get("val")
        if isinstance(v, (tuple, list)):
            return (obj[i] for i in range(len(v)))
        return super().iter(obj)
