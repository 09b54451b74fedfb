"""Run public PyTorch programs under real PyTorch and under msnb, side by side.

    python tools/public_programs/run.py --mirrors /work/.mirror [--only ID ...] [--json OUT]

``--torch-python`` (or ``$MSNB_TORCH_PYTHON``) names the reference interpreter:
it needs real torch *and* torchvision (and what the programs import, e.g.
``requests`` for gat), which msnb's own venv does not have.

``--mirrors`` holds git directories as the search tool's ``fetch`` leaves them
(``owner+name/repo``).  For each manifest entry the runner extracts the
program's folder into a fresh temp directory (nothing is copied into msnb),
writes the synthetic data it reads (``synthetic.py``), then runs it twice as
separate processes: ``--torch-python`` (default: this interpreter) with real
PyTorch, and ``msnb exec``.  It prints one row per program: exit codes, wall
times, the last metric value each run printed, and a verdict:

* ``same``: both exit 0 and the metrics agree within ``--rtol`` (seeded
  programs; msnb draws PyTorch's random streams);
* ``close``: both exit 0 and the final metrics are within 10%;
* ``runs``: msnb exits 0 and the reference did not (e.g. no real torchvision
  in the reference interpreter);
* ``FAILS``: msnb did not finish; the row says the last error line.

Notebooks (``.ipynb``) run through ``nbdriver.py`` (every code cell in order).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import synthetic  # noqa: E402

MANIFEST = HERE / "manifest.toml"


def extract(mirrors: Path, repo: str, path: str, dest: Path, extra=()) -> Path:
    """Check the program's top folder (and the manifest's ``extract`` paths,
    e.g. a helper package beside a notebook) out of the mirror into ``dest``;
    return the program's path there."""
    gitdir = mirrors / repo.replace("/", "+") / "repo"
    if not gitdir.is_dir():
        raise FileNotFoundError(f"{repo} is not under {mirrors} (fetch github:{repo} first)")
    folder = str(Path(path).parent) if len(Path(path).parts) > 1 else "."
    archive = subprocess.run(["git", f"--git-dir={gitdir}", "archive", "HEAD", folder], capture_output=True)
    if archive.returncode != 0:  # a large data file the snapshot lacks: the folder's Python files and the program
        archive = subprocess.run(["git", f"--git-dir={gitdir}", "archive", "HEAD", f"{folder}/*.py", path],
                                 capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    if extra:
        more = subprocess.run(["git", f"--git-dir={gitdir}", "archive", "HEAD", *extra], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=more.stdout, check=True)
    return dest / path


def run_once(cmd, cwd, timeout, env, stop=None):
    """Run ``cmd``; with ``stop = (pattern, n)`` end it once its output had ``n``
    lines matching ``pattern`` (exit code ``"stopped"``): a program that trains
    until solved is compared over its first ``n`` logged values."""
    t = time.time()
    if stop is None:
        try:
            p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
            code, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as exc:
            code = "timeout"
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return {"code": code, "seconds": round(time.time() - t, 1), "stdout": out, "stderr": err}
    pattern, n = stop
    with tempfile.TemporaryFile("w+") as errf:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=errf, text=True, env=env)
        expired = []
        timer = threading.Timer(timeout, lambda: (expired.append(1), proc.kill()))
        timer.start()
        lines, seen, code = [], 0, None
        for line in proc.stdout:
            lines.append(line)
            seen += bool(re.search(pattern, line))
            if seen >= n:
                proc.kill()
                code = "stopped"
                break
        proc.wait()
        timer.cancel()
        if code is None:
            code = "timeout" if expired else proc.returncode
        errf.seek(0)
        return {"code": code, "seconds": round(time.time() - t, 1), "stdout": "".join(lines), "stderr": errf.read()}


def metric(text: str, pattern: str):
    vals = re.findall(pattern, text, flags=re.M)
    if not vals:
        return None
    last = vals[-1]
    try:
        return float(last)
    except ValueError:
        return last


