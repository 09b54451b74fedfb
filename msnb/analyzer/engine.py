"""Parse a cell once, walk it once, let every rule look at every node.

Why ``ast`` and not libcst for the analysis: on the reference machine
(2 cores) libcst needs ~9 ms to parse a 100-line cell, ~19 ms for a bare
visit, ~25 ms for ``PositionProvider`` and ~70 ms for
``QualifiedNameProvider`` (measured with ``benchmarks/analyzer_speed.py``'s
cell generator), while ``ast.parse`` takes ~1 ms.  The analysis therefore runs
on ``ast`` with its own import-alias resolution (:mod:`.inference`), and
libcst is used only to *apply* fixes (:mod:`.fixes`), lazily.

Robustness contract (issue #7, point 5): :func:`analyze` never raises for
any ``str`` input.  A cell that does not parse even after masking IPython
syntax yields exactly one finding, ``MSN000`` (category ``syntax``,
severity ``warning``, so the cell still runs and Python reports its own
``SyntaxError``).  A bug inside a rule yields one ``MSN001`` info finding
instead of a crash, unless :data:`STRICT` is set (the test-suite sets it).
"""

from __future__ import annotations

import ast
import functools
import gc
import re
import sys
import time
from typing import Callable, Iterable, Sequence

import libcst as cst

from .finding import MODES, Category, Finding, Severity
from .fixes import Edit, apply_edits
from .inference import JIT, RECORDED, Binding, Inference, Kind
from .masking import PYTHON_CELL_MAGICS, cell_magic, mask
from .rules import ALL_RULES
from .rules.base import Rule

__all__ = ["Context", "analyze", "fix", "STRICT", "Analysis", "run", "RECORDED", "JIT"]

#: Re-raise exceptions from rules instead of turning them into MSN001.
STRICT = False

#: Cells longer than this (characters) are analyzed within LARGE_CELL_SECONDS;
#: any cell within CELL_SECONDS.  Past the budget the walk stops and an
#: ``MSN002`` finding says from which line on nothing was checked.
SIZE_LIMIT = 50_000
LARGE_CELL_SECONDS = 1.0
CELL_SECONDS = 5.0


