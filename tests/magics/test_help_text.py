"""``--help`` prints clean usage (no reST ``::``) for the cell magic, the line
magic and every ``%msnb`` subcommand."""

from __future__ import annotations

import pytest


def test_cell_and_line_magic_help(run, capsys):
    run("%%torch_on_ascend --help\nx = 1")
    cell = capsys.readouterr().out
    run("%torch_on_ascend --help")
    line = capsys.readouterr().out
    assert cell.startswith("usage: %%torch_on_ascend [-h] [--mode {pynative,graph}]")
    assert line.startswith("usage: %torch_on_ascend [-h]")
    for text in (cell, line):
        assert "::" not in text and "--profile" in text and "--no-analyze" in text


def test_every_msnb_subcommand_has_help(run, capsys):
    from msnb.magics.msnb_magic import SUBCOMMANDS

    for name in sorted(SUBCOMMANDS):
        run(f"%msnb {name} --help")
        text = capsys.readouterr().out
        assert text.startswith(f"usage: %msnb {name}"), (name, text)
        assert "::" not in text and len(text.splitlines()) >= 3, (name, text)


def test_msnb_help_lists_subcommands(run, capsys):
    run("%msnb --help")
    text = capsys.readouterr().out
    assert text.startswith("usage: %msnb SUBCOMMAND") and "status" in text and "fix" in text
