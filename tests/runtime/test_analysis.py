"""The analyzer hook, driven by a fake analyzer injected with monkeypatch."""

import sys
import types
from dataclasses import dataclass

import pytest


@dataclass
class Finding:
    code: str
    severity: str
    message: str


@pytest.fixture
def fake_analyzer(monkeypatch):
    """Replace msnb.analyzer with one returning the findings the test sets."""
    calls, findings = [], []
    analyzer = types.ModuleType("msnb.analyzer")
    report = types.ModuleType("msnb.analyzer.report")

    def analyze(source, mode, context=()):
        calls.append((source, mode))
        return list(findings)

    analyzer.analyze, analyzer.report = analyze, report
    report.render_text = lambda fs: "\n".join(f"{f.code} {f.message}" for f in fs)
    report.render_html = lambda fs: "<ul>" + "".join(f"<li>{f.code}</li>" for f in fs) + "</ul>"
    monkeypatch.setitem(sys.modules, "msnb.analyzer", analyzer)
    monkeypatch.setitem(sys.modules, "msnb.analyzer.report", report)
    return calls, findings


def test_error_finding_stops_the_cell(run, ip, fake_analyzer, capsys):
    calls, findings = fake_analyzer
    findings.append(Finding("MSN101", "error", "x.cuda() has no MindSpore meaning"))
    result = run("%%torch_on_ascend --mode graph\nran_it = 1\n", ok=False)
    assert not result.success and "ran_it" not in ip.user_ns
    assert calls == [("%%torch_on_ascend --mode graph\nran_it = 1\n", "graph")]
    out = capsys.readouterr().out
    assert "MSN101 x.cuda() has no MindSpore meaning" in out
    assert "msnb: cell not run: 1 error finding(s) above" in out
    assert "Traceback" not in out


def test_warning_is_shown_and_cell_runs(run, ip, fake_analyzer, capsys):
    findings = fake_analyzer[1]
    findings.append(Finding("MSN201", "warning", "in-place update"))
    run("%%torch_on_ascend\nran_warn = 1\n")
    assert ip.user_ns["ran_warn"] == 1
    assert "MSN201 in-place update" in capsys.readouterr().out


def test_no_analyze_skips_the_analyzer(run, ip, fake_analyzer):
    calls, findings = fake_analyzer
    findings.append(Finding("MSN101", "error", "bad"))
    run("%%torch_on_ascend --no-analyze\nran_skip = 1\n")
    run("%torch_on_ascend --no-analyze")
    run("%%torch_on_ascend\nran_skip2 = 1\n")
    assert calls == [] and ip.user_ns["ran_skip2"] == 1