class _OverBudget(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_SKIP_CHILDREN = (ast.Constant,)
#: Context and operator singletons (``ast.Load``, ``ast.Add``...): no rule
#: looks at them and they have no children, so the walk does not visit them.
_LEAVES = frozenset({ast.Load, ast.Store, ast.Del, *ast.operator.__subclasses__(), *ast.boolop.__subclasses__(),
                     *ast.unaryop.__subclasses__(), *ast.cmpop.__subclasses__()})


class Context:
    """What a rule sees while the engine walks a cell."""

    def __init__(self, source: str, lines: list[str], infer: Inference, mode: str, registry: dict,
                 torch_api: frozenset[str]) -> None:
        self.source = source
        self.lines = lines
        self.infer = infer
        self.mode = mode
        self.registry = registry
        self.torch_api = torch_api
        self.parents: list[ast.AST] = []
        #: (ClassDef, "module" | "function" | None) of enclosing classes
        self.classes: list[tuple[ast.ClassDef, str | None]] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        #: (kind, index of its scope in ``infer.scopes``) of each enclosing
        #: compiled function, innermost last; kind is ``RECORDED`` or ``JIT``
        self._graph: list[tuple[str, int]] = []
        #: parallel to ``_graph``: the compiled function is an autograd
        #: Function's forward/backward (recorded only when applied inside a
        #: model's forward, which the analyzer cannot see from the definition)
        self._graph_in_function: list[bool] = []
        self.findings: list[tuple[Finding, Edit | None, Callable[[], bool] | None]] = []
        self._rule: type[Rule] | None = None

    # -- positions --------------------------------------------------------
    def _char_col(self, lineno: int, byte_col: int) -> int:
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))

    def key(self, node: ast.AST) -> tuple[int, int, int, int]:
        """(line, col0, end_line, end_col0) in characters, as libcst counts."""
        end_line = getattr(node, "end_lineno", None) or node.lineno
        end_col = getattr(node, "end_col_offset", None)
        if end_col is None:
            end_col = node.col_offset
        return (node.lineno, self._char_col(node.lineno, node.col_offset), end_line,
                self._char_col(end_line, end_col))

    def segment(self, node: ast.AST) -> str:
        """Source text of ``node`` (``ast.get_source_segment`` re-splits the
        whole cell on every call, which is quadratic on large cells)."""
        line, col, end_line, end_col = self.key(node)
        if line == end_line:
            return self.lines[line - 1][col:end_col]
        parts = [self.lines[line - 1][col:], *self.lines[line : end_line - 1], self.lines[end_line - 1][:end_col]]
        return "\n".join(parts)

    # -- structure --------------------------------------------------------
    @property
    def parent(self) -> ast.AST | None:
        return self.parents[-1] if self.parents else None

    def in_graph_code(self) -> bool:
        """True inside code that is compiled in Graph mode, by either route
        (see :meth:`graph_code_kind`)."""
        return bool(self._graph)

    def graph_code_kind(self) -> str | None:
        """How the enclosing code is compiled in Graph mode, which decides
        what a construct in it does:

        * ``RECORDED`` - ``forward`` / ``construct`` of an ``nn.Module``,
          ``forward`` / ``backward`` of an autograd Function (and functions
          defined inside them).  msnb's graph mode runs this Python eagerly
          while MindSpore's trace recorder records the kernels, then replays
          the graph: any Python runs, but a tensor value read on the host
          makes msnb run the module in PyNative, and Python side effects
          happen only on the recorded calls (docs/graph.md).
        * ``JIT`` - a ``@mindspore.jit`` function: MindSpore's own compiler
          parses its source, with that compiler's syntax limits.

        ``@torch.compile`` is not listed: msnb's ``torch.compile`` returns
        the function unchanged, so it runs as plain Python.  None outside
        compiled code; the innermost compiled function decides."""
        return self._graph[-1][0] if self._graph else None

    def is_outer_name(self, name: str) -> bool:
        """True when ``name``, used inside compiled code, is not bound by the
        compiled function or a function nested in it: a global, a closure
        variable or an earlier cell's name, which outlives one call."""
        if not self._graph:
            return False
        first = self._graph[0][1]
        scopes = self.infer.scopes
        return not any(name in s.names or name in s.params for s in scopes[first:])

    def enclosing_class_kind(self) -> str | None:
        return self.classes[-1][1] if self.classes else None

    def statement_is_alone(self, stmt: ast.stmt) -> bool:
        """True when ``stmt`` is the only statement of its block (removing it
        would leave an empty block, so a fix must put ``pass`` there)."""
        parents = self.parents
        parent = parents[-1] if parents else None
        for i in range(len(parents) - 1, -1, -1):
            if parents[i] is stmt:
                parent = parents[i - 1] if i > 0 else None
                break
        if parent is None or isinstance(parent, ast.Module):
            return False
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and len(block) == 1 and block[0] is stmt:
                return True
        return False

    # -- reporting --------------------------------------------------------
    def edit(self, node: ast.AST, node_type: type, transform) -> Edit:
        return Edit(node_type, self.key(node), transform)

    def removal_edit(self, stmt: ast.stmt, node_type: type) -> Edit:
        """Edit that deletes a simple statement (or turns it into ``pass``)."""
        if self.statement_is_alone(stmt):
            return self.edit(stmt, node_type, lambda n: cst.Pass())
        return self.edit(stmt, node_type, lambda n: cst.RemoveFromParent())

    def rebind_safe(self, name: str) -> Callable[[], bool] | None:
        """A check, run after the walk, that rewriting an in-place update of
        ``name`` into ``name = ...`` keeps the program's meaning: ``name`` was
        bound in this cell, in this scope, to a freshly created tensor, never
        escaped (stored, passed on, returned, aliased) and has no views."""
        scope = self.infer.scope
        b = scope.names.get(name)
        if b is None or not b.in_cell or not b.fresh or b.kind is not Kind.TENSOR or name in scope.params:
            return None

        def check() -> bool:
            if name in scope.escaped:
                return False
            views = scope.__dict__.get("_view_bases")
            if views is None:  # computed once, after the walk
                views = scope.__dict__["_view_bases"] = {v.view_of for v in scope.names.values() if v.view_of}
            return name not in views

        return check

    def report(self, node: ast.AST, *, message: str | None = None, severity: Severity | None = None,
               suggestion: str | None = None, why: str | None = None, edit: Edit | None = None,
               when: Callable[[], bool] | None = None) -> None:
        rule = self._rule
        assert rule is not None
        sev = severity if severity is not None else rule.severity_for(self.mode)
        if sev is None:
            return
        if sev is Severity.WARNING and rule.CATEGORY is Category.GRAPH_MODE and any(self._graph_in_function):
            # applied at top level, an autograd Function runs in PyNative and nothing falls back;
            # applied inside a model's forward it is recorded: advice, since both are possible
            sev = Severity.INFO
        line, col, end_line, end_col = self.key(node)
        f = Finding(
            rule=rule.CODE,
            category=rule.CATEGORY,
            severity=sev,
            line=line,
            col=col + 1,
            end_line=end_line,
            end_col=end_col + 1,
            message=message or rule.MESSAGE,
            why=why or rule.WHY,
            suggestion=suggestion or rule.SUGGESTION,
            mode=self.mode,
            mode_dependent=rule.mode_dependent(),
        )
        self.findings.append((f, edit, when))


