"""msnb implementation of ``torch.fx.interpreter``: run a graph node by node
(:class:`Interpreter`), or re-trace it into a new graph (:class:`Transformer`)."""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from typing import Any

from .._missing import module_getattr
from . import _hook
from .graph import Graph
from .graph_module import GraphModule
from .node import Argument, Node, Target, map_aggregate, map_arg
from .proxy import Proxy
from ._symbolic_trace import Tracer

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs ``module``'s graph one node at a time; override ``run_node`` or the per-opcode methods."""

    def __init__(self, module, garbage_collect_values: bool = True, graph: Graph | None = None):
        self.module = module
        self.submodules = dict(module.named_modules())
        if graph is not None:
            self.graph = graph
        else:
            self.graph = module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            seen: set = set()
            self.user_to_last_uses: dict[Node, list[Node]] = {}
            for node in reversed(list(self.graph.nodes)):
                uses = []
                map_arg((node.args, node.kwargs), lambda n: (uses.append(n), seen.add(n)) if n not in seen else None)
                self.user_to_last_uses[node] = uses

    def run(self, *args, initial_env: dict | None = None, enable_io_processing: bool = True) -> Any:
        """Run the graph on ``args``; returns what its output node returns."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback and not getattr(e, "_msnb_fx_noted", False):
                    try:
                        e.add_note(f"While executing {node.format_node()}")
                        e._msnb_fx_noted = True
                    except (AttributeError, TypeError):
                        pass
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    self.env.pop(to_delete, None)
            if node.op == "output":
                return self.env[node]
        return None

    @contextmanager
    def _set_current_node(self, node):
        yield

    def run_node(self, n: Node) -> Any:
        """Run one node: fetch its arguments from the environment and call the method of its opcode."""
        with self._set_current_node(n):
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            return getattr(self, n.op)(n.target, args, kwargs)

    # --- one method per opcode ----------------------------------------------------------
    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Any:
        if target.startswith("**"):
            return {}
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not passed in!")

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        return target(*args, **kwargs)

    def call_method(self, target: Target, args: tuple, kwargs: dict) -> Any:
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        submod = self.fetch_attr(target)
        return submod(*args, **kwargs)

    def output(self, target: Target, args: tuple, kwargs: dict) -> Any:
        return args[0]

    # --- helpers -------------------------------------------------------------------------
    def fetch_attr(self, target: str):
        obj = self.module
        atoms = target.split(".")
        for i, atom in enumerate(atoms):
            if not hasattr(obj, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            obj = getattr(obj, atom)
        return obj

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args: Argument, n: Node) -> Argument:
        def load_arg(n_arg: Node):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to diagnose "
                                   f"such issues")
            return self.env[n_arg]
        return map_arg(args, load_arg)

    def boxed_run(self, args_list):
        args_iter = iter(args_list)
        env = {}
        for n in self.graph.nodes:
            if n.op == "placeholder":
                env[n] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)


class _TransformerTracer(Tracer):
    def __init__(self, graph: Graph):
        super().__init__()
        self.graph = graph
        self.tensor_attrs = {}

    def is_leaf_module(self, _, __) -> bool:
        return True


class Transformer(Interpreter):
    """Re-traces a graph into a new one, node by node; ``transform()`` returns the new GraphModule."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        _hook.acquire()
        self.tracer._holds_hook = True
        try:
            result = super().run(enable_io_processing=False)
            if result is not None:
                self.new_graph.output(map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a))
        finally:
            self.tracer._holds_hook = False
            _hook.release()
        return GraphModule(self.module, self.new_graph)


__getattr__ = module_getattr("torch.fx.interpreter")
