"""``torch.utils.benchmark`` against real PyTorch: the same Measurement fields and
summary layout, Compare's table layout, and real measurements (a statement that
sleeps 2 ms measures at least 2 ms per run; no upper bound, the host may be loaded)."""

from __future__ import annotations

import re
import time

import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torch.utils import benchmark as mb
from torch.utils import benchmark as rb


def _shape(text):
    """A printed summary with numbers and addresses masked: its layout."""
    text = re.sub(r"0x[0-9a-f]+", "ADDR", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    text = re.sub(r"(nano|micro|milli)?seconds", "UNITS", text)  # the unit follows the measured (loaded) time
    return re.sub(r"\b(ns|us|ms|s)\b", "UNIT", text)


def _timer(lib, bm, **kw):
    return bm.Timer("x + 1", globals={"x": lib.ones(10)}, label="add", sub_label="n=10", description="plus", **kw)


@pytest.mark.parametrize("how", ["timeit", "blocked_autorange", "adaptive_autorange"])
def test_measurement_fields_and_summary_match_pytorch(how):
    args = {"timeit": {"number": 50}, "blocked_autorange": {"min_run_time": 0.02},
            "adaptive_autorange": {"max_run_time": 0.05}}[how]
    r = getattr(_timer(real, rb), how)(**args)
    m = getattr(_timer(mt, mb), how)(**args)
    for attr in ("title", "env", "label", "sub_label", "description", "stmt", "num_threads"):
        assert getattr(m, attr) == getattr(r, attr), attr
    for attr in ("mean", "median", "iqr"):
        assert isinstance(getattr(m, attr), float) and getattr(m, attr) >= 0
    assert m.times == [t / m.number_per_run for t in m.raw_times]
    if how == "timeit":
        assert m.number_per_run == r.number_per_run == 50 and len(m.raw_times) == 1
        assert _shape(str(m)) == _shape(str(r))
    else:  # header, title and description (how many blocks ran depends on the host's speed and noise)
        assert _shape(str(m)).splitlines()[:3] == _shape(str(r)).splitlines()[:3]
        assert m.number_per_run >= 1 and len(m.raw_times) >= 1


def test_measurements_are_real_times():
    m = mb.Timer("time.sleep(0.002)", globals={"time": time}).timeit(3)
    assert m.median >= 0.002
    b = mb.Timer("time.sleep(0.002)", globals={"time": time}).blocked_autorange(min_run_time=0.02)
    assert b.median >= 0.002 and sum(b.raw_times) >= 0.02


def test_setup_and_torch_in_globals_match_pytorch():
    r = rb.Timer("y = x * 2", setup="x = torch.ones(3)").timeit(5)
    m = mb.Timer("y = x * 2", setup="x = torch.ones(3)").timeit(5)
    assert _shape(str(m)) == _shape(str(r))


def _compare_text(lib, bm):
    res = [bm.Timer("x + 1", globals={"x": lib.ones(n)}, label="add", sub_label=f"n={n}",
                    description=d).timeit(20) for n in (10, 1000) for d in ("a", "b")]
    c = bm.Compare(res)
    plain = str(c)
    c.trim_significant_figures()
    c.colorize()
    return plain, str(c)


def test_compare_table_layout_matches_pytorch():
    (rp, rc), (mp, mc) = _compare_text(real, rb), _compare_text(mt, mb)
    def strip(s):  # numbers' widths differ with the measured values: compare the layout
        return [re.sub("-+", "-", ln) for ln in _shape(s).replace(" ", "").splitlines() if ln.strip()]

    assert strip(mp) == strip(rp)
    assert "\033[" in mc and "\033[" in rc  # colorized
    assert re.search(r"Times are in (micro|milli|nano)?seconds", mp)


def test_compare_rejects_non_measurements_as_pytorch():
    with pytest.raises(ValueError):
        rb.Compare([1])
    with pytest.raises(ValueError):
        mb.Compare([1])


def test_cpp_timer_is_refused_by_name():
    from msnb.adapter.torch._missing import NotSupportedError
    with pytest.raises(NotSupportedError, match="language='c\\+\\+'"):
        mb.Timer("x", language="c++")


@pytest.mark.parametrize("stmt, setup", [
    ("x * y", "\n        x = torch.ones((128,))\n        y = torch.ones((128,))\n    "),
    ("\n    z = x + 1\n    z = z * 2\n", "x = torch.ones(3)"),
], ids=["indented setup", "indented statement"])
def test_indented_blocks_are_dedented_as_pytorch(stmt, setup):
    """The timer recipe writes its setup as an indented triple-quoted block: PyTorch dedents
    and strips statement and setup (what the measurement shows too)."""
    out = []
    for bench in (rb, mb):
        m = bench.Timer(stmt=stmt, setup=setup).timeit(3)
        out.append((m.stmt, m.task_spec.setup, m.number_per_run))
    assert out[0] == out[1]