class Analysis:
    """Result of one run: findings plus what is needed to apply their fixes."""

    def __init__(self, findings: list[Finding], edits: list[Edit], masked: str, originals: dict[int, str],
                 finding_edits: list[Edit | None] | None = None):
        self.findings = findings
        self.edits = edits
        self.masked = masked
        self.originals = originals
        #: the edit of each finding (None when it has none), parallel to ``findings``
        self.finding_edits = finding_edits if finding_edits is not None else [None] * len(findings)


# -- the walk -------------------------------------------------------------
_FORWARD_NAMES = {"module": ("forward", "construct"), "function": ("forward", "backward")}


@functools.lru_cache(maxsize=None)
def _visitor_names(rule_cls: type) -> tuple[tuple[type, str], ...]:
    """(ast node type, method name) for each ``visit_*`` of a rule class."""
    out = []
    for attr in dir(rule_cls):
        if attr.startswith("visit_"):
            node_type = getattr(ast, attr[6:], None)
            if node_type is not None:
                out.append((node_type, attr))
    return tuple(out)


class _Walker:
    def __init__(self, ctx: Context, rules: Sequence[Rule]) -> None:
        self.ctx = ctx
        self.dispatch: dict[type, list[tuple[type[Rule], Callable]]] = {}
        for r in rules:
            for node_type, attr in _visitor_names(type(r)):
                self.dispatch.setdefault(node_type, []).append((type(r), getattr(r, attr)))
        self.internal_errors: list[tuple[str, ast.AST, BaseException]] = []
        self.deadline = float("inf")
        self._count = 0

    def walk(self, node: ast.AST) -> None:
        self._count += 1
        if not self._count & 1023 and time.perf_counter() > self.deadline:
            # the statement being walked: findings before it are complete
            raise _OverBudget(next((getattr(p, "lineno", 0) for p in self.ctx.parents[1:2]), 0)
                              or getattr(node, "lineno", 1))
        ctx = self.ctx
        infer = ctx.infer
        t = type(node)
        if t is ast.Import or t is ast.ImportFrom:
            infer.add_import(node)  # type: ignore[arg-type]
        elif t is ast.Name:
            self._track_escape(node)  # type: ignore[arg-type]
        elif t is ast.ClassDef:
            for b in node.bases:  # type: ignore[attr-defined]
                self.walk(b)
            kind = infer.register_class(node)  # type: ignore[arg-type]
            self._handlers(t, node)
            ctx.classes.append((node, kind))  # type: ignore[arg-type]
            ctx.parents.append(node)
            for stmt in node.body:  # type: ignore[attr-defined]
                self.walk(stmt)
            ctx.parents.pop()
            ctx.classes.pop()
            return
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            self._function(node)  # type: ignore[arg-type]
            return
        elif t is ast.For or t is ast.AsyncFor:
            self._handlers(t, node)
            ctx.parents.append(node)
            self.walk(node.iter)  # type: ignore[attr-defined]
            infer.bind_for(node)  # type: ignore[arg-type]
            for child in (node.target, *node.body, *node.orelse):  # type: ignore[attr-defined]
                self.walk(child)
            ctx.parents.pop()
            return
        if t in self.dispatch:
            self._handlers(t, node)
        if t in _SKIP_CHILDREN:
            return
        ctx.parents.append(node)
        walk = self.walk
        AST = ast.AST
        for name in node._fields:  # ast.iter_child_nodes without its generator overhead
            value = getattr(node, name, None)
            if isinstance(value, AST):
                if type(value) not in _LEAVES:
                    walk(value)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, AST) and type(item) not in _LEAVES:
                        walk(item)
        ctx.parents.pop()
        if t is ast.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                infer.bind_target(target, node.value, node.lineno)  # type: ignore[attr-defined]
        elif t is ast.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
            infer.bind_target(node.target, node.value, node.lineno)  # type: ignore[attr-defined]
        elif t is ast.Global or t is ast.Nonlocal:
            infer.scope.declared_global.update(node.names)  # type: ignore[attr-defined]

    def _handlers(self, t: type, node: ast.AST) -> None:
        handlers = self.dispatch.get(t)
        if not handlers:
            return
        ctx = self.ctx
        for rule_cls, h in handlers:
            ctx._rule = rule_cls
            try:
                h(node, ctx)
            except Exception as exc:  # noqa: BLE001 - a rule bug must not stop the user's cell
                if STRICT:
                    raise
                self.internal_errors.append((rule_cls.CODE, node, exc))

    def _function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        ctx = self.ctx
        infer = ctx.infer
        for d in fn.decorator_list:
            self.walk(d)
        for default in (*fn.args.defaults, *[d for d in fn.args.kw_defaults if d is not None]):
            self.walk(default)
        infer.bind(fn.name, Binding(Kind.OTHER, line=fn.lineno))
        self._handlers(type(fn), fn)
        cls_kind = ctx.enclosing_class_kind() if ctx.classes and ctx.parent is ctx.classes[-1][0] else None
        graph = infer.graph_decorator(fn) or (
            RECORDED if cls_kind in _FORWARD_NAMES and fn.name in _FORWARD_NAMES[cls_kind] else None)
        infer.push()
        args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
        tensor_params = cls_kind in _FORWARD_NAMES and fn.name in _FORWARD_NAMES[cls_kind]
        skip_first = cls_kind is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list
        )
        if cls_kind == "function":
            skip_first = True  # ctx
        for i, a in enumerate(args):
            infer.scope.params.add(a.arg)
            is_tensor = (tensor_params and not (i == 0 and skip_first)) or _annotated_tensor(infer, a.annotation)
            infer.scope.names[a.arg] = Binding(Kind.TENSOR if is_tensor else Kind.OTHER, line=fn.lineno)
        for extra in (fn.args.vararg, fn.args.kwarg):
            if extra is not None:
                infer.scope.params.add(extra.arg)
                infer.scope.names[extra.arg] = Binding(Kind.OTHER, line=fn.lineno)
        ctx.functions.append(fn)
        if graph:
            ctx._graph.append((graph, len(infer.scopes) - 1))
            ctx._graph_in_function.append(cls_kind == "function" and graph == RECORDED)
        ctx.parents.append(fn)
        for stmt in fn.body:
            self.walk(stmt)
        ctx.parents.pop()
        if graph:
            ctx._graph.pop()
            ctx._graph_in_function.pop()
        ctx.functions.pop()
        infer.pop()

    def _track_escape(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            return
        ctx = self.ctx
        parents = ctx.parents
        if not parents:
            return
        p = parents[-1]
        escaped = False
        if isinstance(p, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred, ast.Return, ast.Yield,
                          ast.YieldFrom, ast.Lambda, ast.NamedExpr)):
            escaped = True
        elif isinstance(p, (ast.Assign, ast.AnnAssign)) and p.value is node:
            escaped = True
        elif isinstance(p, ast.Assign) and any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in p.targets):
            escaped = True
        elif isinstance(p, ast.Call) and p.func is not node:
            escaped = not _callee_keeps_no_reference(ctx.infer, p)
        elif isinstance(p, ast.keyword) and len(parents) > 1 and isinstance(parents[-2], ast.Call):
            escaped = not _callee_keeps_no_reference(ctx.infer, parents[-2])
        if escaped:
            ctx.infer.scope.escaped.add(node.id)


