"""msnb implementation of ``torch.export.exported_program``: the
:class:`ExportedProgram` ``torch.export.export`` returns.

Its ``graph_module`` is the traced graph with parameters, buffers and tensor
constants lifted to placeholders in front of the user inputs (PyTorch's
order), returning a flat tuple; ``module()`` gives a runnable
``GraphModule`` over the module's own state that checks its inputs first
(PyTorch's guards: the structure of the inputs, static dimensions equal to the
example's, dynamic ones within their ``Dim`` range)."""

from __future__ import annotations

import copy
import inspect
import re

from .._missing import module_getattr, NotSupportedError, not_supported_message
from ..fx.graph import Graph
from ..fx.graph_module import GraphModule
from .graph_signature import (ConstantArgument, ExportGraphSignature, InputKind, InputSpec, OutputKind,
                              OutputSpec, TensorArgument)

__all__ = ["ExportedProgram", "default_decompositions"]

_DTYPE_ABBR = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
               "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8", "complex64": "c64",
               "complex128": "c128"}


class _ModuleCallSignature:
    """The inputs and outputs of one module call in the exported program (names only)."""

    def __init__(self, inputs, outputs, in_spec=None, out_spec=None):
        self.inputs, self.outputs, self.in_spec, self.out_spec = inputs, outputs, in_spec, out_spec


class _ModuleCallEntry:
    def __init__(self, fqn: str, signature=None):
        self.fqn, self.signature = fqn, signature


def _annotation(value, dims_of=None) -> str:
    from .. import Tensor
    if isinstance(value, Tensor):
        shape = list(value.shape) if dims_of is None else dims_of
        return f'"{_DTYPE_ABBR.get(str(value.dtype).replace("torch.", ""), str(value.dtype))}{shape}"'
    return ""


class _ExportedModule(GraphModule):
    """``ExportedProgram.module()``: a GraphModule that checks its inputs as PyTorch's guards do."""

    def _call_eager(self, args, kwargs):
        self._msnb_check_inputs(args, kwargs)
        return super()._call_eager(args, kwargs)

    def _msnb_check_inputs(self, args, kwargs):
        from .. import Tensor
        guards = self.__dict__["_msnb_guards"]
        names = guards["names"]
        try:
            bound = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
            values = bound.bind(*args, **kwargs).arguments
        except TypeError:
            values = None
        if values is None or set(values) != set(names):
            raise ValueError(f"Trying to flatten user inputs with exported input tree spec: {guards['spec']} but "
                             f"actually got inputs with tree spec of: {len(args)} positional and keyword arguments "
                             f"{sorted(kwargs)}. Please check that the inputs have the same number and type of args "
                             "and kwargs as the ones you used when tracing.")
        seen: dict = {}  # symbol -> (input, dim, size) of its first dimension
        for name in names:
            example, value = guards["examples"][name], values[name]
            if not isinstance(example, Tensor):
                if type(value) is not type(example) or value != example:
                    raise AssertionError(f"Guard failed: {name} == {example!r}")
                continue
            if not isinstance(value, Tensor):
                raise RuntimeError(f"Expected input at {name} to be a tensor, but got {type(value).__name__}")
            if value.dim() != example.dim():
                raise RuntimeError(f"Unexpected number of dimensions in input at {name}.shape (expected "
                                   f"{list(example.shape)}, actual {list(value.shape)})")
            for i, size in enumerate(value.shape):
                dyn = guards["dynamic"].get((name, i))
                if dyn is None:
                    if size != example.shape[i]:
                        raise AssertionError(f"Guard failed: {name}.size()[{i}] == {example.shape[i]}")
                    continue
                lo, hi = dyn
                sym = guards["symbols"].get((name, i))
                first = seen.setdefault(sym, (name, i, size))
                if first[2] != size:  # dimensions that share one symbol are equal
                    raise AssertionError(f"Guard failed: {name}.size()[{i}] == {first[0]}.size()[{first[1]}]")
                if hi is not None and size > hi:
                    raise AssertionError(f"Guard failed: {name}.size()[{i}] <= {hi}")
                if lo > 2 and size < lo:
                    raise AssertionError(f"Guard failed: {name}.size()[{i}] >= {lo}")


