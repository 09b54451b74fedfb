"""The PyTorch side of a comparison: ``python -m msnb.compare.child IN OUT``.

Reads the job msnb wrote (cell source, inputs, the random states msnb had
before the cell), imports the real ``torch``, restores those states, runs
the cell with a :class:`~msnb.compare.record.Recorder` attached, and writes
the records (or why it could not run) to ``OUT``.  It never imports msnb's
adapter, so ``import torch`` is PyTorch.
"""

from __future__ import annotations

import linecache
import pickle
import random
import sys
import traceback

__all__ = ["main", "run_job", "error_info"]


def error_info(exc: BaseException, filename: str) -> dict:
    """Type, message and the innermost cell line of an exception."""
    line = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if fs.filename == filename:
            line = fs.lineno
    return {"type": type(exc).__name__, "message": str(exc).splitlines()[0] if str(exc) else "", "line": line}


def run_job(job: dict) -> dict:
    try:
        import numpy as np
        import torch
    except ImportError as exc:
        return {"status": "no-torch", "message": str(exc)}
    from msnb.compare.record import Recorder, hooks_torch
    from msnb.compare.transfer import decode_inputs

    rng = job["rng"]
    torch.set_rng_state(torch.from_numpy(np.array(rng["torch"], dtype=np.uint8)))
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])
    filename = job["filename"]
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    namespace.update(decode_inputs(job["inputs"], torch))
    rec = Recorder(torch.is_tensor, cell_files={filename}, max_steps=job["max_steps"])
    error = None
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = list(job.get("argv") or [filename])
    if job.get("argv"):  # a script: its folder first on sys.path, as `python script.py` does
        import os
        sys.path.insert(0, os.path.dirname(os.path.abspath(filename)))
        namespace["__file__"] = filename
    try:
        for i, block in enumerate(job["preamble"]):
            exec(compile(block, f"<msnb-compare-preamble-{i}>", "exec"), namespace)
        linecache.cache[filename] = (len(job["source"]), None, job["source"].splitlines(True), filename)
        with hooks_torch(torch, rec):
            exec(compile(job["source"], filename, "exec"), namespace)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            error = {"type": "SystemExit", "message": str(exc.code), "line": None}
    except BaseException as exc:  # noqa: BLE001 - the cell's own error is a result, not a crash
        error = error_info(exc, filename)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return {"status": "ran", "error": error, **rec.payload()}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], "rb") as f:
        job = pickle.load(f)
    result = run_job(job)
    with open(argv[1], "wb") as f:
        pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
