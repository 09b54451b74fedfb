"""Count the torch API names that public PyTorch code uses, and say which msnb fails.

    python tools/count_api_usage.py /work/.mirror/pytorch+examples/repo /path/to/checkout [--top 300] [--json]

Each argument is a git directory (read with ``git ls-tree`` / ``git show``,
nothing is written to disk) or a plain directory.  Python files and notebooks
are parsed with ``ast``; ``import torch.nn as nn`` / ``from torch import optim``
aliases are followed, so ``nn.Conv2d`` counts as ``torch.nn.Conv2d``.  A call
``x.view(...)`` on something that is not a module counts as ``torch.Tensor.view``
when PyTorch's Tensor has that method (a heuristic: the receiver's type is not
known statically), and ``model.train()`` as ``torch.nn.Module.train``.

For each of the top names the report says how msnb stands: ``missing`` (not in
the support registry), ``partial`` (listed with a note, e.g. failing OpInfo
samples) or ``ok``.  A name PyTorch itself does not have (``torch.functional.relu``:
the code using it fails under PyTorch too) is not counted against msnb: it is
listed apart, as "not a PyTorch <version> name", and left out of the top names.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

MODULE_METHODS = {"train", "eval", "parameters", "named_parameters", "state_dict", "load_state_dict", "modules",
                  "children", "named_modules", "zero_grad", "register_buffer", "apply", "add_module",
                  "register_forward_hook", "buffers", "named_children"}


def _sources(root: str):
    """(path, text) of every .py and .ipynb file under a git dir or a directory."""
    p = Path(root)
    if (p / "HEAD").is_file() and (p / "objects").is_dir():
        names = subprocess.run(["git", f"--git-dir={p}", "ls-tree", "-r", "--name-only", "HEAD"],
                               capture_output=True, text=True, check=True).stdout.split("\n")
        for n in names:
            if n.endswith((".py", ".ipynb")):
                r = subprocess.run(["git", f"--git-dir={p}", "show", f"HEAD:{n}"], capture_output=True)
                if r.returncode == 0:
                    yield n, r.stdout.decode("utf-8", "replace")
        return
    for f in sorted(p.rglob("*")):
        if f.suffix in (".py", ".ipynb") and f.is_file():
            yield str(f), f.read_text(encoding="utf-8", errors="replace")


def _python_of(path, text):
    if not path.endswith(".ipynb"):
        return [text]
    try:
        nb = json.loads(text)
    except ValueError:
        return []
    cells = []
    for c in nb.get("cells", []):
        if c.get("cell_type") == "code":
            src = "".join(c.get("source", []))
            cells.append("\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!"))))
    return cells


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Counter(ast.NodeVisitor):
    def __init__(self, counts, tensor_methods):
        self.counts = counts
        self.tensor_methods = tensor_methods
        self.aliases = {}

    def visit_Import(self, node):
        for a in node.names:
            if a.name == "torch" or a.name.startswith("torch."):
                if a.asname:
                    self.aliases[a.asname] = a.name
                else:
                    self.aliases["torch"] = "torch"

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if mod == "torch" or mod.startswith("torch."):
            for a in node.names:
                q = f"{mod}.{a.name}"
                self.aliases[a.asname or a.name] = q
                self.counts[q] += 1

    def visit_Attribute(self, node):
        d = _dotted(node)
        if d is not None:
            head, _, rest = d.partition(".")
            if head in self.aliases:
                self.counts[self.aliases[head] + ("." + rest if rest else "")] += 1
                return  # the chain is counted once, at its longest
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute):
            base = _dotted(f.value)
            if base is None or base.split(".")[0] not in self.aliases:
                if f.attr in MODULE_METHODS:
                    self.counts[f"torch.nn.Module.{f.attr}"] += 1
                elif f.attr in self.tensor_methods:
                    self.counts[f"torch.Tensor.{f.attr}"] += 1
        elif isinstance(f, ast.Name) and f.id in self.aliases:
            pass  # counted through visit_Name below
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.aliases and self.aliases[node.id] != "torch" and "." in self.aliases[node.id]:
            q = self.aliases[node.id]
            if q.count(".") >= 1 and not q.endswith((".nn", ".optim", ".functional", ".data")):
                self.counts[q] += 1


def count(roots):
    from msnb.adapter.torch._api_names import TENSOR_METHODS
    counts = collections.Counter()
    files = 0
    for root in roots:
        for path, text in _sources(root):
            for src in _python_of(path, text):
                try:
                    tree = ast.parse(src)
                except SyntaxError:
                    continue
                files += 1
                _Counter(counts, TENSOR_METHODS).visit(tree)
    return counts, files


def _resolves(name):
    """Whether ``name`` is an attribute path of the installed PyTorch (True when it cannot be told)."""
    import importlib
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        except Exception:  # noqa: BLE001 - a module that cannot load here: cannot tell
            return True
        for part in parts[cut:]:
            try:
                obj = getattr(obj, part)
            except AttributeError:
                return False
            except Exception:  # noqa: BLE001 - dynamic namespaces (torch.classes.<library>) need a loaded library
                return True
        return True
    return False


def _listed(name):
    """Without PyTorch installed: whether PyTorch's public-name lists (``_api_names``) have ``name``."""
    from msnb.adapter.torch._api_names import MODULE_NAMES, SUBMODULES, TENSOR_METHODS
    if name == "torch" or name in SUBMODULES or name in MODULE_NAMES:
        return True
    if name.startswith("torch.Tensor."):
        return name.split(".")[2] in TENSOR_METHODS
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        mod = ".".join(parts[:cut])
        if mod in MODULE_NAMES:
            return parts[cut] in MODULE_NAMES[mod] or f"{mod}.{parts[cut]}" in SUBMODULES
        if mod in SUBMODULES:
            return True  # a submodule whose names are not listed: cannot tell
    return True