class ExportedProgram:
    """msnb implementation of ``torch.export.ExportedProgram``."""

    def __init__(self, root, graph: Graph, examples: dict, names: list, dynamic: dict, symbols: dict,
                 example_inputs):
        self._root = root
        self._graph = graph  # the unlifted graph (get_attr nodes)
        self._examples = examples
        self._names = names
        self._dynamic = dynamic  # {(arg, dim): (min, max or None)}
        self._symbols = symbols  # {(arg, dim): 's0'}
        self.example_inputs = example_inputs
        self._graph_module, self._signature, self._state_dict, self._constants = self._lift()

    # --- the lifted program ----------------------------------------------------------------
    def _lift(self):
        from .. import Tensor
        persistent = set(self._root.state_dict(keep_vars=True))
        g = Graph()
        env = {}
        input_specs, state, constants = [], {}, {}
        by_value = {}  # id(tensor) -> the placeholder lifted for it
        # every parameter and buffer of the module is lifted (PyTorch's order), used or not
        for kind, prefix, items in ((InputKind.PARAMETER, "p_", self._root.named_parameters()),
                                    (InputKind.BUFFER, "b_", self._root.named_buffers())):
            for target, value in items:
                name = prefix + target.replace(".", "_").lower()
                ph = g.placeholder(name)
                ph.meta["val"] = value
                by_value[id(value)] = ph
                is_persistent = (target in persistent) if kind == InputKind.BUFFER else None
                input_specs.append(InputSpec(kind, TensorArgument(ph.name), target, is_persistent))
                (state if kind == InputKind.PARAMETER or is_persistent else constants)[target] = value
        for node in self._graph.nodes:
            if node.op != "get_attr":
                continue
            value = node.meta["val"]
            if id(value) in by_value:
                env[node.target] = by_value[id(value)]
                continue
            if not isinstance(value, Tensor):
                raise NotSupportedError(not_supported_message(f"torch.export of a module attribute {node.target!r} "
                                                              f"of type {type(value).__name__} used in forward"))
            ph = g.placeholder("c_" + re.sub(r"\W", "_", node.target.replace(".", "_")).lower())
            ph.meta["val"] = value
            by_value[id(value)] = env[node.target] = ph
            input_specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(ph.name), node.target))
            constants[node.target] = value
        nodes = {}
        output_specs = []
        for node in self._graph.nodes:
            if node.op == "placeholder":
                ph = g.placeholder(node.name)
                ph.name = ph.target = node.target  # PyTorch names an input placeholder by its argument
                ph.meta["val"] = node.meta.get("val")
                nodes[node] = ph
                value = node.meta.get("val")
                arg = TensorArgument(ph.name) if isinstance(value, Tensor) else ConstantArgument(ph.name, value)
                input_specs.append(InputSpec(InputKind.USER_INPUT, arg, None))
            elif node.op == "get_attr":
                nodes[node] = env[node.target]
            elif node.op == "output":
                leaves = _leaves(node.args[0])
                outs = tuple(nodes[x] if hasattr(x, "op") else x for x in leaves)
                g.output(outs)
                for x in outs:
                    arg = TensorArgument(x.name) if hasattr(x, "op") else ConstantArgument("", x)
                    output_specs.append(OutputSpec(OutputKind.USER_OUTPUT, arg, None))
            else:
                new = g.node_copy(node, lambda n: nodes[n])
                new.meta["val"] = node.meta.get("val")
                nodes[node] = new
        gm = GraphModule({}, g)
        return gm, ExportGraphSignature(input_specs, output_specs), state, constants

    # --- PyTorch's attributes --------------------------------------------------------------
    @property
    def graph_module(self) -> GraphModule:
        return self._graph_module

    @property
    def graph(self) -> Graph:
        return self._graph_module.graph

    @property
    def graph_signature(self) -> ExportGraphSignature:
        return self._signature

    @property
    def state_dict(self) -> dict:
        return self._state_dict

    @property
    def constants(self) -> dict:
        return self._constants

    @property
    def tensor_constants(self) -> dict:
        return self._constants

    @property
    def range_constraints(self) -> dict:
        return {self._symbols[k]: _VR(*v) for k, v in self._dynamic.items() if k in self._symbols}

    @property
    def module_call_graph(self):
        return [_ModuleCallEntry("", _ModuleCallSignature([], []))]

    @property
    def verifiers(self):
        return []

    @property
    def dialect(self) -> str:
        return "TRAINING"

    def named_parameters(self):
        for spec in self._signature.input_specs:
            if spec.kind == InputKind.PARAMETER:
                yield spec.target, self._state_dict[spec.target]

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def named_buffers(self):
        for spec in self._signature.input_specs:
            if spec.kind == InputKind.BUFFER:
                yield spec.target, self._state_dict.get(spec.target, self._constants.get(spec.target))

    def buffers(self):
        for _, b in self.named_buffers():
            yield b

    def module(self) -> GraphModule:
        """A runnable GraphModule with the original's state (shared) that checks its inputs first."""
        gm = _ExportedModule(self._root, copy.deepcopy(self._graph), "GraphModule")
        gm.__dict__["_msnb_guards"] = {"names": self._names, "examples": self._examples, "dynamic": self._dynamic,
                                       "symbols": self._symbols,
                                       "spec": f"({len(self._names)} inputs: {', '.join(self._names)})"}
        return gm

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False) -> "ExportedProgram":
        """msnb's graph is already made of msnb's torch functions (it has no ATen layer to lower to):
        the program comes back unchanged (a new ExportedProgram over the same graph).  A table
        with entries of its own would change the program, and raises msnb's unsupported error."""
        if decomp_table:
            raise NotSupportedError(not_supported_message("torch.export.ExportedProgram.run_decompositions with "
                                                          "a custom decomp_table (msnb has no ATen operators)"))
        return ExportedProgram(self._root, copy.deepcopy(self._graph), self._examples, self._names, self._dynamic,
                               self._symbols, self.example_inputs)

    def validate(self) -> None:
        self.graph.lint()

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def __str__(self) -> str:
        body = _annotated_code(self._graph_module, self._symbols_by_placeholder())
        rc = ", ".join(f"{k}: {v}" for k, v in self.range_constraints.items())
        sig = "\n".join("    " + ln for ln in str(self._signature).split("\n")[1:])
        return (f"ExportedProgram:\n    class GraphModule(torch.nn.Module):\n{body}\n"
                f"Graph signature: \n{sig}\nRange constraints: {{{rc}}}\n")

    __repr__ = __str__

    def _symbols_by_placeholder(self):
        out = {}
        for name in self._names:
            ex = self._examples[name]
            if hasattr(ex, "shape"):
                dims = [self._symbols.get((name, i), s) for i, s in enumerate(ex.shape)]
                if any(isinstance(d, str) for d in dims):
                    out[name] = "[" + ", ".join(str(d) for d in dims) + "]"
        return out


