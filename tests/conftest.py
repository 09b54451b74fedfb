"""Shared fixtures: one real IPython shell with msnb loaded, for the session.

Tests run real cells with ``ip.run_cell`` and assert on ``ip.user_ns``, the
way IPython's autoreload tests do.  MindSpore is told to log errors only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("GLOG_v", "3")
# kernel choices measured per host (msnb/adapter/_tuning.py) would make the suite's
# convolution plans depend on timing and write to the user's cache: the suite uses
# the constants-based plans; tests/adapter/test_tuning.py turns measuring on itself
os.environ.setdefault("MSNB_KERNEL_TUNING", "0")

REPO = Path(__file__).resolve().parents[1]


def _launch_as_msnb_does():
    """In-process tests call the adapter directly, without a cell binding the
    device: launch kernels the way msnb would on this host (synchronously on
    a CPU host with few cores; tests/adapter/torch/test_async_launch.py runs
    the asynchronous path in a child process)."""
    import mindspore

    from msnb.runtime.context import set_launch

    set_launch(mindspore, "CPU")


_launch_as_msnb_does()


@pytest.fixture(scope="session")
def ip():
    """A real InteractiveShell with ``%load_ext msnb`` done once."""
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython()
    shell.run_line_magic("load_ext", "msnb")
    yield shell
    shell.run_line_magic("unload_ext", "msnb")


@pytest.fixture
def run(ip):
    """Run one cell; fail the test if it should succeed and did not."""
    from msnb.settings import settings

    def run_cell(source: str, ok: bool = True):
        result = ip.run_cell(source, store_history=True)
        if ok and not result.success:
            raise AssertionError(f"cell failed: {result.error_in_exec or result.error_before_exec!r}")
        return result

    yield run_cell
    settings.reset()


@pytest.fixture
def python():
    """Run the venv's Python in a child process; returns CompletedProcess."""

    def run_child(*args: str, cwd: str | os.PathLike | None = None, timeout: float = 120):
        path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
        env = dict(os.environ, GLOG_v="3", PYTHONPATH=path)
        return subprocess.run(
            [sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout
        )

    return run_child


@pytest.fixture
def make_notebook(tmp_path):
    """Write a notebook from cell sources (``"# md: ..."`` makes a markdown
    cell) and return its path; for the migration and CLI tests."""
    import nbformat

    def write(name: str, cells, *, minor: int = 5, language: str = "python", outputs: bool = False):
        nb = nbformat.v4.new_notebook()
        nb.nbformat_minor = minor
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": language}
        for i, src in enumerate(cells):
            if src.startswith("# md: "):
                cell = nbformat.v4.new_markdown_cell(src[len("# md: "):])
            else:
                cell = nbformat.v4.new_code_cell(src, metadata={"tags": [f"t{i}"]})
                if outputs:
                    cell.execution_count = i + 1
                    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"out {i}\n")]
            if minor < 5:
                cell.pop("id", None)
            nb.cells.append(cell)
        path = tmp_path / name
        nbformat.write(nb, str(path))
        return path

    return write


@pytest.fixture
def documented_schema():
    """The JSON schema in the fenced ```json <tag> block of docs/cli.md."""
    import json
    import re

    def schema(tag: str) -> dict:
        text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
        match = re.search(r"```json " + re.escape(tag) + r"\n(.*?)```", text, re.S)
        assert match, f"docs/cli.md has no {tag} block"
        return json.loads(match.group(1))

    return schema


def pytest_terminal_summary(terminalreporter):
    """One line: how many registry entries differential tests (``compare``
    and friends in ``tests/adapter/torch/harness.py``) exercised and passed."""
    harness = next((m for name, m in list(sys.modules.items())
                    if name.endswith("adapter.torch.harness") and hasattr(m, "COVERED")), None)
    if harness is None:
        return
    from msnb.adapter.support import load_registry

    reg = set(load_registry())
    covered = harness.COVERED & reg
    top = {n for n in reg if n.startswith("torch.") and not n.startswith("torch.Tensor.")}
    ten = {n for n in reg if n.startswith("torch.Tensor.")}
    terminalreporter.write_line(
        f"msnb differential coverage: {len(covered)}/{len(reg)} registry entries "
        f"(torch.*: {len(covered & top)}/{len(top)}, torch.Tensor.*: {len(covered & ten)}/{len(ten)})")
