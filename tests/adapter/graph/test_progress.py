"""A compile that takes a while says that it is compiling, then how long it took."""

import msnb.adapter.torch as torch
from msnb.adapter.graph import region


def _compile_one_linear(monkeypatch, after):
    monkeypatch.setattr(region, "PROGRESS_AFTER", after)
    net = torch.nn.Linear(3, 3)
    with torch.no_grad():
        for _ in range(3):  # the 2nd call records and compiles
            net(torch.ones(2, 3))


def test_slow_compile_shows_progress_and_time(graph_mode, capsys, monkeypatch):
    _compile_one_linear(monkeypatch, 0.0)
    out = capsys.readouterr().out
    assert "msnb graph: compiling Linear.forward ..." in out
    assert "msnb graph: compiled Linear.forward in " in out


def test_fast_compile_is_quiet(graph_mode, capsys, monkeypatch):
    _compile_one_linear(monkeypatch, 60.0)
    assert "compil" not in capsys.readouterr().out
