"""msnb implementation of ``torch.fx.graph_module``: a module whose ``forward``
is generated from a :class:`~torch.fx.Graph`.

The submodules, parameters and buffers the graph refers to are taken from
the root module (shared, not copied: training the GraphModule trains the
original's parameters).  Each GraphModule gets its own class, so that
``recompile()`` can install the generated ``forward`` on it, as in PyTorch.
"""

from __future__ import annotations

import copy
import itertools
import linecache
from typing import Any

from .._missing import module_getattr
from .graph import Graph, PythonCode
from ..nn import Module

__all__ = ["GraphModule"]

_counter = itertools.count()


def _copy_attr(from_module, to_module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # already there (a module shared with the root)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    _assign(to_module, field, orig)


def _assign(to_module, field: str, obj) -> None:
    from .. import Tensor
    from ..nn import Parameter
    if isinstance(obj, Tensor) and not isinstance(obj, Parameter):
        to_module.register_buffer(field, obj)
    else:
        setattr(to_module, field, obj)


def _assign_attr(obj, to_module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    _assign(to_module, field, obj)


class GraphModule(Module):
    """msnb implementation of ``torch.fx.GraphModule``."""

    def __new__(cls, *args, **kwargs):
        # every instance has its own class, so the generated forward can live on it
        for base in cls.__mro__:
            if base.__dict__.get("_msnb_graph_module_impl"):
                cls = base.__bases__[0]
                break
        impl = type(cls.__name__, (cls,), {"_msnb_graph_module_impl": True,
                                           "__qualname__": f"{cls.__qualname__}.__new__.<locals>.GraphModuleImpl"})
        return Module.__new__(impl)

    def __init__(self, root, graph: Graph, class_name: str = "GraphModule"):
        super().__init__()
        type(self).__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if not isinstance(node.target, str):
                        raise AssertionError(f"node target {node.target!r} is not a str")
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that target was not "
                                           f"provided in ``root``!")
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.__dict__["_graph"] = None
        self.graph = graph
        self.meta: dict[str, Any] = {}

    @property
    def graph(self) -> Graph:
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of ``forward`` generated from the graph."""
        if "_code" not in self.__dict__:
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self.__dict__["_code"]

    def recompile(self) -> PythonCode:
        """Regenerate ``forward`` from the graph (after the graph was edited)."""
        python_code = self.graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        key = f"<eval_with_key>.{next(_counter)}"
        linecache.cache[key] = (len(python_code.src), None, python_code.src.splitlines(True), key)
        globs = dict(python_code.globals)
        exec(compile(python_code.src, key, "exec"), globs)
        cls = type(self)
        cls.forward = globs["forward"]
        return python_code

    def __str__(self) -> str:
        return Module.__repr__(self) + "\n" + self.code + "\n# To see more debug info, please use " \
            "`graph_module.print_readable()`"

    def print_readable(self, print_output: bool = True, include_stride: bool = False,
                       include_device: bool = False, colored: bool = False):
        name = type(self).__name__
        body = "\n".join("    " + ln if ln else ln for ln in self.code.strip("\n").splitlines())
        out = f"class {name}(torch.nn.Module):\n{body}\n"
        if print_output:
            print(out)
        return out

    # --- submodules -------------------------------------------------------------------
    def add_submodule(self, target: str, m: Module) -> bool:
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                setattr(mod, item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        *path, name = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, name) or not isinstance(getattr(mod, name), Module):
            return False
        delattr(mod, name)
        return True

    def delete_all_unused_submodules(self) -> None:
        used: set[str] = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                used.update(".".join(atoms[:i]) for i in range(1, len(atoms) + 1))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    used.update(f"{node.target}.{n}" for n, _ in sub.named_modules() if n)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    def __deepcopy__(self, memo):
        holder = Module()
        for k in ("_parameters", "_buffers", "_modules"):
            for n, v in self.__dict__[k].items():
                if v is not None:
                    _assign(holder, n, v) if k != "_modules" else holder.add_module(n, v)
        holder = copy.deepcopy(holder, memo)
        res = GraphModule(holder, copy.deepcopy(self.graph, {}))  # PyTorch names the copy GraphModule too
        res.training = self.training
        res.meta = copy.copy(self.meta)
        return res

    def __copy__(self):
        res = GraphModule(self, self.graph)  # PyTorch names the copy GraphModule too
        res.meta = copy.copy(self.meta)
        return res

    def __reduce__(self):
        raise NotImplementedError("pickling a torch.fx.GraphModule is not supported by msnb yet (see the support "
                                  "list: python -m msnb.adapter.support --markdown); save its state_dict instead")


__getattr__ = module_getattr("torch.fx.graph_module")
