"""Analyzer controls in the notebook (issue #14.2/#14.3): ``--ignore`` for a
cell, ``%msnb ignore`` for the session (kept in ``settings.ignore``), unknown
codes as one-line UsageErrors, ``%msnb analyze [--all]``."""

from __future__ import annotations

BLOCKED = "%%torch_on_ascend\nimport torch\nx = torch.ones(3)\ny = x.int_repr()\n"


def test_error_finding_blocks_and_cell_ignore_lets_it_run(run, ip, capsys):
    from msnb.runtime import analysis

    analysis.reset_history()
    result = run(BLOCKED, ok=False)
    out = capsys.readouterr().out
    assert not result.success and "MSN401" in out and "--ignore" in out
    result = run(BLOCKED.replace("%%torch_on_ascend", "%%torch_on_ascend --ignore MSN401"), ok=False)
    assert "MSN401 error" not in capsys.readouterr().out
    assert type(result.error_in_exec).__name__ == "NotSupportedError"  # the cell ran, and msnb said why


def test_session_ignore_is_a_setting_and_reset(run, ip, capsys):
    from msnb.settings import settings

    run("%msnb ignore MSN401,msn301")
    assert settings.ignore == ("MSN301", "MSN401")
    assert "MSN301, MSN401" in capsys.readouterr().out
    run(BLOCKED, ok=False)
    assert "MSN401 error" not in capsys.readouterr().out
    run("%msnb ignore --reset")
    assert settings.ignore == ()


def test_unknown_codes_are_one_line_usage_errors(run, ip):
    for line in ("%msnb ignore MSN999", "%%torch_on_ascend --ignore NOPE\nx = 1\n"):
        result = run(line, ok=False)
        err = result.error_in_exec or result.error_before_exec
        assert type(err).__name__ == "UsageError" and "unknown rule code" in str(err) and "\n" not in str(err)


def test_analyze_shows_errors_and_all_adds_advice(run, ip, capsys):
    from msnb.runtime import analysis

    analysis.reset_history()
    run("%%torch_on_ascend\nimport torch\nx = torch.ones(3).cuda()\n")
    assert capsys.readouterr().out == ""  # runs as on PyTorch: nothing shown
    run("%msnb analyze")
    assert "no findings" in capsys.readouterr().out
    run("%msnb analyze --all")
    assert "MSN101" in capsys.readouterr().out
