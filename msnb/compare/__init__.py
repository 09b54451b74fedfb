"""``--compare``: run a cell under msnb and, in a separate process, under real
PyTorch, and show where their numbers part.

Both sides start from the same random state (msnb's generator is PyTorch's
mt19937, so its state bytes are set in the PyTorch process; Python's and
numpy's global states travel too) and the same inputs (the names the cell
reads, see :mod:`.transfer`).  Each side records every module call's outputs
and output gradients, the losses ``backward`` is called on and the optimizer
steps (:mod:`.record`); :mod:`.report` matches the records by step, module
path and call index and marks each row pass / warn / fail with msprobe's
thresholds.  The cell runs once in the msnb process (its side effects happen
once); the PyTorch process starts before it and runs alongside.

Entry points: :func:`compare` (Python), :func:`run_cell_compared`
(``%%torch_on_ascend --compare``) and :func:`run_script_compared`
(``msnb exec --compare``).
"""

from __future__ import annotations

import linecache
import os
import pickle
import random
import subprocess
import sys
import tempfile
import types
from typing import Any, Callable

from .report import INSTALL_HINT, CompareReport, Thresholds, build_report

__all__ = ["compare", "CompareReport", "Thresholds", "thresholds", "run_cell_compared", "run_script_compared",
           "JSON_PATH"]

#: thresholds the magic and ``msnb exec`` use; change the fields to configure them
thresholds = Thresholds()
#: where ``--compare=json`` writes the full table (in the working directory)
JSON_PATH = "msnb-compare.json"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Child:
    """The PyTorch process: started with the job, collected after msnb's run."""

    def __init__(self, job: dict, python: str | None, env: dict | None):
        self.dir = tempfile.TemporaryDirectory(prefix="msnb-compare-")
        self.job_path = os.path.join(self.dir.name, "job.pkl")
        self.out_path = os.path.join(self.dir.name, "out.pkl")
        with open(self.job_path, "wb") as f:
            pickle.dump(job, f, protocol=pickle.HIGHEST_PROTOCOL)
        child_env = dict(os.environ if env is None else env)
        child_env["PYTHONPATH"] = os.pathsep.join(p for p in (child_env.get("PYTHONPATH"), _ROOT) if p)
        child_env.setdefault("GLOG_v", "3")
        self.proc = subprocess.Popen([python or sys.executable, "-m", "msnb.compare.child", self.job_path,
                                      self.out_path], env=child_env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)

    def result(self) -> dict:
        out, err = self.proc.communicate()
        try:
            if self.proc.returncode == 0 and os.path.exists(self.out_path):
                with open(self.out_path, "rb") as f:
                    return pickle.load(f)
            last = (err or out or "").strip().splitlines()
            return {"status": "crashed", "message": last[-1] if last else f"exit code {self.proc.returncode}"}
        finally:
            self.dir.cleanup()


def _random_states(seed) -> dict:
    import numpy as np

    import msnb.adapter.torch as mt
    if seed is not None:
        mt.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed % 2 ** 32)
    return {"torch": mt.get_rng_state().numpy(), "python": random.getstate(), "numpy": np.random.get_state()}


def _start(source: str, namespace: dict, filename: str, seed, python, env, max_steps, argv=None):
    from .transfer import encode_inputs
    inputs, preamble, not_sent = encode_inputs(source, namespace)
    job = {"source": source, "filename": filename, "inputs": inputs, "preamble": preamble,
           "rng": _random_states(seed), "max_steps": max_steps, "argv": argv}
    return _Child(job, python, env), not_sent


def _finish(child: _Child, rec, msnb_error, not_sent, th, line_offset=0) -> CompareReport:
    res = child.result()
    extra = dict(msnb_error=msnb_error, not_sent=not_sent, line_offset=line_offset)
    if res["status"] == "no-torch":
        return build_report(rec.payload(), None, th, torch_missing=f"{INSTALL_HINT} ({res['message']})", **extra)
    if res["status"] == "crashed":
        return build_report(rec.payload(), None, th, torch_missing=f"the PyTorch process failed: {res['message']}",
                            **extra)
    return build_report(rec.payload(), res, th, torch_error=res["error"], **extra)


