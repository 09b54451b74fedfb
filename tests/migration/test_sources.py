"""Every kind of bad input is refused with one clear sentence naming the file."""

import json
from pathlib import Path

import nbformat
import pytest

from msnb.migration.sources import InputError, iter_paths, load_source


def refused(path) -> str:
    with pytest.raises(InputError) as info:
        load_source(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message
    return message


def test_notebook_and_script_load_with_their_cells(make_notebook, tmp_path):
    nb = load_source(make_notebook("a.ipynb", ["# md: title", "import torch"], minor=4))
    assert nb.kind == "notebook" and [c.cell_type for c in nb.cells] == ["markdown", "code"]
    assert (nb.nb.nbformat, nb.nb.nbformat_minor) == (4, 4)  # read without conversion
    (tmp_path / "s.py").write_text("import torch\n")
    script = load_source(tmp_path / "s.py")
    assert script.kind == "script" and script.cells[0].index is None
    assert script.location(script.cells[0], 12, 5).endswith("s.py:12:5")
    assert nb.location(nb.cells[1], 2, 5).endswith("a.ipynb:cell 2:2:5")


def test_not_json(tmp_path):
    (tmp_path / "x.ipynb").write_text("{not json")
    assert "not a notebook: invalid JSON at line 1" in refused(tmp_path / "x.ipynb")


def test_json_without_nbformat(tmp_path):
    (tmp_path / "x.ipynb").write_text("[1, 2]")
    assert "no 'nbformat' field" in refused(tmp_path / "x.ipynb")


def test_nbformat_invalid(tmp_path):
    (tmp_path / "x.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}}))
    assert "not a valid nbformat 4 notebook: The notebook is invalid and is missing an expected key: cells" in refused(tmp_path / "x.ipynb")


def test_nbformat_invalid_cell(make_notebook):
    path = make_notebook("x.ipynb", ["x = 1"])
    raw = json.loads(path.read_text())
    raw["cells"][0]["cell_type"] = "spreadsheet"
    path.write_text(json.dumps(raw))
    assert "not a valid nbformat 4 notebook" in refused(path)


def test_nbformat_3(tmp_path):
    nb3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    (tmp_path / "old.ipynb").write_text(json.dumps(nb3))
    assert "nbformat 3 notebook; msnb reads nbformat 4" in refused(tmp_path / "old.ipynb")


def test_non_python_kernel(make_notebook):
    path = make_notebook("r.ipynb", ["print(1)"], language="R")
    assert "runs r, not Python" in refused(path)


def test_missing_path_folder_and_unknown_type(tmp_path):
    assert "no such file or folder" in refused(tmp_path / "gone.ipynb")
    (tmp_path / "d.ipynb").mkdir()
    assert "is a folder" in refused(tmp_path / "d.ipynb")
    (tmp_path / "notes.txt").write_text("hi")
    assert "unsupported file type '.txt'" in refused(tmp_path / "notes.txt")


def test_unreadable_file(tmp_path, monkeypatch):
    """Tests run as root here, so chmod cannot make a file unreadable: the
    read itself is made to fail as it would for another user."""
    path = tmp_path / "locked.py"
    path.write_text("x = 1\n")

    def denied(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    assert "permission denied" in refused(path)


def test_binary_files(tmp_path):
    (tmp_path / "b.ipynb").write_bytes(b"PK\x03\x04\x00\x00binary")
    assert "binary file" in refused(tmp_path / "b.ipynb")
    (tmp_path / "b.py").write_bytes(b"\xff\xfe\x80 not utf-8")
    assert "not UTF-8 text" in refused(tmp_path / "b.py")


def test_folders_are_searched_skipping_checkpoints(make_notebook, tmp_path):
    make_notebook("a.ipynb", ["x = 1"])
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "s.py").write_text("x = 1\n")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    nbformat.write(nbformat.v4.new_notebook(), str(tmp_path / ".ipynb_checkpoints" / "a-checkpoint.ipynb"))
    (tmp_path / "readme.md").write_text("x")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_paths([tmp_path])]
    assert found == ["a.ipynb", "sub/s.py"]
