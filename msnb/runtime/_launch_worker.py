"""What msrun starts in each process of an ``msnb launch`` job (not imported by msnb itself).

``python _launch_worker.py [EXEC OPTIONS] -- SCRIPT ARGS...``.  msrun's
scheduler process only serves the cluster (``mindspore.communication.init``);
a worker gets torchrun's environment, records its pid and exit code in
``$MSNB_JOB_DIR`` (the launcher watches them), and runs the script as
``msnb exec`` would.
"""

from __future__ import annotations

import os
import sys
import traceback


def _serve_cluster() -> int:
    from mindspore import communication
    communication.init()
    return 0


def _worker(argv) -> int:
    rank = int(os.environ.get("RANK_ID", os.environ.get("MS_NODE_ID", "0")))
    nproc = os.environ.get("MSNB_JOB_NPROC", os.environ.get("MS_WORKER_NUM", "1"))
    node = int(os.environ.get("MSNB_JOB_NODE_RANK", "0"))
    os.environ.update({"RANK": str(rank), "LOCAL_RANK": str(rank - node * int(nproc)),
                       "WORLD_SIZE": os.environ.get("MS_WORKER_NUM", nproc), "LOCAL_WORLD_SIZE": nproc,
                       "GROUP_RANK": str(node), "MASTER_ADDR": os.environ.get("MS_SCHED_HOST", "127.0.0.1"),
                       "MASTER_PORT": os.environ.get("MS_SCHED_PORT", "")})
    run_dir = os.environ.get("MSNB_JOB_DIR")
    if run_dir:
        with open(os.path.join(run_dir, f"pid.{rank}"), "w", encoding="ascii") as f:
            f.write(str(os.getpid()))
    code = 1
    try:
        from msnb.cli import main
        code = main(["exec", *argv])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - the traceback goes to this rank's log
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        if run_dir:
            with open(os.path.join(run_dir, f"exit.{rank}"), "w", encoding="ascii") as f:
                f.write(str(code))
    return code


def main(argv) -> int:
    if "--" in argv:
        cut = argv.index("--")
        argv = argv[:cut] + argv[cut + 1:]
    if os.environ.get("MS_ROLE") == "MS_SCHED":
        return _serve_cluster()
    return _worker(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