class _VR:
    """A value range, printed as PyTorch prints it (``VR[2, int_oo]``)."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def __repr__(self):
        return f"VR[{self.lower}, {'int_oo' if self.upper is None else self.upper}]"

    def __eq__(self, other):
        return isinstance(other, _VR) and (self.lower, self.upper) == (other.lower, other.upper)


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [x for v in out for x in _leaves(v)]
    if isinstance(out, dict):
        return [x for v in out.values() for x in _leaves(v)]
    return [out]


def _annotated_code(gm: GraphModule, symbolic: dict) -> str:
    """``gm.code`` with each value's dtype and shape, as PyTorch's ExportedProgram prints its graph."""
    nodes = {n.name: n for n in gm.graph.nodes}
    lines = []
    for ln in gm.code.strip("\n").splitlines():
        m = re.match(r"^def forward\(self, (.*)\):$", ln)
        if m:
            params = []
            for p in m.group(1).split(", "):
                node = nodes.get(p)
                ann = _annotation(node.meta.get("val")) if node is not None else ""
                if p in symbolic and ann:
                    ann = ann[:ann.index("[")] + symbolic[p] + '"'
                params.append(f"{p}: {ann}" if ann else p)
            lines.append(f"def forward(self, {', '.join(params)}):")
            continue
        m = re.match(r"^(\s+)(\w+) = (.*)$", ln)
        if m and m.group(2) in nodes:
            ann = _annotation(nodes[m.group(2)].meta.get("val"))
            if ann:
                ln = f"{m.group(1)}{m.group(2)}: {ann} = {m.group(3)}"
        lines.append(ln)
    return "\n".join("        " + ln if ln.strip() else "    " for ln in lines)


def default_decompositions() -> dict:
    """msnb implementation of ``torch.export.default_decompositions``: msnb has no ATen
    operators to decompose, so the table is empty (``run_decompositions`` keeps the graph)."""
    return {}


__getattr__ = module_getattr("torch.export.exported_program")