_PURE_BUILTINS = frozenset({"print", "len", "float", "int", "bool", "str", "repr", "format", "isinstance",
                            "round", "abs", "min", "max", "sum", "range", "enumerate", "zip"})


def _callee_keeps_no_reference(infer: Inference, call: ast.Call) -> bool:
    """Calls that read their tensor arguments without keeping them: torch
    functions, models/criteria and tensor methods, a few builtins."""
    f = call.func
    if isinstance(f, ast.Name) and f.id in _PURE_BUILTINS and infer.lookup(f.id) is None:
        return True
    q = infer.qualname(f)
    if q is not None:
        return q.startswith("torch.") and not q.startswith(("torch.nn.Parameter", "torch.utils", "torch.optim"))
    k = infer.kind(f.value) if isinstance(f, ast.Attribute) else infer.kind(f)
    return k in (Kind.TENSOR, Kind.MODULE)


def _annotated_tensor(infer: Inference, ann: ast.AST | None) -> bool:
    if ann is None:
        return False
    q = infer.qualname(ann)
    return q == "torch.Tensor" or (isinstance(ann, ast.Name) and ann.id == "Tensor" and q in (None, "torch.Tensor"))


# -- data -----------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def torch_api() -> frozenset[str]:
    """Public torch / torchvision names (``data/torch_api.json``)."""
    import json
    from pathlib import Path

    path = Path(__file__).with_name("data") / "torch_api.json"
    return frozenset(json.loads(path.read_text(encoding="utf-8"))["names"])


