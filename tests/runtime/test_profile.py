"""``--profile``: a table of the cell's torch calls (calls, time, where they
ran) shown after the cell as HTML and text; ``MSNB_FAIL_ON_FALLBACK=1`` makes
host and graph fallbacks errors."""

from __future__ import annotations

import pytest

from msnb.runtime import profile, report

CELL = ("import torch\nnet = torch.nn.Linear(3, 2)\nfor _ in range(4):\n"
        "    y = net(torch.ones(5, 3))\nz = torch.matmul(y, torch.ones(2, 2))\n")


def profiled(ip, kind="calls", mode="pynative"):
    from msnb.runtime import Runtime

    shown = []
    runtime = Runtime(say=lambda line: None, show=shown.append)
    options = runtime.options(mode=mode, analyze=False)
    runtime.run_cell(ip, CELL, options, profile=kind)
    return shown[-1]


def test_table_counts_calls_and_says_where_they_ran(ip):
    bundle = profiled(ip)
    text, page = bundle["text/plain"], bundle["text/html"]
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.startswith("torch.")}
    assert rows["torch.nn.Linear"][1] == "4" and rows["torch.ones"][1] == "5" and rows["torch.matmul"][1] == "1"
    assert all("MindSpore kernels" in " ".join(r) for r in rows.values())
    assert text.splitlines()[-1] == "host fallbacks: none"
    assert "<table>" in page and "<code>torch.nn.Linear</code>" in page


def test_lines_adds_per_line_times(ip):
    text = profiled(ip, "lines")["text/plain"]
    lines = text.split("per line:")[1].splitlines()
    # line 5 of the cell as the user sees it (line 1 is the %%torch_on_ascend line)
    assert any(line.split()[0] == "5" and "net(torch.ones(5, 3))" in line for line in lines[1:]), lines


def test_graph_mode_calls_are_shown_as_compiled_graphs(ip):
    text = profiled(ip, mode="graph")["text/plain"]
    linear = next(line for line in text.splitlines() if line.startswith("torch.nn.Linear "))
    assert "compiled graph" in linear


def test_host_fallback_is_listed_with_its_reason():
    with profile.Profiler() as prof:
        profile.host_fallback("torch.linalg.svd", "no MindSpore CPU kernel")
    assert prof.host == [("torch.linalg.svd", "no MindSpore CPU kernel")]
    assert "torch.linalg.svd: no MindSpore CPU kernel" in prof.render_text()


def test_fail_on_fallback_turns_host_and_graph_fallbacks_into_errors(monkeypatch):
    monkeypatch.setenv("MSNB_FAIL_ON_FALLBACK", "1")
    with pytest.raises(profile.FallbackError, match="torch.linalg.svd ran on the host"):
        profile.host_fallback("torch.linalg.svd", "no kernel")
    with pytest.raises(profile.FallbackError, match="graph mode fell back"):
        report.record_fallback("forward runs in PyNative: .item() at line 3")
    monkeypatch.setenv("MSNB_FAIL_ON_FALLBACK", "0")
    profile.host_fallback("torch.linalg.svd", "no kernel")  # no profiler, no error: nothing happens


def test_no_profiler_is_installed_when_off(ip, run):
    import sys

    run("%%torch_on_ascend --no-analyze\nimport sys\nseen = sys.getprofile()")
    assert ip.user_ns["seen"] is None and profile.active() is None and sys.getprofile() is None
