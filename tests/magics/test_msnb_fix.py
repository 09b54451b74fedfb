"""``%msnb fix``: the analyzer's rewrite of the last analyzed cell is shown as
a diff and placed in the next input -- never applied behind the user's back."""


def test_fix_shows_diff_and_sets_next_input(run, ip, capsys, monkeypatch):
    from msnb.runtime import analysis

    analysis.reset_history()
    payloads = []
    monkeypatch.setattr(ip, "set_next_input", lambda text, replace=False: payloads.append((text, replace)))
    run("%%torch_on_ascend\nimport torch\nx = torch.ones(3).cuda()\ny = x * 2\n")
    capsys.readouterr()
    run("%msnb fix")
    out = capsys.readouterr().out
    assert "-x = torch.ones(3).cuda()" in out and "+x = torch.ones(3).to(device)" in out
    (text, replace), = payloads
    assert replace is False and ".cuda()" not in text and text.startswith("%%torch_on_ascend")
    run("%msnb fix --replace")
    assert payloads[-1] == (text, True)


def test_fix_with_nothing_to_fix_says_so(run, ip, capsys):
    from msnb.runtime import analysis

    analysis.reset_history()
    run("%msnb fix")
    assert "no analyzed cell yet" in capsys.readouterr().out
    run("%%torch_on_ascend\nimport torch\ny = torch.ones(2) + 1\n")
    capsys.readouterr()
    run("%msnb fix")
    assert "nothing to fix" in capsys.readouterr().out


def test_earlier_cells_inform_the_analysis_of_later_ones(run, ip, capsys):
    """``loss`` is known to be a tensor from the previous cell, so the
    format-spec note appears on the second cell."""
    from msnb.runtime import analysis

    analysis.reset_history()
    run("%%torch_on_ascend\nimport torch\nloss = torch.ones(())\n")
    capsys.readouterr()
    run("%%torch_on_ascend\nmsg = f'{loss:.4f}'\n")
    assert ip.user_ns["msg"] == "1.0000"
    assert "MSN301" not in capsys.readouterr().out  # advice: not shown on a cell that runs
    run("%msnb analyze --all")
    assert "MSN301" in capsys.readouterr().out