def _run_msnb_side(run: Callable[[], Any], cell_files, max_steps):
    """Run the cell once under msnb with the recorder attached: (recorder, value, error, exception)."""
    from msnb.adapter.torch._core import TensorPy

    from .child import error_info
    from .record import Recorder, hooks_msnb
    rec = Recorder(lambda x: isinstance(x, TensorPy), cell_files=cell_files, max_steps=max_steps)
    value = exc = err = None
    with hooks_msnb(rec):
        try:
            value = run()
        except BaseException as e:  # noqa: BLE001 - reported, then re-raised by the callers that should
            exc = e
            err = error_info(e, next(iter(cell_files), ""))
    return rec, value, err, exc


def compare(source: str, namespace: dict | None = None, *, seed: int | None = None,
            thresholds: Thresholds | None = None, json_path: str | None = None, python: str | None = None,
            env: dict | None = None, max_steps: int = 50, mode: str | None = None) -> CompareReport:
    """Run ``source`` under msnb (in ``namespace``, default a fresh one) and under real
    PyTorch in a child process; return the :class:`CompareReport` (it renders as a
    table).  ``seed`` seeds both sides first (default: msnb's current random state is
    handed to PyTorch).  ``python`` / ``env`` choose the child's interpreter and
    environment (the one with PyTorch installed).  Exceptions of the cell, on either
    side, are reported, not raised."""
    from msnb.runtime import Runtime
    namespace = {"__name__": "__main__"} if namespace is None else namespace
    filename = "<msnb-compare-cell>"
    runtime = Runtime(say=lambda line: None)
    options = runtime.options(mode=mode)
    with runtime.scope(options):
        child, not_sent = _start(source, namespace, filename, seed, python, env, max_steps)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
        rec, _, err, _ = _run_msnb_side(lambda: exec(code, namespace), {filename}, max_steps)
    report = _finish(child, rec, err, not_sent, thresholds or globals()["thresholds"])
    if json_path:
        report.write_json(json_path)
    return report


def _show(report: CompareReport, how: str, say: Callable[[str], None] | None = None) -> None:
    if how == "json":
        report.write_json(JSON_PATH)
    if say is not None:
        say(str(report))
    else:
        from IPython.display import display
        display(report)
    if how == "json":
        (say or print)(f"full comparison table written to {os.path.abspath(JSON_PATH)}")


def run_cell_compared(runtime, shell, body: str, options: dict, whole: str, how: str = "table") -> Any:
    """``%%torch_on_ascend --compare``: the cell runs once through ``runtime.run_cell``
    (analyzer, scope, namespace pins as usual) with the recorder attached."""
    __tracebackhide__ = True
    text = "\n" + shell.transform_cell(body)
    from msnb.runtime.cell import cell_number
    filename = shell.compile.get_code_name("\n" + body, text, cell_number(shell))  # as runtime.cell names it
    with runtime.scope(options):  # the adapter is imported for the state and the recorder
        child, not_sent = _start("\n" + body, shell.user_ns, "<cell>", None, None, None, 50)
    rec, value, err, exc = _run_msnb_side(lambda: runtime.run_cell(shell, body, options, cell=whole),
                                          {filename}, 50)
    _show(_finish(child, rec, err, not_sent, thresholds), how)
    if exc is not None:
        raise exc
    return value


def run_script_compared(runtime, path: str, args, options: dict, how: str = "table") -> None:
    """``msnb exec --compare``: the script runs once under msnb, and under PyTorch."""
    from msnb.runtime.script import run_script
    with open(path, encoding="utf-8") as f:
        source = f.read()
    full = os.path.abspath(path)
    with runtime.scope(options):
        child, not_sent = _start(source, {"__file__": full}, full, None, None, None, 50, argv=[path, *args])
    rec, _, err, exc = _run_msnb_side(lambda: run_script(runtime, path, args, options), {full, path}, 50)
    _show(_finish(child, rec, err, not_sent, thresholds), how, say=lambda s: print(s, file=sys.stderr))
    if exc is not None:
        raise exc


class _CallableModule(types.ModuleType):
    """``msnb.compare(...)`` calls :func:`compare`; the package stays importable as a module."""

    def __call__(self, *args, **kwargs):
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