def _load_registry() -> dict:
    from msnb.adapter import support

    return support.load_registry()


# -- entry points ---------------------------------------------------------
def _parse(source: str) -> tuple[ast.Module | None, str, dict[int, str], SyntaxError | None]:
    """Parse ``source``, masking IPython syntax if needed; every failure of
    either parse (SyntaxError, null bytes, MemoryError / RecursionError on
    huge expressions) becomes the returned error, never an exception."""
    try:
        return ast.parse(source), source, {}, None
    except SyntaxError as first:
        masked, originals = mask(source)
        if not originals:
            return None, source, {}, first
        try:
            return ast.parse(masked), masked, originals, None
        except SyntaxError as exc:
            return None, masked, originals, exc
        except (ValueError, RecursionError, MemoryError) as exc:
            return None, masked, originals, _parse_failure(exc)
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return None, source, {}, _parse_failure(exc)


def _parse_failure(exc: BaseException) -> SyntaxError:
    err = SyntaxError(f"{type(exc).__name__}: the cell is too large or too deeply nested to parse"
                      if isinstance(exc, (RecursionError, MemoryError)) else (str(exc) or type(exc).__name__))
    err.lineno, err.offset = 1, 1
    return err


@functools.lru_cache(maxsize=64)
def _context_inference(context: tuple[str, ...]) -> Inference:
    """Bindings after running inference over ``context`` (oldest first).
    Incremental: the result for ``cells[:-1]`` is cached and extended, so a
    notebook analyzed cell by cell costs one inference pass per cell."""
    if not context:
        return Inference()
    infer = _context_inference(context[:-1]).fork()
    body = _strip_cell_magic(context[-1])
    if body is None:
        return infer
    tree, masked, _, err = _parse(body)
    if tree is None:
        return infer
    ctx = Context(masked, _LINE_SPLIT.split(masked), infer, "pynative", {}, frozenset())
    try:
        _Walker(ctx, []).walk(tree)
    except RecursionError:
        pass
    infer.scopes = [infer.module_scope]
    return infer


def _strip_cell_magic(source: str) -> str | None:
    """Source to analyze: Python cell magics keep their body (the magic line
    is masked by :func:`mask`); other cell magics (``%%bash``) are not
    Python, so None."""
    name = cell_magic(source)
    if name is None or name in PYTHON_CELL_MAGICS:
        return source
    return None


def _select_rules(rules: Iterable[str] | None) -> list[type[Rule]]:
    if rules is None:
        return [r for r in ALL_RULES if r.DEFAULT_ENABLED]
    wanted = set(rules)
    known = {r.CODE for r in ALL_RULES} | {r.NAME for r in ALL_RULES}
    unknown = wanted - known
    if unknown:
        raise ValueError(f"unknown rule code(s): {', '.join(sorted(unknown))}")
    return [r for r in ALL_RULES if r.CODE in wanted or r.NAME in wanted]


