"""msnb implementation of ``torch.fx.graph``: the FX intermediate representation.

A :class:`Graph` is a doubly linked list of :class:`~torch.fx.Node` objects
with an insertion point, PyTorch's node constructors, edits (``erase_node``,
``eliminate_dead_code``, ``inserting_before`` / ``inserting_after``), checks
(``lint``) and the Python source it stands for (``python_code``), generated
the way PyTorch writes it: one statement per node, operators inlined, and
values released (``x = None``) after their last use.
"""

from __future__ import annotations

import builtins
import copy
import inspect
import keyword
import math
import operator
import re
from collections import defaultdict
from typing import Any, Callable

from .._missing import module_getattr
from .node import Argument, Node, Target, _qualified_name, map_arg

__all__ = ["Graph", "PythonCode", "CodeGen"]

#: names the generated code's globals already use
_CUSTOM_BUILTINS = {"inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"}
_ILLEGAL = re.compile(r"[^0-9a-zA-Z_]+")
_SUFFIX = re.compile(r"(.*)_(\d+)$")
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")

#: operator functions written as Python operators in generated code
_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.floordiv: "//",
           operator.truediv: "/", operator.mod: "%", operator.pow: "**", operator.lshift: "<<",
           operator.rshift: ">>", operator.and_: "&", operator.or_: "|", operator.xor: "^",
           operator.matmul: "@", operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.gt: ">",
           operator.le: "<=", operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def _snake_case(s: str) -> str:
    return _CAMEL.sub(r"_\1", s).lower()


def _is_identifier(s) -> bool:
    return isinstance(s, str) and s.isidentifier() and not keyword.iskeyword(s)


class _Namespace:
    """Unique, legal Python names for nodes and globals (``relu``, ``relu_1``, ``getattr_1`` ...)."""

    def __init__(self):
        self._used: set[str] = set()
        self._base_count: dict[str, int] = defaultdict(int)
        self._obj_to_name: dict[int, str] = {}

    def create_name(self, candidate: str, obj=None) -> str:
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        candidate = _ILLEGAL.sub("_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        m = _SUFFIX.match(candidate)
        base, num = (candidate, None) if m is None else (m.group(1), int(m.group(2)))
        candidate = base if num is None else f"{base}_{num}"
        if not num:
            num = self._base_count[base]
        while candidate in self._used or self._illegal(candidate):
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj) -> None:
        self._obj_to_name[id(obj)] = name

    def release(self, name: str) -> None:
        self._used.discard(name)

    @staticmethod
    def _illegal(name: str) -> bool:
        return keyword.iskeyword(name) or name in builtins.__dict__ or name in _CUSTOM_BUILTINS


class PythonCode:
    """Source of a graph's ``forward`` and the globals it runs with (PyTorch's ``PythonCode``)."""

    def __init__(self, src: str, globals: dict, _lineno_map=None):
        self.src = src
        self.globals = globals
        self._lineno_map = _lineno_map

    def __repr__(self):
        return f"PythonCode(src={self.src!r}, globals={self.globals!r})"


class _InsertPoint:
    """Sets the graph's insertion point at once; ``with`` restores the previous one on exit."""

    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert


class _NodeList:
    """The live node order; erasing the node being visited does not stop iteration."""

    def __init__(self, graph, direction="_next"):
        self._graph = graph
        self._dir = direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = getattr(root, self._dir)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, self._dir)

    def __reversed__(self):
        return _NodeList(self._graph, "_prev" if self._dir == "_next" else "_next")

    def __repr__(self):
        return repr(list(self))


