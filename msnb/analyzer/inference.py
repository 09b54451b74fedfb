"""Lightweight name resolution and tensor inference over Python's ``ast``.

Rules about format strings, in-place ops and views only make sense for
tensors, so the analyzer has to guess which expressions are tensors without
running anything.  The guess is deliberately simple and local:

* **qualified names** come from the cell's imports (and earlier cells'):
  ``import torch as t`` makes ``t.cuda.is_available`` resolve to
  ``torch.cuda.is_available``; ``msadapter.pytorch``, ``mindtorch.torch`` and
  ``msnb.adapter.torch`` count as ``torch``;
* **kinds** are tracked per scope, in source order: a name is a ``TENSOR``
  when assigned from a torch factory/function, a tensor method, arithmetic
  on a tensor, a call of a model/criterion instance, or when it is a
  ``forward`` parameter or a batch drawn from a ``DataLoader``;
  ``MODULE`` / ``MODULE_CLASS`` / ``LOADER`` / ``OPTIMIZER`` / ``DEVICE`` are
  tracked too because they lead to tensors.

Anything unknown stays unknown, and rules only fire on what is known: a
missed tensor costs a missed finding, a wrong guess would cost a false
alarm on clean code, which the issue forbids.
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass, field

__all__ = [
    "Kind",
    "Binding",
    "Scope",
    "Inference",
    "normalize_module",
    "TENSOR_NAMESPACES",
    "VIEW_METHODS",
    "RECORDED",
    "JIT",
]

#: Import roots that stand for torch / torchvision (longest prefix wins).
_ROOT_ALIASES = {
    "msadapter.pytorch": "torch",
    "msadapter.torchvision": "torchvision",
    "mindtorch.torch": "torch",
    "mindtorch.torchvision": "torchvision",
    "msnb.adapter.torch": "torch",
    "msnb.adapter.torchvision": "torchvision",
}


def normalize_module(name: str) -> str:
    """Map adapter import paths onto the torch names they stand for."""
    for alias in sorted(_ROOT_ALIASES, key=len, reverse=True):
        if name == alias or name.startswith(alias + "."):
            return _ROOT_ALIASES[alias] + name[len(alias) :]
    return name


class Kind(enum.Enum):
    """What a name holds, as far as the analyzer can tell."""

    TENSOR = "tensor"
    #: a tuple of tensors: ``x.max(dim=1)`` (a namedtuple with ``.values`` /
    #: ``.indices``), ``x.sort()``, ``x.split(2)``; not itself a tensor
    TENSORS = "tensors"
    MODULE = "module"  # an nn.Module instance (model, criterion, layer)
    MODULE_CLASS = "module_class"  # a class deriving from nn.Module
    FUNCTION_CLASS = "function_class"  # a class deriving from autograd.Function
    LOADER = "loader"  # a DataLoader instance: iterating it yields tensors
    OPTIMIZER = "optimizer"
    DEVICE = "device"
    OTHER = "other"


@dataclass
class Binding:
    """One name's inferred kind; ``fresh`` = bound to a newly created tensor
    (not a view, not another name), ``view_of`` = base name when bound to a
    view of it, ``line`` = where it was bound."""

    kind: Kind
    fresh: bool = False
    view_of: str | None = None
    line: int = 0
    in_cell: bool = True
    origin: str | None = None  # qualified name of the call that produced it
    #: a function-local name bound to something unknown: ``OTHER`` so it
    #: hides an outer tensor of that name, but not known to be a non-tensor
    unknown: bool = False


@dataclass
class Scope:
    """Bindings of one function body (or the module)."""

    names: dict[str, Binding] = field(default_factory=dict)
    #: names that may be referenced from elsewhere (stored in a container,
    #: passed to a non-torch call, returned, assigned to another name);
    #: rewriting an in-place op on them into a rebinding would not be safe.
    escaped: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)
    declared_global: set[str] = field(default_factory=set)


#: Modules whose lower-case functions return tensors.
TENSOR_NAMESPACES = frozenset(
    {"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special", "torch.nn.init"}
)

_TENSOR_CONSTRUCTORS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.IntTensor",
                                  "torch.BoolTensor", "torch.DoubleTensor", "torch.autograd.Variable",
                                  "torch.nn.Parameter"})

#: torch functions in TENSOR_NAMESPACES that do not return a tensor.
_NON_TENSOR_FUNCS = frozenset(
    {
        "torch.device", "torch.manual_seed", "torch.seed", "torch.initial_seed", "torch.is_tensor",
        "torch.is_grad_enabled", "torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled",
        "torch.inference_mode", "torch.save", "torch.load", "torch.get_default_dtype",
        "torch.set_default_dtype", "torch.set_printoptions", "torch.numel", "torch.is_floating_point",
        "torch.is_complex", "torch.typename", "torch.compile", "torch.use_deterministic_algorithms",
        "torch.set_num_threads", "torch.get_num_threads", "torch.set_default_device", "torch.finfo",
        "torch.iinfo", "torch.dtype", "torch.Size", "torch.Generator", "torch.set_float32_matmul_precision",
        "torch.is_nonzero", "torch.equal", "torch.get_rng_state", "torch.set_rng_state",
        "torch.nn.functional.dropout_args",
    }
)

_NON_TENSOR_METHODS = frozenset(
    {
        "item", "tolist", "numpy", "size", "dim", "ndimension", "numel", "nelement", "element_size",
        "stride", "data_ptr", "is_contiguous", "is_floating_point", "is_complex", "storage_offset",
        "get_device", "type", "backward", "register_hook", "untyped_storage", "equal", "__len__",
        "is_pinned", "is_shared", "is_set_to", "storage", "dim_order", "keys", "items", "values",
    }
)
_NON_TENSOR_ATTRS = frozenset(
    {"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "is_leaf", "layout", "grad_fn",
     "is_sparse", "is_quantized", "is_meta", "names", "itemsize", "nbytes"}
)
_TUPLE_FIELDS = frozenset({"values", "indices", "mantissa", "exponent", "sign", "logabsdet", "U", "S", "V",
                           "Q", "R", "eigenvalues", "eigenvectors", "min", "max", "L", "LU", "pivots",
                           "solution", "hist", "bin_edges"})
_TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})

#: Tensor methods whose result shares storage with the receiver in PyTorch.
VIEW_METHODS = frozenset(
    {"view", "view_as", "transpose", "permute", "t", "narrow", "select", "squeeze", "unsqueeze",
     "expand", "expand_as", "as_strided", "diagonal", "unfold", "detach", "movedim", "swapaxes",
     "unflatten", "split", "chunk", "unbind", "T", "mT", "real", "imag", "reshape", "flatten"}
)

#: Tensor methods / torch functions that always return a tuple of tensors.
_TUPLE_RESULTS = frozenset({"sort", "topk", "kthvalue", "cummax", "cummin", "aminmax", "frexp", "slogdet", "svd",
                            "qr", "eig", "eigh", "lu", "split", "chunk", "unbind", "std_mean", "var_mean",
                            "histogram", "geqrf", "tensor_split", "hsplit", "vsplit", "dsplit", "meshgrid",
                            "broadcast_tensors", "lu_unpack", "svd_lowrank", "pca_lowrank", "lstsq"})
#: ... and those that do when given a dimension (``x.max(1)``), not another tensor.
_TUPLE_WITH_DIM = frozenset({"max", "min", "median", "nanmedian", "mode"})

_MODULE_RETURNING_METHODS = frozenset(
    {"to", "cuda", "cpu", "eval", "train", "float", "half", "double", "bfloat16", "requires_grad_",
     "to_empty", "type"}
)

#: How compiled code is compiled (``Context.graph_code_kind``): recorded by
#: msnb's graph mode while it runs, or parsed by MindSpore's ``jit``.
RECORDED = "recorded"
JIT = "jit"

#: Decorators that hand a function to MindSpore's own graph compiler.
#: ``torch.compile`` is absent on purpose: msnb's returns the function
#: unchanged, so the function runs as plain Python.
_JIT_DECORATORS = frozenset({"mindspore.jit", "mindspore.ms_function"})


class Inference:
    """Import aliases plus a stack of scopes; queried by rules during the walk."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.module_scope = Scope()
        self.scopes: list[Scope] = [self.module_scope]
        self.module_classes: set[str] = set()
        self.function_classes: set[str] = set()
        self.in_cell = True
        #: qualname() per node id; several rules ask about the same node.
        #: Cleared whenever an import or a shadowing binding changes aliases.
        self._qn_cache: dict[int, str | None] = {}

    # -- copying (context cells are inferred once and reused) -------------
    def fork(self) -> "Inference":
        """A copy whose bindings start from this one's; context names are
        marked as not defined in the current cell."""
        new = Inference()
        new.aliases = dict(self.aliases)
        new.module_scope = Scope(
            names={k: Binding(b.kind, False, b.view_of, 0, False) for k, b in self.module_scope.names.items()},
            escaped=set(self.module_scope.escaped),
        )
        new.scopes = [new.module_scope]
        new.module_classes = set(self.module_classes)
        new.function_classes = set(self.function_classes)
        return new

    # -- imports ----------------------------------------------------------
    def add_import(self, node: ast.Import | ast.ImportFrom) -> None:
        self._qn_cache.clear()
        if isinstance(node, ast.Import):
            for a in node.names:
                full = normalize_module(a.name)
                if a.asname:
                    self.aliases[a.asname] = full
                else:
                    head = a.name.split(".")[0]
                    # ``import msadapter.pytorch`` binds ``msadapter``; keep it
                    # resolvable as the original path.
                    self.aliases[head] = head if normalize_module(head) == head else normalize_module(head)
        elif node.module and not node.level:
            base = normalize_module(node.module)
            for a in node.names:
                if a.name == "*":
                    continue
                self.aliases[a.asname or a.name] = normalize_module(f"{base}.{a.name}")

    def qualname(self, expr: ast.AST) -> str | None:
        """Fully qualified dotted name of a Name/Attribute chain, if imported."""
        key = id(expr)
        try:
            return self._qn_cache[key]
        except KeyError:
            pass
        result = self._qualname(expr)
        self._qn_cache[key] = result
        return result

    def _qualname(self, expr: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        base = self.aliases.get(expr.id)
        if base is None or self._local_shadows(expr.id):
            return None
        if parts:
            return normalize_module(base + "." + ".".join(reversed(parts)))
        return base

    def _local_shadows(self, name: str) -> bool:
        # a function-local assignment to ``torch`` hides the import
        return len(self.scopes) > 1 and name in self.scopes[-1].names

    def local_alias(self, qualified: str) -> str | None:
        """The local spelling of ``qualified`` (e.g. ``t`` for ``torch``)."""
        for local, full in self.aliases.items():
            if full == qualified:
                return local
        for local, full in self.aliases.items():
            if qualified.startswith(full + "."):
                return local + qualified[len(full) :]
        return None

    # -- scopes -----------------------------------------------------------
    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    def lookup(self, name: str) -> Binding | None:
        if name in self.scope.names:
            return self.scope.names[name]
        if len(self.scopes) > 1 and name in self.scope.params:
            return None
        return self.module_scope.names.get(name)

    def push(self) -> None:
        self.scopes.append(Scope())
        self._qn_cache.clear()

    def pop(self) -> None:
        if len(self.scopes) > 1:
            self.scopes.pop()
            self._qn_cache.clear()

    def bind(self, name: str, binding: Binding | None) -> None:
        if name in self.aliases:
            self._qn_cache.clear()
        if binding is None:
            self.scope.names.pop(name, None)
            # an unknown value still shadows an outer tensor of that name
            if len(self.scopes) > 1:
                self.scope.names[name] = Binding(Kind.OTHER, in_cell=self.in_cell, unknown=True)
        else:
            binding.in_cell = self.in_cell
            self.scope.names[name] = binding

    # -- kinds ------------------------------------------------------------
    def kind(self, expr: ast.AST) -> Kind | None:
        """Best guess at what ``expr`` evaluates to, or None if unknown."""
        if isinstance(expr, ast.Name):
            b = self.lookup(expr.id)
            if b is not None:
                return b.kind
            return None  # an imported module/class/function, or unknown
        if isinstance(expr, ast.Call):
            return self._call_kind(expr)
        if isinstance(expr, ast.Attribute):
            if self.qualname(expr) is not None:
                return None  # torch.float32, nn.Linear, ... : not a tensor
            base = self.kind(expr.value)
            if base is Kind.TENSORS:
                return Kind.TENSOR if expr.attr in _TUPLE_FIELDS else None
            if base is Kind.TENSOR:
                if expr.attr in _TENSOR_ATTRS:
                    return Kind.TENSOR
                return Kind.OTHER if expr.attr in _NON_TENSOR_ATTRS else None
            return None
        if isinstance(expr, ast.Subscript):
            return Kind.TENSOR if self.kind(expr.value) in (Kind.TENSOR, Kind.TENSORS) else None
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, ast.Mod) and isinstance(expr.left, (ast.Constant, ast.JoinedStr)):
                return Kind.OTHER  # "%" string formatting
            if self.kind(expr.left) is Kind.TENSOR or self.kind(expr.right) is Kind.TENSOR:
                return Kind.TENSOR
            return None
        if isinstance(expr, ast.UnaryOp):
            if isinstance(expr.op, ast.Not):
                return Kind.OTHER
            return Kind.TENSOR if self.kind(expr.operand) is Kind.TENSOR else None
        if isinstance(expr, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
                return Kind.OTHER
            operands = [expr.left, *expr.comparators]
            return Kind.TENSOR if any(self.kind(o) is Kind.TENSOR for o in operands) else None
        if isinstance(expr, ast.IfExp):
            a, b = self.kind(expr.body), self.kind(expr.orelse)
            return a if a is b else None
        if isinstance(expr, (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set,
                             ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.Lambda)):
            return Kind.OTHER
        return None

    def is_tensor(self, expr: ast.AST) -> bool:
        return self.kind(expr) is Kind.TENSOR

    def callee_class_kind(self, q: str) -> Kind | None:
        """Kind of the object a call to the class/function ``q`` returns."""
        if q in _TENSOR_CONSTRUCTORS:
            return Kind.TENSOR
        if q in _NON_TENSOR_FUNCS:
            return Kind.DEVICE if q == "torch.device" else Kind.OTHER
        parent, _, last = q.rpartition(".")
        if not last:
            return None
        if q in ("torch.utils.data.DataLoader",):
            return Kind.LOADER
        if parent in TENSOR_NAMESPACES and last[0].islower():
            return Kind.TENSOR
        if parent.startswith("torch.nn") and last[0].isupper() and parent != "torch.nn.functional":
            return Kind.MODULE
        if parent.startswith("torchvision.models") and not last.endswith("_Weights"):
            return Kind.MODULE
        if parent.startswith("torch.optim") and last[0].isupper():
            return Kind.OPTIMIZER
        return None

    def _call_kind(self, call: ast.Call) -> Kind | None:
        func = call.func
        q = self.qualname(func)
        if q is not None:
            kind = self.callee_class_kind(q)
            if kind is Kind.TENSOR and q.count(".") in (1, 2) and q.startswith(("torch.", "torch.linalg.")):
                last = q.rpartition(".")[2]
                if last in _TUPLE_RESULTS or (last in _TUPLE_WITH_DIM and self._dim_given(call, 1)):
                    return Kind.TENSORS
            return kind
        if isinstance(func, ast.Name):
            if func.id in ("float", "int", "len", "bool", "str", "repr", "round", "list", "tuple", "dict",
                           "range", "enumerate", "zip", "isinstance", "print", "type"):
                return Kind.OTHER
            b = self.lookup(func.id)
            if b is not None:
                if b.kind is Kind.MODULE:
                    return Kind.TENSOR
                if b.kind is Kind.MODULE_CLASS:
                    return Kind.MODULE
            if func.id in self.module_classes and (b is None or b.kind is Kind.MODULE_CLASS):
                return Kind.MODULE
            return None
        if isinstance(func, ast.Attribute):
            recv = func.value
            rk = self.kind(recv)
            if rk is Kind.TENSOR:
                if func.attr in _TUPLE_RESULTS or (func.attr in _TUPLE_WITH_DIM and self._dim_given(call, 0)):
                    return Kind.TENSORS
                return Kind.OTHER if func.attr in _NON_TENSOR_METHODS else Kind.TENSOR
            if rk is Kind.MODULE:
                return Kind.MODULE if func.attr in _MODULE_RETURNING_METHODS else None
            if rk is Kind.FUNCTION_CLASS and func.attr == "apply":
                return Kind.TENSOR
            if isinstance(recv, ast.Name) and recv.id in self.function_classes and func.attr == "apply":
                return Kind.TENSOR
        return None

    def _dim_given(self, call: ast.Call, first: int) -> bool:
        """``max(x, 1)`` / ``x.max(dim=1)`` reduce along a dim (a namedtuple);
        ``max(x, y)`` with a tensor ``y`` is elementwise (a tensor)."""
        if any(k.arg in ("dim", "keepdim") for k in call.keywords):
            return True
        if len(call.args) > first:
            arg = call.args[first]
            return self.kind(arg) is not Kind.TENSOR
        return False

    # -- binding from statements -----------------------------------------
    def binding_for(self, value: ast.AST, line: int) -> Binding | None:
        k = self.kind(value)
        if k is None:
            return None
        fresh = False
        view_of = None
        if k is Kind.TENSOR:
            fresh = isinstance(value, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare))
            base = view_base(value)
            if base is not None:
                fresh = False
                view_of = base
        origin = self.qualname(value.func) if isinstance(value, ast.Call) else None
        return Binding(k, fresh=fresh, view_of=view_of, line=line, origin=origin)

    def bind_target(self, target: ast.AST, value: ast.AST | None, line: int) -> None:
        """Record ``target = value`` (tuples are matched element-wise)."""
        if isinstance(target, ast.Name):
            self.bind(target.id, self.binding_for(value, line) if value is not None else None)
            if isinstance(value, ast.Name):
                self.scope.escaped.update((target.id, value.id))
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts):
                    self.bind_target(t, v, line)
            elif value is not None and self.kind(value) is Kind.TENSORS:
                self.bind_all(target, Kind.TENSOR, line)
            else:
                for t in target.elts:
                    self.bind_target(t, None, line)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None, line)

    def bind_all(self, target: ast.AST, kind: Kind | None, line: int) -> None:
        """Bind every name in ``target`` to ``kind`` (for-loop batches)."""
        if isinstance(target, ast.Name):
            self.bind(target.id, Binding(kind, line=line) if kind else None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.bind_all(t, kind, line)
        elif isinstance(target, ast.Starred):
            self.bind_all(target.value, kind, line)

    def bind_for(self, node: ast.For) -> None:
        it = node.iter
        kind = self.kind(it)
        if kind in (Kind.LOADER, Kind.TENSOR, Kind.TENSORS):
            self.bind_all(node.target, Kind.TENSOR, node.lineno)
            return
        # for i, (x, y) in enumerate(loader)
        if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate"
                and it.args and self.kind(it.args[0]) in (Kind.LOADER, Kind.TENSOR)
                and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2):
            self.bind_all(node.target.elts[0], None, node.lineno)
            self.bind_all(node.target.elts[1], Kind.TENSOR, node.lineno)
            return
        self.bind_all(node.target, None, node.lineno)

    def is_module_base(self, base: ast.AST) -> bool:
        q = self.qualname(base)
        if q is not None:
            return q == "torch.nn.Module" or (q.startswith("torch.nn.") and q.rpartition(".")[2][:1].isupper()
                                              and not q.startswith("torch.nn.functional"))
        return isinstance(base, ast.Name) and base.id in self.module_classes

    def is_function_base(self, base: ast.AST) -> bool:
        q = self.qualname(base)
        if q is not None:
            return q in ("torch.autograd.Function", "torch.autograd.function.Function")
        return isinstance(base, ast.Name) and base.id in self.function_classes

    def register_class(self, node: ast.ClassDef) -> str | None:
        """Remember nn.Module / autograd.Function subclasses; returns which."""
        if any(self.is_function_base(b) for b in node.bases):
            self.function_classes.add(node.name)
            self.bind(node.name, Binding(Kind.FUNCTION_CLASS, line=node.lineno))
            return "function"
        if any(self.is_module_base(b) for b in node.bases):
            self.module_classes.add(node.name)
            self.bind(node.name, Binding(Kind.MODULE_CLASS, line=node.lineno))
            return "module"
        self.bind(node.name, Binding(Kind.OTHER, line=node.lineno))
        return None

    def graph_decorator(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        """``JIT`` when ``fn`` is decorated with ``@mindspore.jit`` (bare or
        called), else None."""
        for d in fn.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            if self.qualname(target) in _JIT_DECORATORS:
                return JIT
        return None


def view_base(expr: ast.AST) -> str | None:
    """Name of the tensor ``expr`` is a view of (``x.view(...)``, ``x[0]``, ``x.T``)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr in VIEW_METHODS and isinstance(expr.func.value, ast.Name):
            return expr.func.value.id
    if isinstance(expr, ast.Attribute) and expr.attr in VIEW_METHODS and isinstance(expr.value, ast.Name):
        return expr.value.id
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
        return expr.value.id
    return None