def last_error(res) -> str:
    lines = [ln for ln in (res["stderr"] + "\n" + res["stdout"]).splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^\w*(Error|Exception|Interrupt)\b|^\w+Error:", ln.strip()) or "not supported by msnb" in ln:
            return ln.strip()[:160]
    return lines[-1].strip()[:160] if lines else ""


def verdict(entry, ref, ours, rtol):
    """``compare`` in the manifest: ``exact`` (seeded: within rtol), ``converge``
    (unseeded training: final metric within 10%) or ``none`` (values depend on
    unseeded random draws; only running counts).  A notebook whose same cells
    fail under both (data it downloads) is ``same cells fail in both``."""
    ok = (0, "stopped")
    if ours["code"] not in ok:
        if ours["code"] == ref["code"] and ours.get("metric") is not None and ours.get("metric") == ref.get("metric"):
            return "same cells fail in both"
        return "FAILS"
    if ref["code"] not in ok:
        return "runs"
    how = entry.get("compare", "exact" if entry.get("seeded") else "converge")
    a, b = ref.get("metric"), ours.get("metric")
    if how == "none":
        return "runs"
    if isinstance(a, float) and isinstance(b, float):
        if abs(a - b) <= rtol * max(abs(a), 1e-12):
            return "same"
        if abs(a - b) <= 0.1 * max(abs(a), 1e-12):
            return "close"
        return "differs"
    return "same" if a == b and a is not None else "differs"


def run_program(entry, mirrors, torch_python, msnb_cmd, rtol, keep):
    work = Path(tempfile.mkdtemp(prefix="msnb-prog-"))
    try:
        prog = extract(mirrors, entry["repo"], entry["path"], work, entry.get("extract", ()))
        cwd = prog.parent
        synthetic.make(entry.get("data", []), cwd)
        env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
        args = list(entry.get("args", []))
        target = [str(HERE / "nbdriver.py"), str(prog)] if prog.suffix == ".ipynb" else [str(prog)]
        timeout = entry.get("timeout", 300)
        stop = (entry["metric"], entry["stop_after"]) if "stop_after" in entry else None
        ref = run_once([torch_python, *target, *args], cwd, timeout, env, stop)
        for junk in cwd.glob("*.pt"):  # a checkpoint the reference wrote must not feed msnb's run
            if junk.name != "traindata.pt":
                junk.unlink()
        ours = run_once([*msnb_cmd, *target, *args], cwd, timeout, env, stop)
        for r in (ref, ours):
            r["metric"] = metric(r["stdout"], entry["metric"])
        row = {"id": entry["id"], "reference": ref, "msnb": ours, "verdict": verdict(entry, ref, ours, rtol),
               "error": last_error(ours) if ours["code"] not in (0, "stopped") else ""}
        return row
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def table(rows) -> str:
    head = f"{'program':42} {'torch':>8} {'t(s)':>6} {'msnb':>8} {'t(s)':>6} {'torch metric':>14} " \
           f"{'msnb metric':>14}  verdict"
    out = [head, "-" * len(head)]
    for r in rows:
        ref, ours = r["reference"], r["msnb"]
        fmt = lambda v: "" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v)[:14])  # noqa: E731
        out.append(f"{r['id']:42} {str(ref['code']):>8} {ref['seconds']:>6} {str(ours['code']):>8} "
                   f"{ours['seconds']:>6} {fmt(ref['metric']):>14} {fmt(ours['metric']):>14}  {r['verdict']}")
        if r["error"]:
            out.append(f"{'':42}   msnb: {r['error']}")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    p.add_argument("--manifest", type=Path, default=MANIFEST)
    p.add_argument("--only", nargs="*", help="program ids (a trailing / or * matches a prefix)")
    p.add_argument("--torch-python", default=os.environ.get("MSNB_TORCH_PYTHON", sys.executable),
                   help="interpreter with real PyTorch and torchvision (default: $MSNB_TORCH_PYTHON, else this one; "
                        "msnb's own venv has torch but no torchvision, and NumPy 1.26 where MindSpore needs it)")
    p.add_argument("--msnb", default=str(Path(sys.executable).with_name("msnb")), help="the msnb command")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--json", type=Path, help="write every run's output here")
    p.add_argument("--keep", action="store_true", help="keep the temp folders")
    args = p.parse_args(argv)
    entries = tomllib.loads(args.manifest.read_text())["program"]
    if args.only:
        entries = [e for e in entries if any(e["id"] == o or (o.endswith(("/", "*")) and
                                                              e["id"].startswith(o.rstrip("*"))) for o in args.only)]
    rows = []
    for e in entries:
        if rows:  # progress: the table so far (and the JSON), so an interrupted run keeps what it measured
            print(table(rows[-1:]).splitlines()[-1 if not rows[-1]["error"] else -2], file=sys.stderr, flush=True)
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
        print(f"running {e['id']} ...", file=sys.stderr, flush=True)
        try:
            rows.append(run_program(e, args.mirrors, args.torch_python, [args.msnb, "exec"], args.rtol, args.keep))
        except (OSError, subprocess.CalledProcessError) as exc:
            none = {"code": "-", "seconds": 0, "stdout": "", "stderr": "", "metric": None}
            rows.append({"id": e["id"], "reference": none, "msnb": none, "verdict": "FAILS",
                         "error": f"could not set up: {exc}"})
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0 if all(r["verdict"] != "FAILS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
