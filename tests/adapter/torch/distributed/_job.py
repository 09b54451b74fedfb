"""Run a worker script of this folder on 2 CPU workers with ``msnb launch`` and read its results."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

from msnb.runtime.launch import launch

HERE = Path(__file__).parent


def run_workers(script: str, out_dir: Path, nproc: int = 2, exec_options=()) -> tuple[int, list[dict], str, float]:
    """(exit code, each rank's JSON, what the launcher printed, seconds)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    code = launch(str(HERE / script), [str(out_dir)], nproc, exec_options=exec_options, out=out, err=err)
    took = time.monotonic() - start
    ranks = [json.loads(p.read_text()) for p in sorted(out_dir.glob("rank*.json"))]
    return code, ranks, out.getvalue() + err.getvalue(), took


def ranks_of(script: str, tmp_path_factory, exec_options=()) -> list[dict]:
    """Each rank's JSON from a job that must succeed on 2 workers (a module fixture's body)."""
    code, ranks, printed, _ = run_workers(script, tmp_path_factory.mktemp(Path(script).stem),
                                          exec_options=exec_options)
    assert code == 0, printed
    assert len(ranks) == 2, printed
    return ranks
