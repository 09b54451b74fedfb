"""``msnb launch`` parses torchrun's flags and refuses bad input before starting msrun."""

from __future__ import annotations

from msnb.cli import build_parser, main


def test_torchrun_flag_spellings_parse():
    for flag in ("--nproc-per-node", "--nproc_per_node"):
        args = build_parser().parse_args(["launch", flag, "2", "--mode", "graph", "train.py", "--lr", "0.1"])
        assert (args.nproc, args.mode, args.script, args.args) == (2, "graph", "train.py", ["--lr", "0.1"])


def test_missing_script_and_bad_count_exit_2_with_a_message(tmp_path, capsys):
    assert main(["launch", "--nproc-per-node", "2", str(tmp_path / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    script = tmp_path / "ok.py"
    script.write_text("print('hi')\n")
    assert main(["launch", "--nproc-per-node", "0", str(script)]) == 2
    assert "at least 1" in capsys.readouterr().err