class CodeGen:
    """Writes a graph as Python source (PyTorch's default code generator)."""

    def _format_target(self, base: str, target: str) -> str:
        out = base
        for atom in target.split("."):
            out = f"{out}.{atom}" if _is_identifier(atom) else f'getattr({out}, "{atom}")'
        return out

    def gen_fn_def(self, free_vars: list[str], maybe_return_annotation: str) -> str:
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args) -> str:
        return f"return {self._repr(output_args)}"

    def _repr(self, a) -> str:
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return f"{type(a).__name__}({', '.join(self._repr(v) for v in a)})"
        if isinstance(a, tuple):
            return "(" + ", ".join(self._repr(v) for v in a) + (",)" if len(a) == 1 else ")")
        if isinstance(a, list):
            return "[" + ", ".join(self._repr(v) for v in a) + "]"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{k!r}: {self._repr(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({self._repr(a.start)}, {self._repr(a.stop)}, {self._repr(a.step)})"
        if isinstance(a, float) and not math.isfinite(a):
            return ("-inf" if a < 0 else "inf") if math.isinf(a) else "nan"
        if self._tensor_type is not None and isinstance(a, self._tensor_type):
            return self._add_global("_tensor_constant", a)
        if isinstance(a, type) or callable(a) and not isinstance(a, (str, bytes)) and hasattr(a, "__name__"):
            return self._global_for(a)
        return repr(a)

    def _args(self, args, kwargs) -> str:
        parts = [self._repr(a) for a in args] + [f"{k} = {self._repr(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def _add_global(self, hint: str, obj) -> str:
        name = self._namespace.create_name(hint, obj)
        self._globals[name] = obj
        return name

    def _global_for(self, fn) -> str:
        """The expression naming ``fn`` in generated code (``torch.relu``, ``__main___f``)."""
        from .. import Tensor, dtype
        if fn is Tensor:
            return "torch.Tensor"
        if isinstance(fn, dtype):
            return repr(fn)
        if getattr(builtins, getattr(fn, "__name__", ""), None) is fn:
            return fn.__name__
        qual = _qualified_name(fn)
        if qual.startswith("torch."):
            return qual
        hint = f"{getattr(fn, '__module__', None) or '__main__'}.{getattr(fn, '__qualname__', None) or fn.__name__}"
        name = self._add_global(hint, fn)
        from ._symbolic_trace import is_wrapped
        if is_wrapped(fn) and name not in self._wrapped:
            self._wrapped.append(name)
        return name

    def python_code(self, graph: "Graph", root_module: str) -> PythonCode:
        import msnb.adapter.torch as torch_mod
        from .. import Tensor, device
        self._tensor_type = Tensor
        self._wrapped: list[str] = []
        self._namespace = _Namespace()
        for n in graph.nodes:
            self._namespace._used.add(n.name)
        self._namespace._used.update({root_module})
        self._globals = {"inf": math.inf, "nan": math.nan, "NoneType": type(None), "torch": torch_mod,
                         "device": device, "getattr": getattr}
        nodes = list(graph.nodes)
        # each value is released after its last use, as PyTorch's generated code does
        seen: set = set()
        last_uses: dict[Node, list[Node]] = {}
        for user in reversed(nodes):
            uses = []
            map_arg((user.args, user.kwargs), lambda n: (uses.append(n), seen.add(n)) if n not in seen else None)
            last_uses[user] = uses
        free_vars: list[str] = [root_module]
        body: list[str] = []
        ret_ann = ""
        for node in nodes:
            line = self._emit(node, root_module, free_vars, body)
            if node.op == "output":
                if node.type is not None:
                    ret_ann = f" -> {self._type_repr(node.type)}"
                body.append(line)
                continue
            if line is None:
                continue
            dead = [n.name for n in last_uses.get(node, ()) if n.op != "output"]
            if not node.users and node.op != "placeholder":
                dead.append(node.name)
            if dead:
                line += ";  " + " = ".join(dead) + " = None"
            body.append(line)
        if not body:
            body.append("pass")
        wraps = "\n".join(f'torch.fx._symbolic_trace.wrap("{n}")' for n in self._wrapped)
        src = f"\n{wraps}\n\n" + self.gen_fn_def(free_vars, ret_ann) + "\n" + "".join(f"    {ln}\n" for ln in body) + "    "
        return PythonCode(src, self._globals, {i: i for i in range(1, src.count("\n") + 2)})

    def _type_repr(self, t) -> str:
        from .. import Tensor
        if t is Tensor:
            return "torch.Tensor"
        if isinstance(t, type):
            return t.__name__ if t.__module__ == "builtins" else self._add_global(t.__name__, t)
        return self._add_global("_type", t)

    def _emit(self, node: Node, root: str, free_vars: list[str], body: list[str]):
        op, target = node.op, node.target
        if op == "placeholder":
            sig = target
            if node.type is not None:
                sig += f" : {self._type_repr(node.type)}"
            if node.args:
                sig += f" = {self._repr(node.args[0])}"
            free_vars.append(sig)
            plain = target.lstrip("*")
            if node.name != plain:
                return f"{node.name} = {plain}"
            return None
        if op == "get_attr":
            return f"{node.name} = {self._format_target(root, target)}"
        if op == "call_module":
            return f"{node.name} = {self._format_target(root, target)}({self._args(node.args, node.kwargs)})"
        if op == "call_method":
            obj, *rest = node.args
            return f"{node.name} = {self._repr(obj)}.{target}({self._args(rest, node.kwargs)})"
        if op == "call_function":
            a, k = node.args, node.kwargs
            if target in _BINARY and len(a) == 2 and not k:
                return f"{node.name} = {self._repr(a[0])} {_BINARY[target]} {self._repr(a[1])}"
            if target in _UNARY and len(a) == 1 and not k:
                return f"{node.name} = {_UNARY[target]}{self._repr(a[0])}"
            if target is operator.getitem and len(a) == 2 and not k:
                return f"{node.name} = {self._repr(a[0])}[{self._repr(a[1])}]"
            if target is getattr and len(a) == 2 and not k and _is_identifier(a[1]):
                return f"{node.name} = {self._repr(a[0])}.{a[1]}"
            return f"{node.name} = {self._global_for(target)}({self._args(a, k)})"
        if op == "output":
            return self.generate_output(node.args[0])
        raise NotImplementedError(f"node: {op} {target}")


class Graph:
    """msnb implementation of ``torch.fx.Graph``."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names: dict[str, int] = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()
        self._co_fields: dict = {}

    # --- the node list ------------------------------------------------------------
    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list[Node]:
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def _target_to_str(self, target) -> str:
        if callable(target) and not isinstance(target, str):
            name = _qualified_name(target).rsplit(".", 1)[-1]
        else:
            name = str(target)
            if name.startswith("__") and name.endswith("__"):
                name = name[2:-2]
        return _snake_case(name)

    # --- creating nodes ---------------------------------------------------------------
    def create_node(self, op: str, target: Target, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None, type_expr: Any | None = None) -> Node:
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name: str, type_expr=None, default_value: Any = inspect.Signature.empty) -> Node:
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr=None) -> Node:
        mod = self.owning_module
        if mod is not None and not _has_attr_path(mod, qualified_name):
            import warnings
            warnings.warn(f"Attempted to insert a get_attr Node with no underlying reference in the owning "
                          f"GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                          f"GraphModule.add_parameter to add the necessary Parameter, or nn.Module.register_buffer "
                          f"to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        mod = self.owning_module
        if mod is not None and not _has_attr_path(mod, module_name):
            import warnings
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule", stacklevel=2)
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result: Argument, type_expr=None) -> Node:
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Argument] = lambda x: x) -> Node:
        """A copy of ``node`` (from any graph) at the insertion point, its inputs mapped by ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        n = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        n.meta = copy.copy(node.meta)
        return n

    def graph_copy(self, g: "Graph", val_map: dict, return_output_node: bool = False):
        """Copy every node of ``g`` but its output into this graph; returns the mapped output value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = memo if memo is not None else {}
        g = Graph(tracer_cls=self._tracer_cls)
        out = g.graph_copy(self, val_map=memo, return_output_node=True)
        if out is not None:
            rv, old = out
            g.output(rv, type_expr=old.type)
        return g

    # --- insertion point ------------------------------------------------------------
    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    # --- edits ------------------------------------------------------------------------
    def erase_node(self, to_erase: Node) -> None:
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in "
                               f"the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            import warnings
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        p, nx = to_erase._prev, to_erase._next  # the erased node keeps its links: iteration goes on
        p._next, nx._prev = nx, p
        to_erase._erased = True
        self._len -= 1
        to_erase.args = ()
        to_erase.kwargs = {}
        self._graph_namespace.release(to_erase.name)

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Erase nodes nobody uses that have no side effect; True when the graph changed."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and not node.users:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check the graph is well formed (PyTorch's checks and messages)."""
        seen_names: set[str] = set()
        seen_values: set[Node] = set()
        for node in self.nodes:
            if node.op not in ("placeholder", "call_method", "call_module", "call_function", "get_attr",
                               "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, but was "
                                       f"used as an argument! If you are copying nodes from another graph, make "
                                       f"sure to use ``arg_transform`` on node_copy() to remap values\n{self}")
                if arg not in seen_values:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       f"Please check that Nodes in the graph are topologically ordered\n{self}")
            seen_values.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
        mod = self.owning_module
        if mod is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                if not isinstance(node.target, str):
                    raise RuntimeError(f"Node {node} target {node.target} has type {type(node.target)} but a str "
                                       f"is expected")
                atoms = node.target.split(".")
                cur = mod
                for i, atom in enumerate(atoms):
                    if not hasattr(cur, atom):
                        seen_qualname = ".".join(atoms[:i])
                        raise RuntimeError(f"Node {node} target {node.target} references nonexistent attribute "
                                           f"{atom} of {seen_qualname}")
                    cur = getattr(cur, atom)
                from ..nn import Module
                if node.op == "call_module" and not isinstance(cur, Module):
                    raise RuntimeError(f"Node {node} target {node.target} {atoms[-1]} of "
                                       f"{'.'.join(atoms[:-1])} does not reference an nn.Module")

    # --- code and printing ------------------------------------------------------------
    def python_code(self, root_module: str, *, verbose: bool = False, include_stride: bool = False,
                    include_device: bool = False, colored: bool = False) -> PythonCode:
        return self._codegen.python_code(self, root_module)

    def __str__(self) -> str:
        body = "".join(f"\n    {node.format_node()}" for node in self.nodes)
        return f"graph():{body}"

    def __repr__(self):
        return object.__repr__(self)

    def print_tabular(self) -> None:
        """Print the nodes as a table (needs the ``tabulate`` package, as in PyTorch)."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this machine. "
                  "Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs]
                for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def on_generate_code(self, make_transformer):
        raise NotImplementedError("torch.fx.Graph.on_generate_code is not supported by msnb yet (see the support "
                                  "list: python -m msnb.adapter.support --markdown)")


def _has_attr_path(mod, qualname: str) -> bool:
    cur = mod
    for atom in qualname.split("."):
        if not hasattr(cur, atom):
            return False
        cur = getattr(cur, atom)
    return True


__getattr__ = module_getattr("torch.fx.graph")
