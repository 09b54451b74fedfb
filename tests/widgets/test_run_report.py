"""``msnb.runtime.report``: the record of what the last cell did (the panel's data source)."""

from __future__ import annotations

import pytest

from msnb.runtime import report


@pytest.fixture(autouse=True)
def clean():
    report.clear()
    yield
    report.clear()


def test_a_cell_run_is_recorded_with_graph_step_and_fallback_data():
    seen = []
    report.subscribe(seen.append)
    try:
        run = report.record_start({"mode": "graph", "amp": "O1", "device": "auto"})
        assert report.current() is run and report.last() is None
        report.record_graph(0.5)
        report.record_graph(0.25)
        for s in (0.01, 0.03):
            report.record_step(s)
        report.record_fallback("data-dependent control flow", mode="pynative")
        report.record_finish(run)
    finally:
        report.unsubscribe(seen.append)
    assert seen == [run] and report.last() is run and report.current() is None
    d = run.as_dict()
    assert d["graphs_compiled"] == 2 and d["compile_time"] == 0.75 and d["steps"] == 2
    assert d["step_time"] == pytest.approx(0.02) and d["mode"] == "pynative" and d["ok"]
    assert d["fallbacks"] == ["data-dependent control flow"] and "_started" not in d


def test_recording_outside_a_cell_does_nothing_and_errors_are_kept():
    report.record_graph(1.0)
    report.record_fallback("x")
    assert report.current() is None and report.last() is None
    run = report.record_finish(report.record_start({"mode": "pynative", "amp": "O0", "device": "cpu"}),
                               ValueError("bad"))
    assert not run.ok and run.error == "ValueError: bad" and run.wall_time >= 0


def test_a_failing_subscriber_warns_instead_of_failing_the_cell():
    def broken(_):
        raise RuntimeError("panel gone")

    report.subscribe(broken)
    try:
        with pytest.warns(UserWarning, match="panel gone"):
            report.record_finish(report.record_start({"mode": "pynative", "amp": "O0", "device": "cpu"}))
    finally:
        report.unsubscribe(broken)
    assert report.last().ok
