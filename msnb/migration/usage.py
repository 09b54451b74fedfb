"""Which cells use torch, and which torch / torchvision APIs they call.

The survey walks a notebook's code cells in order (a script is one cell)
with one :class:`msnb.analyzer.inference.Inference`, so ``import torch.nn
as nn`` in cell 1 makes ``nn.Linear`` in cell 4 count as
``torch.nn.Linear``, and a tensor made in cell 2 makes ``x.view(...)`` in
cell 5 count as ``torch.Tensor.view``.  Only names in PyTorch's public API
list (``msnb/analyzer/data/torch_api.json``) or msnb's support registry are
counted, so a user's own ``model.fit()`` is not an API.

A cell *uses torch* when it is a ``%%torch_on_ascend`` cell, imports a torch
family module (``torch``, ``torchvision``, ``msadapter``, ``mindtorch``), or
reads a name bound by an earlier cell that used torch (a model, a tensor, a
training function): such a cell needs ``%%torch_on_ascend`` to run on msnb.
"""

from __future__ import annotations

import ast
import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from msnb.analyzer.inference import Binding, Inference, Kind
from msnb.analyzer.masking import PYTHON_CELL_MAGICS, cell_magic, mask

__all__ = ["CellSurvey", "survey_cells", "torch_api_names", "api_status", "TORCH_ROOTS", "MAGIC"]

#: The cell magic that runs a cell on msnb.
MAGIC = "torch_on_ascend"
#: Import roots that mean "this code uses torch".
TORCH_ROOTS = ("torch", "torchvision", "msadapter", "mindtorch")


@functools.lru_cache(maxsize=1)
def torch_api_names() -> frozenset[str]:
    """PyTorch's public torch / torchvision names (the analyzer's data file)."""
    import msnb.analyzer.data as data

    path = Path(data.__file__).with_name("torch_api.json")
    return frozenset(json.loads(path.read_text(encoding="utf-8"))["names"])


def api_status(name: str, registry: dict) -> tuple[str, str]:
    """``("supported" | "partial" | "unsupported", note)`` of one API name."""
    entry = registry.get(name)
    if entry is None:
        return "unsupported", ""
    return getattr(entry, "status", "supported"), getattr(entry, "note", "")


@dataclass
class CellSurvey:
    """What one code cell does with torch."""

    index: int | None
    magic: str | None  # leading %%magic name, or None
    uses_torch: bool
    parses: bool
    apis: Counter = field(default_factory=Counter)


def _body(source: str, magic: str | None) -> str | None:
    """Python source of a cell (its magic line blanked so lines keep their
    numbers), or None for a non-Python cell magic (``%%bash``)."""
    if magic is None:
        return source
    if magic not in PYTHON_CELL_MAGICS:
        return None
    lines = source.split("\n")
    first = next(i for i, line in enumerate(lines) if line.strip())
    lines[first] = ""
    return "\n".join(lines)


def _parse(body: str) -> ast.Module | None:
    try:
        return ast.parse(body)
    except SyntaxError:
        pass
    except (ValueError, RecursionError, MemoryError):
        return None
    try:
        return ast.parse(mask(body)[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _imports_torch(node: ast.AST) -> list[str] | None:
    """Names an import of a torch-family module binds, or None."""
    if isinstance(node, ast.Import):
        bound = [a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[0] in TORCH_ROOTS]
        return bound or None
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        if node.module.split(".")[0] in TORCH_ROOTS:
            return [a.asname or a.name for a in node.names if a.name != "*"]
    return None


def _bound_names(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(a.asname or a.name.split(".")[0] for a in node.names if a.name != "*")
    return out


class _ApiCounter(ast.NodeVisitor):
    """Counts torch API uses while keeping the inference up to date."""

    def __init__(self, infer: Inference, known: frozenset[str], registry: dict) -> None:
        self.infer = infer
        self.known = known
        self.registry = registry
        self.counts: Counter = Counter()

    def _count(self, name: str | None) -> None:
        if name and name.startswith(("torch.", "torchvision.")) and (name in self.known or name in self.registry):
            self.counts[name] += 1

    def visit_Import(self, node: ast.Import) -> None:
        self.infer.add_import(node)

    visit_ImportFrom = visit_Import  # type: ignore[assignment]

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            self.infer.bind_target(target, node.value, node.lineno)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self.infer.bind_target(node.target, node.value, node.lineno)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.infer.bind_for(node)
        for child in (node.target, *node.body, *node.orelse):
            self.visit(child)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            self.visit(base)
        self.infer.register_class(node)
        for stmt in node.body:
            self.visit(stmt)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for child in (*node.decorator_list, *node.args.defaults, *[d for d in node.args.kw_defaults if d]):
            self.visit(child)
        self.infer.bind(node.name, Binding(Kind.OTHER, line=node.lineno))
        self.infer.push()
        for stmt in node.body:
            self.visit(stmt)
        self.infer.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Attribute(self, node: ast.Attribute) -> None:
        q = self.infer.qualname(node)
        if q is not None:
            self._count(q)
            return  # the chain's prefixes (torch.nn) are modules, not uses
        kind = self.infer.kind(node.value)
        if kind is Kind.TENSOR:
            self._count(f"torch.Tensor.{node.attr}")
        elif kind is Kind.MODULE:
            self._count(f"torch.nn.Module.{node.attr}")
        self.visit(node.value)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            q = self.infer.qualname(node)
            if q != node.id:
                self._count(q)


def survey_cells(cells, registry: dict) -> list[CellSurvey]:
    """One :class:`CellSurvey` per code cell of ``cells`` (``Cell`` objects
    with ``index``, ``source`` and ``cell_type``), in order."""
    infer = Inference()
    known = torch_api_names()
    tainted: set[str] = set()
    out: list[CellSurvey] = []
    # Inference caches qualified names by node id: every tree stays alive
    # until the survey ends, so a later cell's node never reuses the id of
    # an earlier, freed one.
    trees: list[ast.Module] = []
    for cell in cells:
        if cell.cell_type != "code":
            continue
        magic = cell_magic(cell.source)
        body = _body(cell.source, magic)
        tree = _parse(body) if body is not None else None
        if tree is None:
            out.append(CellSurvey(cell.index, magic, magic == MAGIC, False))
            continue
        trees.append(tree)
        imports = [_imports_torch(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        reads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        uses = magic == MAGIC or any(b is not None for b in imports) or bool(reads & tainted)
        survey = CellSurvey(cell.index, magic, uses, True)
        if uses:
            tainted |= _bound_names(tree)
            counter = _ApiCounter(infer, known, registry)
            try:
                counter.visit(tree)
            except RecursionError:
                pass
            survey.apis = counter.counts
        else:  # keep imports and bindings known for later torch cells
            for node in tree.body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    infer.add_import(node)
        out.append(survey)
    return out
