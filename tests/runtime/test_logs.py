"""StderrFilter drops MindSpore's C++ log lines from fd 2 and keeps the rest."""

import os

from msnb.runtime.logs import StderrFilter

MS_LINE = (
    b"[ERROR] CORE(3435,7f4a55471b80,python):2026-11-29-07:50:26.302.214 "
    b"[mindspore/core/utils/file_utils.cc:253] GetRealPath] Get realpath failed, path[<ipython-input-1-x>]\n"
)


def test_mindspore_lines_dropped_other_lines_kept(capfd):
    with StderrFilter():
        os.write(2, b"user line 1\n" + MS_LINE + b"user line 2\n")
    assert capfd.readouterr().err == "user line 1\nuser line 2\n"


def test_verbose_keeps_everything(capfd):
    with StderrFilter(active=False):
        os.write(2, MS_LINE)
    assert "GetRealPath" in capfd.readouterr().err


def test_fd_restored_after_exception(capfd):
    before = os.fstat(2)
    try:
        with StderrFilter():
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    after = os.fstat(2)
    assert (before.st_ino, before.st_dev) == (after.st_ino, after.st_dev)
    os.write(2, b"still here\n")
    assert capfd.readouterr().err == "still here\n"