#: ``# msnb: ignore`` / ``# msnb: ignore[MSN201, MSN301]`` on a line (Ruff's ``noqa`` style).
_IGNORE_COMMENT = re.compile(r"#\s*msnb:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)


def resolve_codes(codes: Iterable[str] | str | None) -> frozenset[str]:
    """Rule codes for ``codes`` (codes or rule names, a comma-separated
    string or an iterable); ValueError naming any unknown one."""
    if codes is None:
        return frozenset()
    if isinstance(codes, str):
        codes = codes.split(",")
    by_name = {r.NAME: r.CODE for r in ALL_RULES}
    known = {r.CODE for r in ALL_RULES} | {"MSN000", "MSN001", "MSN002"}
    out, unknown = set(), []
    for c in codes:
        c = c.strip()
        if not c:
            continue
        code = by_name.get(c, c.upper())
        (out.add(code) if code in known else unknown.append(c))
    if unknown:
        raise ValueError(f"unknown rule code(s): {', '.join(unknown)} (see docs/rules.md)")
    return frozenset(out)


def _line_suppressions(lines: list[str]) -> dict[int, frozenset[str] | None]:
    """1-based line -> codes ignored there (None: every code)."""
    out: dict[int, frozenset[str] | None] = {}
    for i, line in enumerate(lines, 1):
        if "msnb" not in line.lower():
            continue
        m = _IGNORE_COMMENT.search(line)
        if m is None:
            continue
        codes = m.group(1)
        out[i] = None if codes is None else frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
    return out


def _suppressed(f: Finding, ignore: frozenset[str], lines: dict[int, frozenset[str] | None]) -> bool:
    if f.rule in ignore:
        return True
    if f.line in lines:
        codes = lines[f.line]
        return codes is None or f.rule in codes
    return False


def _normalize_context(context: str | Sequence[str] | None) -> tuple[str, ...]:
    if context is None:
        return ()
    if isinstance(context, str):
        return (context,)
    return tuple(context)


def run(source: str, *, mode: str = "pynative", context: str | Sequence[str] | None = None,
        rules: Iterable[str] | None = None, registry: dict | None = None,
        ignore: Iterable[str] | str | None = None) -> Analysis:
    """Analyze ``source``; see :func:`msnb.analyzer.analyze`."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not isinstance(source, str):
        raise TypeError(f"source must be str, got {type(source).__name__}")
    rule_classes = _select_rules(rules)
    ignored = resolve_codes(ignore)
    try:
        result = _run(source, mode, context, rule_classes, registry)
    except (MemoryError, RecursionError) as exc:
        return Analysis([_internal_finding(
            f"cell could not be analyzed ({type(exc).__name__}: an expression is too large or too deeply nested); "
            "it runs unchecked", 1, 1, mode)], [], source, {})
    except Exception as exc:  # noqa: BLE001 - the analyzer must never stop the user's cell
        if STRICT:
            raise
        return Analysis([_internal_finding(
            f"cell could not be analyzed ({type(exc).__name__}: {exc}); please report it", 1, 1, mode)],
            [], source, {})
    suppress = _line_suppressions(_LINE_SPLIT.split(source)) if "msnb" in source.lower() else {}
    if ignored or suppress:
        keep = [not _suppressed(f, ignored, suppress) for f in result.findings]
        result.edits = [e for k, e in zip(keep, result.finding_edits) if k and e is not None]
        result.finding_edits = [e for k, e in zip(keep, result.finding_edits) if k]
        result.findings = [f for k, f in zip(keep, result.findings) if k]
    return result


def _run(source: str, mode: str, context, rule_classes, registry) -> Analysis:
    body = _strip_cell_magic(source)
    if body is None or not body.strip():
        return Analysis([], [], source, {})
    tree, masked, originals, err = _parse(body)
    if tree is None:
        assert err is not None
        line = err.lineno or 1
        col = err.offset or 1
        return Analysis([_syntax_finding(err, line, col, mode)], [], masked, originals)
    infer = _context_inference(_normalize_context(context)).fork()
    reg = registry if registry is not None else _load_registry()
    ctx = Context(masked, _LINE_SPLIT.split(masked), infer, mode, reg, torch_api())
    walker = _Walker(ctx, [r() for r in rule_classes])
    walker.deadline = time.perf_counter() + (LARGE_CELL_SECONDS if len(source) > SIZE_LIMIT else CELL_SECONDS)
    over_budget: int | None = None
    limit = sys.getrecursionlimit()
    # The walk allocates many short-lived, acyclic objects; a cyclic GC pass
    # in the middle of it is pure latency for the user's cell, so collection
    # waits until the walk is done.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        sys.setrecursionlimit(max(limit, 10_000))
        walker.walk(tree)
    except _OverBudget as stop:
        over_budget = stop.line
    except RecursionError:
        return Analysis([_internal_finding("cell is too deeply nested to analyze", 1, 1, mode)], [], masked,
                        originals)
    finally:
        sys.setrecursionlimit(limit)
        if gc_was_enabled:
            gc.enable()
    findings: list[Finding] = []
    edits: list[Edit] = []
    finding_edits: list[Edit | None] = []
    for f, edit, when in ctx.findings:
        if edit is not None and (when is None or when()):
            f._fixer = functools.partial(apply_edits, masked, originals, (edit,))
            edits.append(edit)
            finding_edits.append(edit)
        else:
            finding_edits.append(None)
        findings.append(f)
    seen_internal = set()
    for code, node, exc in walker.internal_errors:
        if code not in seen_internal:
            seen_internal.add(code)
            findings.append(_internal_finding(
                f"analyzer rule {code} failed on this cell ({type(exc).__name__}: {exc}); please report it",
                getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, mode))
    if over_budget is not None:
        size = f"{len(source) // 1000} KB" if len(source) > SIZE_LIMIT else "this cell"
        findings.append(Finding(
            rule="MSN002", category=Category.SYNTAX, severity=Severity.INFO, line=over_budget, col=1,
            end_line=over_budget, end_col=2,
            message=f"analysis stopped at line {over_budget}: {size} took longer than the analyzer's time budget",
            why="The analyzer bounds its time so a cell never waits on it; lines from here on were not checked.",
            suggestion="Split the cell, or run `msnb.analyzer.analyze` on the code outside the notebook.", mode=mode))
    order = sorted(range(len(findings)), key=lambda i: (findings[i].line, findings[i].col, findings[i].rule))
    finding_edits += [None] * (len(findings) - len(finding_edits))
    return Analysis([findings[i] for i in order], edits, masked, originals, [finding_edits[i] for i in order])


def _syntax_finding(err: SyntaxError, line: int, col: int, mode: str) -> Finding:
    return Finding(
        rule="MSN000", category=Category.SYNTAX, severity=Severity.WARNING, line=line, col=max(col, 1),
        end_line=line, end_col=max(col, 1) + 1,
        message=f"cell does not parse as Python: {err.msg}",
        why="The analyzer can only check code that parses; running the cell will show Python's own error.",
        suggestion="Fix the syntax error first.", mode=mode)


def _internal_finding(message: str, line: int, col: int, mode: str) -> Finding:
    return Finding(
        rule="MSN001", category=Category.SYNTAX, severity=Severity.INFO, line=line, col=col, end_line=line,
        end_col=col + 1, message=message, why="The analyzer could not finish; the cell itself is unaffected.",
        suggestion="Run the cell; report the problem if it persists.", mode=mode)


def analyze(source: str, *, mode: str = "pynative", context: str | Sequence[str] | None = None,
            rules: Iterable[str] | None = None, registry: dict | None = None,
            ignore: Iterable[str] | str | None = None) -> list[Finding]:
    return run(source, mode=mode, context=context, rules=rules, registry=registry, ignore=ignore).findings


#: Upper bound on fix passes; each pass applies every non-overlapping fix.
MAX_FIX_PASSES = 5


def fix(source: str, *, rules: Iterable[str] | None = None, mode: str = "pynative",
        context: str | Sequence[str] | None = None, registry: dict | None = None,
        ignore: Iterable[str] | str | None = None) -> str:
    rules = list(rules) if rules is not None else None
    ignore = resolve_codes(ignore)
    current = source
    for _ in range(MAX_FIX_PASSES):
        result = run(current, mode=mode, context=context, rules=rules, registry=registry, ignore=ignore)
        if not result.edits:
            break
        try:
            new = apply_edits(result.masked, result.originals, result.edits)
        except (MemoryError, RecursionError):
            break
        except Exception:  # noqa: BLE001 - a broken rewrite is dropped, never raised
            if STRICT:
                raise
            break
        if new is None or new == current:
            break
        current = new
    return current
