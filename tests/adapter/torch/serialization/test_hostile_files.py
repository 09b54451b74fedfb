"""Hostile checkpoints never crash, change or take over the kernel.

Each generated file (``_hostile.py``: bad sizes/strides/offsets, state
setting on classes, allocation bombs, zip bombs, code payloads, zip
traversal names, deep nesting, legacy and plain pickles, polyglots,
truncations, bit flips) is loaded in one child process with an address-space
cap (``_load_child.py``).  The suite asserts: the child exits normally, no
payload ran (the canary file is absent and nothing was written), msnb's
state is unchanged after every file, peak memory stays bounded, and every
refusal is a ``RuntimeError`` / ``pickle.UnpicklingError`` with a short
message naming the problem (never a raw internal exception).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from . import _hostile

CHILD = Path(__file__).with_name("_load_child.py")
REPO = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    files = tmp_path_factory.mktemp("hostile")
    canary = files / "CANARY"
    cases = _hostile.cases(files, canary)
    manifest, result = files / "manifest.json", files.parent / "result.json"
    manifest.write_text(json.dumps([{"name": n, "file": f, "modes": list(m)} for n, f, m, _ in cases]))
    listing = sorted(os.listdir(files))
    env = dict(os.environ, PYTHONPATH=str(REPO), GLOG_v="3")
    proc = subprocess.run([sys.executable, str(CHILD), str(manifest), str(result)], cwd=files, env=env,
                          capture_output=True, text=True, timeout=300)
    return {"proc": proc, "cases": cases, "canary": canary, "listing_before": listing,
            "listing_after": sorted(os.listdir(files)),
            "data": json.loads(result.read_text()) if result.exists() else None}


def test_child_survives_every_file(run):
    """No file crashes the interpreter (exit code 0, results written)."""
    proc = run["proc"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert run["data"] is not None
    assert len(run["data"]["results"]) == sum(len(m) for _, _, m, _ in run["cases"])


def test_no_side_effect(run):
    """No payload ran: the canary is absent and no file appeared next to the checkpoints."""
    assert not run["canary"].exists()
    assert run["listing_after"] == run["listing_before"]


def test_msnb_state_unchanged_after_every_file(run):
    """Size, device, dtypes, OrderedDict and the rebuild functions are as before each load."""
    bad = [r["name"] for r in run["data"]["results"] if not r["state_ok"]]
    assert bad == []


def test_memory_and_time_bounded(run):
    """Bombs are refused before allocating: peak RSS grows < 600 MB, no file takes > 10 s."""
    assert run["data"]["peak_growth_kb"] < 600 * 1024
    slow = [(r["name"], round(r["seconds"], 1)) for r in run["data"]["results"] if r["seconds"] > 10]
    assert slow == []


def test_every_refusal_is_one_clear_sentence(run):
    """Refusals are RuntimeError/UnpicklingError (ValueError only where PyTorch raises it), short, with
    no chained internal exception, and match the kind of bad file."""
    expect = {name: exp for name, _, _, exp in run["cases"]}
    problems = []
    for r in run["data"]["results"]:
        exp = expect[r["name"]]
        if r["outcome"] == "loaded":
            if exp is not None:
                problems.append((r["name"], r["weights_only"], "loaded but must be refused"))
            continue
        msg = r["message"]
        if r["type"] not in ("RuntimeError", "UnpicklingError"):
            problems.append((r["name"], r["weights_only"], r["type"], msg[:200]))
        elif r["has_cause"] or len(msg) > 700 or "Traceback" in msg:
            problems.append((r["name"], r["weights_only"], "unclear", msg[:200]))
        elif exp is not None and not __import__("re").search(exp, msg):
            problems.append((r["name"], r["weights_only"], f"expected /{exp}/", msg[:300]))
    assert problems == [], "\n".join(map(repr, problems))
