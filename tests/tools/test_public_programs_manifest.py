"""``tools/public_programs``: every manifest entry can be run as written (a
typo in a data generator's name, a metric pattern without its group or a
``stop_after`` the runner cannot honour would only show after a long run),
and the runner's stop/verdict rules behave as the docs say.  No public
program is run here."""

import re
import sys
import tomllib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2] / "tools" / "public_programs"
sys.path.insert(0, str(HERE))
import run  # noqa: E402
import synthetic  # noqa: E402

ENTRIES = tomllib.loads((HERE / "manifest.toml").read_text())["program"]
KEYS = {"id", "repo", "path", "args", "data", "metric", "seeded", "compare", "timeout", "stop_after", "extract"}


def test_ids_are_unique():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_entry_is_runnable_as_written(entry):
    assert set(entry) <= KEYS, set(entry) - KEYS
    assert entry["repo"].count("/") == 1 and entry["path"].endswith((".py", ".ipynb"))
    assert all(isinstance(a, str) for a in entry.get("args", []))
    assert all(name in synthetic.GENERATORS for name in entry.get("data", []))
    assert re.compile(entry["metric"], flags=re.M).groups == 1
    assert entry.get("compare", "exact") in ("exact", "converge", "none")
    if "stop_after" in entry:
        assert isinstance(entry["stop_after"], int) and entry["stop_after"] >= 1


def test_stop_after_ends_the_run_at_the_nth_metric_line(tmp_path):
    """The reduced runs (dynamic_net, the GAN) rely on this: the run stops
    right after the N-th matching line, never reads past it."""
    prog = tmp_path / "p.py"
    prog.write_text("import time\nfor i in range(10):\n    print(i, 0.5 / (i + 1), flush=True)\ntime.sleep(60)\n")
    res = run.run_once([sys.executable, str(prog)], tmp_path, 50, None, (r"^[0-9]+ ([0-9.]+)$", 3))
    assert res["code"] == "stopped"
    assert run.metric(res["stdout"], r"^[0-9]+ ([0-9.]+)$") == pytest.approx(0.5 / 3)


def test_verdicts():
    entry = {"seeded": True}
    ok = lambda m: {"code": 0, "metric": m}  # noqa: E731
    assert run.verdict(entry, ok(20.4906), ok(20.4905), 1e-4) == "same"
    assert run.verdict(entry, ok(10.0), ok(10.5), 1e-4) == "close"
    assert run.verdict(entry, ok(0.0446), ok(0.0891), 1e-4) == "differs"
    assert run.verdict(entry, ok(1.0), {"code": "timeout", "metric": None}, 1e-4) == "FAILS"
    assert run.verdict({"compare": "none"}, ok(1.0), {"code": "stopped", "metric": 9.0}, 1e-4) == "runs"
