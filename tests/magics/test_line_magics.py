"""%torch_on_ascend (session defaults) and %msnb status."""

from msnb.settings import settings


def test_line_magic_sets_defaults_for_later_cells(run, ip, capsys):
    run("%torch_on_ascend --mode graph --amp O2")
    assert (settings.mode, settings.amp) == ("graph", "O2")
    run("%%torch_on_ascend\nimport mindspore as ms\nfrom msnb.runtime.context import active\n"
        "later = ms.get_context('mode'), active().amp\n")
    import mindspore as ms

    assert ip.user_ns["later"] == (ms.GRAPH_MODE, "O2")
    run("%%torch_on_ascend --amp O0\nfrom msnb.runtime.context import active\nflag_wins = active().amp\n")
    assert ip.user_ns["flag_wins"] == "O0"
    assert "msnb defaults: mode=graph" in capsys.readouterr().out


def test_status_shows_mode_amp_device_and_version(run, capsys):
    run("%torch_on_ascend --amp O1")
    run("%msnb status")
    out = capsys.readouterr().out
    for expected in ("mode:", "pynative", "amp:", "O1", "device:", "auto", "mindspore:", "2.10.0"):
        assert expected in out


def test_unknown_subcommand_is_a_usage_error(run, capsys):
    assert not run("%msnb frobnicate", ok=False).success
    captured = capsys.readouterr()
    assert "unknown %msnb subcommand 'frobnicate'" in captured.out + captured.err
