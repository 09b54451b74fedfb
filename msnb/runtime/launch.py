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

__all__ = ["launch", "launch_source", "free_port", "msrun_command", "WorkersFailed", "WORKER"]

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


def msrun_command(script: str, args: Sequence[str], nproc: int, port: int, run_dir: str, *, nnodes: int = 1,
                  node_rank: int = 0, master_addr: str | None = None,
                  exec_options: Sequence[str] = ()) -> list[str]:
    """msrun's command line for this machine's ``nproc`` workers of an ``nnodes``-machine job.

    torchrun's ``--nnodes``/``--node-rank``/``--master-addr`` become msrun's
    ``--worker_num`` (``nnodes * nproc``), ``--node_rank`` and
    ``--master_addr``; global ranks are ``node_rank * nproc + local rank``."""
    cmd = [_msrun(), f"--worker_num={nnodes * nproc}", f"--local_worker_num={nproc}", f"--master_port={port}",
           f"--node_rank={node_rank}"]  # rank ids = node_rank * nproc + worker index, as torchrun's RANK
    if master_addr:
        cmd.append(f"--master_addr={master_addr}")
    return cmd + [f"--log_dir={run_dir}", "--join=True", "--tail_worker_log=-1",
                  WORKER, *exec_options, "--", os.path.abspath(script), *args]


def launch(script: str, args: Sequence[str] = (), nproc: int = 1, *, master_port: int | None = None,
           exec_options: Sequence[str] = (), out: TextIO | None = None, err: TextIO | None = None,
           log_dir: str | None = None, nnodes: int = 1, node_rank: int = 0, master_addr: str | None = None) -> int:
    """Run ``script ARGS`` on ``nproc`` workers of this machine; return the job's exit code.

    ``exec_options`` are ``msnb exec`` flags (``--mode graph`` ...) given to
    every worker.  With ``nnodes > 1`` the same call runs on every machine,
    each with its ``node_rank`` and the scheduler's ``master_addr`` and
    ``master_port`` (node 0 hosts the scheduler).  Returns 0 when every
    worker of this machine exits 0, else the first failing worker's code (1
    when it died from a signal)."""
    out = out or sys.stdout
    err = err or sys.stderr
    if nproc < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {nproc}")
    if nnodes < 1 or not 0 <= node_rank < nnodes:
        raise ValueError(f"--node-rank must be in [0, --nnodes) (got node rank {node_rank} of {nnodes} nodes)")
    if nnodes > 1 and not master_port:
        raise ValueError("a job on several machines needs --master-port (and --master-addr: node 0's address)")
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
    env["MSNB_JOB_NODE_RANK"] = str(node_rank)
    cmd = msrun_command(script, args, nproc, port, str(run_dir), nnodes=nnodes, node_rank=node_rank,
                        master_addr=master_addr, exec_options=exec_options)
    msrun = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    verbose = "--verbose" in exec_options
    ranks = range(node_rank * nproc, (node_rank + 1) * nproc)
    tails = [_Tail(run_dir / f"worker_{k}.log", k, out, verbose) for k in ranks]
    pids: dict[int, int] = {}
    code = None
    try:
        while True:
            for t in tails:
                t.pump()
            for k in ranks:
                if k not in pids and (run_dir / f"pid.{k}").is_file():
                    text = (run_dir / f"pid.{k}").read_text().strip()
                    if text:
                        pids[k] = int(text)
            codes = {k: (run_dir / f"exit.{k}").read_text().strip() for k in ranks
                     if (run_dir / f"exit.{k}").is_file()}
            codes = {k: int(v) for k, v in codes.items() if v}
            failed = sorted(k for k, c in codes.items() if c != 0)
            dead = sorted(k for k, pid in pids.items() if k not in codes and not _alive(pid))
            if dead and not failed:
                time.sleep(_POLL)  # it may have written its exit code as it went
                gone = [k for k in dead if not (run_dir / f"exit.{k}").is_file()]
                if gone:
                    # every rank found dead in this poll: which one went first cannot be told
                    # (a killed rank can take its peers down with it within one poll)
                    who = ", ".join(f"rank {k} (pid {pids[k]})" for k in gone)
                    err.write(f"msnb launch: {who} died without finishing "
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


class WorkersFailed(RuntimeError):
    """A multi-worker cell's job failed; the failing rank's traceback was shown above, prefixed ``[rank k]``.

    IPython shows only this message (``_render_traceback_``), not the launcher's frames."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


#: line 1 of a cell run on workers (the magic line's place): the notebook's folder is importable, as in the kernel
_CELL_PRELUDE = "import os as _msnb_os, sys as _msnb_sys; _msnb_sys.path.insert(1, _msnb_os.getcwd()); " \
                "del _msnb_os, _msnb_sys\n"


def launch_source(source: str, nproc: int, exec_options: Sequence[str] = (), *, out: TextIO | None = None,
                  err: TextIO | None = None) -> int:
    """Run Python ``source`` (a cell) as a script on ``nproc`` workers; the job's exit code.

    Line ``k`` of ``source`` is line ``k + 1`` of the file the workers run,
    so tracebacks give the line numbers of a cell whose line 1 is its magic."""
    with tempfile.TemporaryDirectory(prefix="msnb-cell-") as folder:
        path = os.path.join(folder, "cell.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(_CELL_PRELUDE + source)
        return launch(path, [], nproc, exec_options=exec_options, out=out, err=err)
