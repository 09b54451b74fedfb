"""Start N workers of a PyTorch script on MindSpore's launcher (``msrun``), like ``torchrun``.

Each worker runs the script as ``msnb exec`` does (torch on MindSpore), with
torchrun's environment: ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``.  Worker output is
shown line by line prefixed ``[rank k]``.

msrun itself does not end a job when one worker dies (the others wait in
their collectives for minutes), so :func:`launch` watches every worker: a
worker that exits with an error or disappears ends all of them, and the
launcher returns that worker's exit code.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence, TextIO

__all__ = ["launch", "free_port", "WORKER"]

#: the file msrun starts in every process (the worker bootstrap)
WORKER = str(Path(__file__).with_name("_launch_worker.py"))
_POLL = 0.2
#: MindSpore's own log lines (``[INFO] DISTRIBUTED(pid,...)``), shown only with ``--verbose``
_MS_LOG = re.compile(r"^\[(DEBUG|INFO|WARNING)\] [A-Z_]+\(\d+,")


def free_port() -> int:
    """A TCP port nothing listens on now (for msrun's scheduler)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _msrun() -> str:
    found = shutil.which("msrun", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if not found:
        raise FileNotFoundError("msnb launch needs MindSpore's `msrun` launcher (it comes with mindspore)")
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


class _Tail:
    """Follows one worker's log file and prints new complete lines with a ``[rank k]`` prefix."""

    def __init__(self, path: Path, rank: int, out: TextIO, verbose: bool = False):
        self.path, self.prefix, self.out, self.pos, self.rest = path, f"[rank {rank}] ", out, 0, ""
        self.verbose = verbose

    def pump(self, final: bool = False) -> None:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                f.seek(self.pos)
                chunk = f.read()
                self.pos = f.tell()
        except OSError:
            return
        text = self.rest + chunk
        lines = text.split("\n")
        self.rest = "" if final else lines.pop()
        for line in lines:
            if _MS_LOG.match(line) and not self.verbose:
                continue
            if line or not final:
                self.out.write(self.prefix + line + "\n")
        self.out.flush()


def _stop(pids, msrun: subprocess.Popen) -> None:
    """End every worker and msrun's process group (its scheduler); nothing is left behind."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            if _alive(pid):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        if msrun.poll() is None:
            try:
                os.killpg(msrun.pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and (msrun.poll() is None or any(_alive(p) for p in pids)):
            time.sleep(0.05)
        if msrun.poll() is not None and not any(_alive(p) for p in pids):
            return
    msrun.wait(timeout=5)


def launch(script: str, args: Sequence[str] = (), nproc: int = 1, *, master_port: int | None = None,
           exec_options: Sequence[str] = (), out: TextIO | None = None, err: TextIO | None = None,
           log_dir: str | None = None) -> int:
    """Run ``script ARGS`` on ``nproc`` workers (one machine); return the job's exit code.

    ``exec_options`` are ``msnb exec`` flags (``--mode graph`` ...) given to
    every worker.  Returns 0 when every worker exits 0, else the first
    failing worker's code (1 when it died from a signal)."""
    out = out or sys.stdout
    err = err or sys.stderr
    if nproc < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {nproc}")
    if not os.path.isfile(script):
        raise FileNotFoundError(f"can't open file {script!r}: no such file")
    port = master_port or free_port()
    own_dir = log_dir is None
    run_dir = Path(tempfile.mkdtemp(prefix="msnb-launch-") if own_dir else log_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    msnb_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = msnb_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("GLOG_v", "3")
    env["MSNB_JOB_DIR"] = str(run_dir)
    env["MSNB_JOB_NPROC"] = str(nproc)
    cmd = [_msrun(), f"--worker_num={nproc}", f"--local_worker_num={nproc}", f"--master_port={port}",
           "--node_rank=0",  # rank ids = worker index, so RANK matches dist.get_rank()
           f"--log_dir={run_dir}", "--join=True", "--tail_worker_log=-1",
           WORKER, *exec_options, "--", os.path.abspath(script), *args]
    msrun = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    verbose = "--verbose" in exec_options
    tails = [_Tail(run_dir / f"worker_{k}.log", k, out, verbose) for k in range(nproc)]
    pids: dict[int, int] = {}
    code = None
    try:
        while True:
            for t in tails:
                t.pump()
            for k in range(nproc):
                if k not in pids and (run_dir / f"pid.{k}").is_file():
                    text = (run_dir / f"pid.{k}").read_text().strip()
                    if text:
                        pids[k] = int(text)
            codes = {k: (run_dir / f"exit.{k}").read_text().strip() for k in range(nproc)
                     if (run_dir / f"exit.{k}").is_file()}
            codes = {k: int(v) for k, v in codes.items() if v}
            failed = sorted(k for k, c in codes.items() if c != 0)
            dead = sorted(k for k, pid in pids.items() if k not in codes and not _alive(pid))
            if dead and not failed:
                time.sleep(_POLL)  # it may have written its exit code as it went
                if not (run_dir / f"exit.{dead[0]}").is_file():
                    err.write(f"msnb launch: rank {dead[0]} (pid {pids[dead[0]]}) died without finishing "
                              "(killed by a signal or crashed); ending all ranks\n")
                    code = 1
                    break
                continue
            if failed:
                k = failed[0]
                err.write(f"msnb launch: rank {k} exited with code {codes[k]}; ending all ranks "
                          f"(its traceback is above, prefixed [rank {k}])\n")
                code = codes[k]
                break
            if len(codes) == nproc:
                code = 0
                break
            if msrun.poll() is not None and len(pids) < nproc:
                message = (msrun.stderr.read() or b"").decode(errors="replace").strip().splitlines()
                err.write("msnb launch: msrun ended before the workers started"
                          + (f": {message[-1]}" if message else "") + "\n")
                code = msrun.returncode or 1
                break
            time.sleep(_POLL)
    except KeyboardInterrupt:
        err.write("msnb launch: interrupted; ending all ranks\n")
        code = 130
    finally:
        _stop(list(pids.values()), msrun)
        for t in tails:
            t.pump(final=True)
        if msrun.stderr:
            msrun.stderr.close()
        if own_dir and code == 0:
            shutil.rmtree(run_dir, ignore_errors=True)
        elif own_dir:
            err.write(f"msnb launch: logs kept in {run_dir}\n")
    return code
