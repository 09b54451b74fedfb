"""``msnb launch``: a worker that dies ends the whole job quickly, with nothing left running.

msrun alone keeps the surviving rank waiting in its collective for minutes."""

from __future__ import annotations

import io
import os
import time

from msnb.runtime.launch import launch

from ._job import HERE


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _job_processes(run_dir) -> list[int]:
    """Processes (msrun, its scheduler, workers) whose environment names this job's directory."""
    mark = f"MSNB_JOB_DIR={run_dir}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if mark in f.read().split(b"\0") and _alive(int(entry)):
                        found.append(int(entry))
            except OSError:
                pass
    return found


def test_a_killed_worker_ends_the_job_within_10s_without_orphans(tmp_path):
    """Rank 1 is SIGKILLed 1 s after it is ready; rank 0 is blocked in all_reduce loops."""
    out, err = io.StringIO(), io.StringIO()
    run_dir = tmp_path / "logs"
    code = launch(str(HERE / "dying_worker.py"), [str(tmp_path), "kill"], 2, out=out, err=err,
                  log_dir=str(run_dir))
    ended = time.time()
    printed = out.getvalue()
    assert "[rank 1] rank 1 ready" in printed  # rank 0 may still be starting when rank 1 dies
    died_at = os.path.getmtime(tmp_path / "pid1") + 1.0
    assert ended - died_at < 10, ended - died_at
    print(f"job ended {ended - died_at:.1f} s after rank 1 was killed")
    pids = [int((tmp_path / f"pid{k}").read_text()) for k in (0, 1) if (tmp_path / f"pid{k}").is_file()]
    assert pids and not any(_alive(p) for p in pids)
    assert _job_processes(run_dir) == []
    assert code == 1
    assert "rank 1" in err.getvalue() and "died without finishing" in err.getvalue()


def test_an_exception_on_one_rank_ends_all_with_its_traceback_and_exit_code(tmp_path):
    """Rank 0 may not have got as far as recording its pid when rank 1 fails (a
    loaded host starts it later): what must hold is that no process of the job
    is left, which the job-directory scan checks whatever each rank reached."""
    out, err = io.StringIO(), io.StringIO()
    run_dir = tmp_path / "logs"
    code = launch(str(HERE / "dying_worker.py"), [str(tmp_path), "raise"], 2, out=out, err=err,
                  log_dir=str(run_dir))
    assert code == 1
    assert "[rank 1] ValueError: rank 1 failed on purpose" in out.getvalue()
    assert "rank 1 exited with code 1" in err.getvalue()
    recorded = [int((tmp_path / f"pid{k}").read_text()) for k in (0, 1) if (tmp_path / f"pid{k}").is_file()]
    assert not any(_alive(p) for p in recorded)
    assert _job_processes(run_dir) == []
