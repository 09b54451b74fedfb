"""msnb implementation of ``torch.fx.node``: one operation of an FX graph.

A :class:`Node` has PyTorch's six opcodes (``placeholder``, ``get_attr``,
``call_function``, ``call_module``, ``call_method``, ``output``), its
``target``, its ``args`` / ``kwargs`` (which may hold other nodes), and the
use-def links ``users`` / ``all_input_nodes`` that graph passes rely on.
"""

from __future__ import annotations

import builtins
import operator
import types
from typing import Any, Callable

from .._missing import module_getattr

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

Target = Any
Argument = Any

_OPCODES = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")
#: functions whose nodes dead-code elimination keeps although nobody uses them
_SIDE_EFFECTFUL: set = set()


def has_side_effect(fn):
    """Mark ``fn`` so that ``eliminate_dead_code`` keeps calls of it (as PyTorch's ``has_side_effect``)."""
    _SIDE_EFFECTFUL.add(fn)
    return fn


def map_aggregate(a: Argument, fn: Callable[[Argument], Argument]) -> Argument:
    """Apply ``fn`` to every leaf of the nested tuples / lists / dicts / slices ``a``, keeping the structure."""
    if type(a) is tuple:
        return tuple(map_aggregate(v, fn) for v in a)
    if isinstance(a, tuple) and hasattr(a, "_fields"):  # a namedtuple keeps its type
        return type(a)(*(map_aggregate(v, fn) for v in a))
    if isinstance(a, list):
        return [map_aggregate(v, fn) for v in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a: Argument, fn: Callable[["Node"], Argument]) -> Argument:
    """Apply ``fn`` to every :class:`Node` inside the (nested) argument ``a``."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(fn) -> str:
    """``torch.relu``, ``operator.add``, ``builtins.getattr``: how a call_function target is named."""
    from ._hook import qualified_name_of
    known = qualified_name_of(fn)
    if known is not None:
        return known
    if getattr(fn, "__module__", None) is None and isinstance(fn, types.BuiltinFunctionType):
        return f"builtins.{fn.__name__}"
    if getattr(builtins, getattr(fn, "__name__", ""), None) is fn:
        return f"builtins.{fn.__name__}"
    if getattr(operator, getattr(fn, "__name__", ""), None) is fn:
        return f"operator.{fn.__name__}"
    mod = getattr(fn, "__module__", None) or "__main__"
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    mod = {"msnb.adapter.torch.fx._symbolic_trace": "torch.fx._symbolic_trace"}.get(mod, mod)
    return f"{mod}.{name}"


def _type_repr(t) -> str:
    """How a node's annotation prints in a graph (``torch.Tensor``, ``int``, ``typing.Optional[int]``)."""
    from .. import Tensor
    if t is Tensor:
        return "torch.Tensor"
    if isinstance(t, str):
        return repr(t)
    if isinstance(t, type):
        return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    return str(t)


def _format_arg(arg, max_list_len=float("inf")) -> str:
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """One operation of a :class:`~torch.fx.Graph` (PyTorch's ``torch.fx.Node``)."""

    def __init__(self, graph, name: str, op: str, target: Target, args: tuple, kwargs: dict,
                 return_type=None):
        if op not in _OPCODES:
            raise AssertionError(f"unknown node opcode {op!r}")
        if op in ("call_method", "call_module", "get_attr", "placeholder", "output") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a str is expected")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a Callable is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict[Node, None] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self.users: dict[Node, None] = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict[str, Any] = {}
        self.__update_args_kwargs(tuple(args), dict(kwargs))

    # --- linked-list order -------------------------------------------------------
    @property
    def next(self) -> "Node":
        return self._next

    @property
    def prev(self) -> "Node":
        return self._prev

    def prepend(self, x: "Node") -> None:
        """Move ``x`` to just before this node."""
        if x is self:
            raise AssertionError("Cannot prepend self")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: "Node") -> None:
        """Move ``x`` to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # --- arguments ------------------------------------------------------------------
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, a):
        self.__update_args_kwargs(tuple(a), self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self.__update_args_kwargs(self._args, dict(k))

    @property
    def all_input_nodes(self) -> list["Node"]:
        """The nodes this node reads, in first-use order."""
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg: Argument) -> None:
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg: Argument) -> None:
        args = list(self._args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg: Argument) -> None:
        self.kwargs = {**self._kwargs, key: arg}

    def __update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}

        def collect(n):
            self._input_nodes.setdefault(n)
            return n

        self._args = map_arg(new_args, collect)
        self._kwargs = map_arg(new_kwargs, collect)
        for n in self._input_nodes:
            n.users.setdefault(self)

    def replace_all_uses_with(self, replace_with: "Node", delete_user_cb=lambda user: True, *,
                              propagate_meta=False) -> list["Node"]:
        """Make every user of this node read ``replace_with`` instead; returns those users."""
        if propagate_meta:
            for k, v in self.meta.items():
                replace_with.meta.setdefault(k, v)
        to_process = [u for u in self.users if delete_user_cb(u)]
        for use in to_process:
            use.__update_args_kwargs(*map_arg((use._args, use._kwargs),
                                              lambda n: replace_with if n is self else n))
        return to_process

    def replace_input_with(self, old_input: "Node", new_input: "Node") -> None:
        """Read ``new_input`` wherever this node read ``old_input``."""
        self.__update_args_kwargs(*map_arg((self._args, self._kwargs),
                                           lambda n: new_input if n is old_input else n))

    def is_impure(self, impure_random=True) -> bool:
        """True for nodes dead-code elimination must keep (inputs, outputs, in-place and side-effect calls)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _SIDE_EFFECTFUL or getattr(self.target, "__name__", "").endswith("_") \
                and not getattr(self.target, "__name__", "").endswith("__")
        if self.op == "call_method":
            return isinstance(self.target, str) and self.target.endswith("_") and not self.target.endswith("__")
        if self.op == "call_module":
            root = getattr(self.graph, "owning_module", None)
            if root is None:
                return False
            mod = root.get_submodule(self.target)
            return bool(getattr(mod, "_is_impure", False))
        return False

    # --- printing -------------------------------------------------------------------
    def __repr__(self) -> str:
        return self.name

    def _pretty_target(self) -> str:
        if self.op == "call_function":
            return _qualified_name(self.target)
        return str(self.target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None) -> str:
        """The node as one line of the graph's printout (``%relu : [num_users=1] = call_function[...]``)."""
        head = f"%{self.name} : " + (f"{_type_repr(self.type)} " if self.type is not None else "") + \
            f"[num_users={len(self.users)}]"
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
                return None
            default = f"(default={self._args[0]})" if self._args else ""
            return f"{head} = placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"{head} = get_attr[target={self.target}]"
        if self.op == "output":
            return f"return {self._args[0]}"
        return (f"{head} = {self.op}[target={self._pretty_target()}]"
                f"(args = {_format_arg(self._args)}, kwargs = {_format_arg(self._kwargs)})")

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)


__getattr__ = module_getattr("torch.fx.node")