def pytorch_has(name):
    """Whether PyTorch (the installed oracle, else the version ``_api_names`` lists) has ``name``."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return _listed(name)
    return _resolves(name)


def pytorch_version():
    try:
        import torch
        return torch.__version__.split("+")[0]
    except ImportError:
        from msnb.adapter.torch._api_names import TORCH_VERSION
        return TORCH_VERSION


def status(name, reg):
    e = reg.get(name)
    if e is None:
        return "missing", ""
    return ("partial", e.note) if e.status == "partial" else ("ok", "")


def main(argv=None):
    p = argparse.ArgumentParser(prog="tools/count_api_usage.py", description=__doc__.splitlines()[0])
    p.add_argument("roots", nargs="+", help="git directories or checkouts to scan")
    p.add_argument("--top", type=int, default=300)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    from msnb.adapter.support import load_registry
    reg = load_registry()
    counts, files = count(a.roots)
    # module names themselves (torch.nn as a namespace) are not APIs to support
    skip = {"torch", "torch.nn", "torch.optim", "torch.nn.functional", "torch.utils", "torch.utils.data",
            "torch.cuda", "torch.distributed", "torch.autograd", "torch.backends", "torch.multiprocessing",
            "torch.onnx", "torch.jit", "torch.nn.parallel", "torch.utils.data.distributed"}
    top, foreign = [], []
    for n, c in counts.most_common():
        if len(top) >= a.top:
            break
        if n in skip:
            continue
        (top if pytorch_has(n) else foreign).append((n, c))
    rows = [{"name": n, "uses": c, "status": status(n, reg)[0], "note": status(n, reg)[1]} for n, c in top]
    version = pytorch_version()
    not_pytorch = [{"name": n, "uses": c} for n, c in foreign]
    if a.json:
        print(json.dumps({"files": files, "top": rows, "pytorch_version": version, "not_pytorch": not_pytorch},
                         indent=1))
        return 0
    bad = [r for r in rows if r["status"] != "ok"]
    print(f"{files} Python sources; top {len(rows)} names: {len(rows) - len(bad)} ok, "
          f"{sum(r['status'] == 'partial' for r in rows)} partial, {sum(r['status'] == 'missing' for r in rows)} missing")
    for r in bad:
        print(f"  {r['uses']:5d}  {r['status']:8s} {r['name']}  {r['note'][:120]}")
    if not_pytorch:
        print(f"not a PyTorch {version} name (fails under PyTorch too; not counted above): {len(not_pytorch)}")
        for r in not_pytorch:
            print(f"  {r['uses']:5d}  {r['name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
