"""Run a rule example the way a cell runs: under msnb's runtime and under
real PyTorch, in this process, and say what happened.

A finding's severity claims what the cell does under msnb (issue #14.1):
``error`` - it fails; ``warning`` - it runs but its output differs from
PyTorch's, or graph mode runs part of it in PyNative (a fallback); ``info``
- it runs.  ``tests/analyzer/test_examples_execute.py`` checks every rule's
examples against these outcomes.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from dataclasses import dataclass, field

__all__ = ["Outcome", "run_msnb", "run_torch"]


@dataclass
class Outcome:
    """What running an example did."""

    error: str | None
    stdout: str
    tensors: dict = field(default_factory=dict)
    fallbacks: int = 0

    def same_as(self, other: "Outcome") -> bool:
        return self.error == other.error and self.stdout == other.stdout and self.tensors == other.tensors


def _tensor_values(ns: dict) -> dict:
    import numpy as np

    out = {}
    for name, value in ns.items():
        if name.startswith("_") or not (hasattr(value, "detach") and hasattr(value, "shape")):
            continue
        try:
            out[name] = np.asarray(value.detach().numpy()).round(5).tolist()
        except Exception as exc:  # noqa: BLE001 - record what could not be read
            out[name] = f"unreadable: {type(exc).__name__}"
    return out


def _user_lines(text: str) -> str:
    """stdout without msnb's own notes (compile progress, fallback lines)."""
    return "\n".join(ln for ln in text.splitlines()
                     if not ln.startswith("msnb") and "%msnb explain" not in ln and not ln.startswith("compiled "))


def _exec_all(sources, ns) -> str | None:
    """Each cell is written to a file first, so ``inspect.getsource`` (which
    MindSpore's ``@ms.jit`` needs) finds its source."""
    try:
        for n, src in enumerate(sources):
            path = os.path.abspath(f"cell_{n}.py")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(src)
            exec(compile(src, path, "exec"), ns)  # noqa: S102 - the point of the test
    except BaseException as exc:  # noqa: BLE001 - an example may raise anything
        return type(exc).__name__
    return None


@contextlib.contextmanager
def _in_tmpdir():
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(old)


_RUNTIME = []


def _runtime():
    if not _RUNTIME:
        from msnb.runtime import Runtime
        from msnb.settings import Settings

        _RUNTIME.append(Runtime(Settings(), say=lambda s: None, show=lambda b: None))
    return _RUNTIME[0]


def run_msnb(code: str, context=(), mode: str = "pynative") -> Outcome:
    """Run ``context`` cells then ``code`` with ``import torch`` bound to msnb."""
    rt = _runtime()
    ns = {"__name__": "__main__"}
    buf = io.StringIO()
    with _in_tmpdir(), contextlib.redirect_stdout(buf):
        with rt.scope(rt.options(mode=mode)):
            graph = sys.modules.get("msnb.adapter.graph")
            before = len(graph.fallbacks()) if graph else 0
            error = _exec_all((*context, code), ns)
            graph = sys.modules.get("msnb.adapter.graph")
            fallbacks = (len(graph.fallbacks()) if graph else 0) - before
        tensors = _tensor_values(ns)
    return Outcome(error, _user_lines(buf.getvalue()), tensors, fallbacks)


def run_torch(code: str, context=()) -> Outcome:
    """Run the same cells on real PyTorch (the oracle)."""
    import torch  # noqa: F401 - real PyTorch must be importable

    ns = {"__name__": "__main__"}
    buf = io.StringIO()
    with _in_tmpdir(), contextlib.redirect_stdout(buf):
        error = _exec_all((*context, code), ns)
        tensors = _tensor_values(ns)
    return Outcome(error, _user_lines(buf.getvalue()), tensors)
