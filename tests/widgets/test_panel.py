"""The control panel, headless: set ``.value`` and assert on the settings and
the runtime; change the settings and assert on the widgets."""

from __future__ import annotations

import pytest
import traitlets
from IPython.utils.capture import capture_output

import msnb
from msnb.runtime import report
from msnb.settings import Settings, settings as shared
from msnb.widgets.panel import ControlPanel, render_report


@pytest.fixture
def fresh():
    s = Settings()
    yield s


def test_widgets_write_the_settings(fresh):
    p = ControlPanel(fresh, ascend=False)
    p.mode.value = "graph"
    p.amp.value = "O2"
    p.device.value = "cpu"
    p.analyze.value = False
    assert fresh.snapshot() == dict(mode="graph", amp="O2", device="cpu", analyze=False, verbose=False,
                                    advice=False, ignore=())
    p.device.buttons["auto"].value = True  # pressing a button is the same as setting .value
    assert fresh.device == "auto" and not p.device.buttons["cpu"].value


def test_settings_changes_reach_every_live_panel(fresh):
    a, b = ControlPanel(fresh, ascend=False), ControlPanel(fresh, ascend=False)
    a.amp.value = "O3"
    assert b.amp.value == "O3"
    fresh.update(mode="graph", analyze=False, device="cpu")
    for p in (a, b):
        assert (p.mode.value, p.analyze.value, p.device.value) == ("graph", False, "cpu")
        assert p.device.buttons["cpu"].value and not p.device.buttons["auto"].value


def test_unavailable_device_is_disabled(fresh):
    p = ControlPanel(fresh, ascend=False)
    assert p.device.buttons["ascend"].disabled and not p.device.buttons["cpu"].disabled
    with pytest.raises(traitlets.TraitError, match="not available"):
        p.device.value = "ascend"
    assert fresh.device == "auto" and p.device.value == "auto"
    fresh.update(device="ascend")  # chosen by a flag anyway: the panel shows it, the cell will refuse it
    assert p.device.value == "ascend"
    q = ControlPanel(fresh, ascend=lambda: True)
    assert not q.device.buttons["ascend"].disabled


def test_rejected_change_goes_to_the_error_area_and_is_undone():
    class NoGraph(Settings):
        def update(self, **changes):
            if changes.get("mode") == "graph":
                raise ValueError("graph mode is switched off here")
            super().update(**changes)

    s = NoGraph()
    p = ControlPanel(s, ascend=False)
    p.mode.value = "graph"
    assert p.mode.value == "pynative" and s.mode == "pynative"
    assert "graph mode is switched off here" in p.errors.outputs[-1]["text"]


def test_closed_panels_stop_listening(fresh):
    p = ControlPanel(fresh, ascend=False)
    p.close()
    fresh.update(amp="O1")
    assert p.amp.value == "O0" and not fresh._observers
    assert p._on_report not in report._subscribers


def test_render_report_shows_what_the_cell_did():
    rep = report.RunReport("graph", "O2", "auto", target="CPU", wall_time=1.5, graphs_compiled=2,
                           compile_time=0.25, step_time=0.012, fallbacks=["print() in step"])
    text = render_report(rep)
    for part in ("graph", "O2", "auto on CPU", "1.50 s", ">2<", "250.0 ms", "12.0 ms", "print() in step"):
        assert part in text
    assert "no %%torch_on_ascend cell" in render_report(None)
    assert "&lt;b&gt;" in render_report(report.RunReport("pynative", "O0", "cpu", ok=False, error="E: <b>"))


def test_line_magic_flags_show_in_a_live_panel(ip, run):
    p = msnb.panel(ascend=False)
    assert p.settings is shared
    run("%torch_on_ascend --mode graph --amp O1")
    assert (p.mode.value, p.amp.value) == ("graph", "O1")
    p.amp.value = "O0"
    assert shared.amp == "O0"
    p.close()


def test_status_shows_the_last_cell_after_a_real_cell(ip, run):
    p = msnb.panel(ascend=False)
    p.amp.value = "O2"  # applies from the next cell on
    run("%%torch_on_ascend --no-analyze\nimport torch\nt_out = torch.ones(2) * 3")
    last = report.last()
    assert (last.mode, last.amp, last.device, last.target, last.ok) == ("pynative", "O2", "auto", "CPU", True)
    assert last.wall_time > 0
    assert "O2" in p.status.value and "auto on CPU" in p.status.value
    run("%%torch_on_ascend --amp O3 --no-analyze\nraise KeyError('boom')", ok=False)
    assert report.last().amp == "O3" and not report.last().ok
    assert "KeyError" in p.status.value and "boom" in p.status.value
    p.close()


def test_msnb_panel_subcommand_displays_a_panel(ip):
    with capture_output() as out:
        assert ip.run_line_magic("msnb", "panel") is None
    assert any("application/vnd.jupyter.widget-view+json" in o.data for o in out.outputs)
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match="takes no arguments"):
        ip.run_line_magic("msnb", "panel extra")


def test_advice_switch_writes_the_advice_setting_both_ways(fresh):
    """Issue #14.2: advice (info findings) is off by default and the panel
    has the switch for it, bound to the same setting ``%msnb analyze --all`` reads."""
    p = ControlPanel(fresh, ascend=False)
    assert p.advice.value is False and fresh.advice is False
    p.advice.value = True
    assert fresh.advice is True
    assert "advice=on" in p.summary()
    fresh.update(advice=False)
    assert p.advice.value is False
    p.close()


def test_advice_switch_shows_info_findings_on_the_next_cell(ip, run, capsys):
    """With the panel's advice switch on, a cell that runs as on PyTorch shows
    its info finding (``.cuda()``: MSN101) before it runs; off, nothing."""
    cell = "%%torch_on_ascend\nimport torch\nx_adv = torch.ones(3).cuda()\n"
    p = msnb.panel(ascend=False)
    run(cell)
    assert "MSN101" not in capsys.readouterr().out
    p.advice.value = True
    run(cell)
    assert "MSN101" in capsys.readouterr().out
    p.advice.value = False
    run(cell)
    assert "MSN101" not in capsys.readouterr().out
    p.close()
