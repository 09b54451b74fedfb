"""``migrate_notebook`` / ``migrate_script``: what is added, fixed, kept and
never lost."""

import json
import os

import nbformat
import pytest

from msnb.migration import atomic
from msnb.migration.migrate import SUMMARY_KEY, migrate_notebook, migrate_path, migrate_script
from msnb.migration.sources import InputError

CELLS = ["# md: A PyTorch notebook",
         "import numpy as np\ndata = np.ones(3)",
         "import torch\nx = torch.ones(3).cuda()\nx.add_(1)",
         "y = torch.lobpcg(x, x)",
         "print(len(data))"]


def read(path):
    return nbformat.read(str(path), as_version=nbformat.NO_CONVERT)


def test_setup_magic_fixes_and_summary(make_notebook):
    src = make_notebook("nb.ipynb", CELLS, outputs=True)
    result = migrate_notebook(src)
    assert result.written and result.dst == src.with_name("nb_msnb.ipynb")
    nb = read(result.dst)
    sources = [c.source for c in nb.cells]
    assert sources[0] == "%load_ext msnb"
    assert nb.cells[1].cell_type == "markdown" and nb.cells[1].metadata[SUMMARY_KEY] is True
    assert sources[4] == ("%%torch_on_ascend\nimport torch\n"
                          'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
                          "x = torch.ones(3).to(device)\nx = x.add(1)")
    assert sources[5] == "%%torch_on_ascend\ny = torch.lobpcg(x, x)"
    summary = nb.cells[1].source
    assert "cell 5: added `%%torch_on_ascend`; safe fixes MSN101, MSN201" in summary
    assert "cell 6:2:5 MSN401 error: `torch.lobpcg` is not supported by msnb" in summary
    assert result.fixed == {"MSN101": 1, "MSN201": 1}


def test_untouched_cells_keep_outputs_and_metadata(make_notebook):
    src = make_notebook("nb.ipynb", CELLS, outputs=True)
    before, after = read(src), read(migrate_notebook(src).dst)
    assert after.cells[2] == before.cells[0]  # markdown
    assert after.cells[3] == before.cells[1]  # numpy only: outputs, count, id, tags
    assert after.cells[6] == before.cells[4]  # reads only numpy names
    changed = after.cells[4]
    assert changed.metadata == before.cells[2].metadata and changed.outputs == []
    assert changed.id == before.cells[2].id and changed.execution_count is None


def test_nbformat_version_is_kept(make_notebook):
    src = make_notebook("old.ipynb", CELLS, minor=4)
    raw = json.loads(migrate_notebook(src).dst.read_text())
    assert (raw["nbformat"], raw["nbformat_minor"]) == (4, 4)
    assert not any("id" in c for c in raw["cells"])


def test_no_fix_session_style_and_existing_magics(make_notebook):
    src = make_notebook("nb.ipynb", ["%load_ext msnb", "%%torch_on_ascend --mode graph\nimport torch\nx = torch.ones(2)",
                                     "z = x.cuda()"])
    nb = read(migrate_notebook(src, fix=False, style="session", mode="graph").dst)
    assert [c.source for c in nb.cells if c.cell_type == "code"] == [
        "%load_ext msnb\n%torch_on_ascend --mode graph", "%load_ext msnb",
        "%%torch_on_ascend --mode graph\nimport torch\nx = torch.ones(2)", "%%torch_on_ascend\nz = x.cuda()"]
    assert "MSN101" in nb.cells[1].source  # not fixed: needs a human


def test_other_cell_magics_are_left_for_a_human(make_notebook):
    src = make_notebook("nb.ipynb", ["import torch", "%%time\ny = torch.ones(2)"])
    result = migrate_notebook(src)
    assert read(result.dst).cells[3].source == "%%time\ny = torch.ones(2)"
    assert any("cell 4 starts with `%%time`" in n for n in result.needs_human)


def test_migrating_twice_replaces_the_summary(make_notebook, tmp_path):
    src = make_notebook("nb.ipynb", CELLS)
    once = migrate_notebook(src).dst
    twice = migrate_notebook(once, tmp_path / "again.ipynb")
    nb = read(twice.dst)
    assert sum(1 for c in nb.cells if c.get("metadata", {}).get(SUMMARY_KEY)) == 1
    first = read(once)
    assert [c.source for c in nb.cells][2:] == [c.source for c in first.cells][2:]
    assert nb.cells[0].source == "%load_ext msnb" and nb.cells[1].metadata[SUMMARY_KEY]
    assert "nothing in this run" in nb.cells[1].source and "MSN401" in nb.cells[1].source
    assert twice.fixed == {}


def test_diff_writes_nothing(make_notebook):
    src = make_notebook("nb.ipynb", CELLS)
    result = migrate_notebook(src, diff=True)
    assert not result.written and not result.dst.exists()
    assert "+%%torch_on_ascend" in result.diff and "-x.add_(1)" in result.diff and "+x = x.add(1)" in result.diff


def test_input_is_never_overwritten_without_in_place(make_notebook, tmp_path):
    src = make_notebook("nb.ipynb", CELLS)
    original = src.read_bytes()
    with pytest.raises(InputError, match="would overwrite the input"):
        migrate_notebook(src, src)
    (tmp_path / "out.ipynb").write_text("keep me")
    with pytest.raises(InputError, match="exists; use --force"):
        migrate_notebook(src, tmp_path / "out.ipynb")
    assert (tmp_path / "out.ipynb").read_text() == "keep me" and src.read_bytes() == original
    assert migrate_notebook(src, tmp_path / "out.ipynb", force=True).written


def test_in_place_keeps_a_backup(make_notebook):
    src = make_notebook("nb.ipynb", CELLS)
    original = src.read_bytes()
    result = migrate_notebook(src, in_place=True)
    assert result.backup == src.with_name("nb.ipynb.bak") and result.backup.read_bytes() == original
    assert read(src).cells[0].source == "%load_ext msnb"
    assert migrate_notebook(src, in_place=True).backup.name == "nb.ipynb.bak1"


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_failure_midway_leaves_the_old_file_intact(make_notebook, tmp_path, monkeypatch, failing):
    """The new content is written (fsync: after the bytes went to the
    temporary file; replace: at the rename), then the write fails."""
    src = make_notebook("nb.ipynb", CELLS)
    original = src.read_bytes()

    def boom(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, failing, boom)
    with pytest.raises(OSError, match="No space left"):
        migrate_notebook(src, in_place=True)
    monkeypatch.undo()
    assert src.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "nb.ipynb.bak") == ["nb.ipynb"]


def test_bad_input_writes_nothing(tmp_path):
    (tmp_path / "x.ipynb").write_text("not json")
    with pytest.raises(InputError, match="not a notebook"):
        migrate_notebook(tmp_path / "x.ipynb")
    assert sorted(os.listdir(tmp_path)) == ["x.ipynb"]


def test_script(tmp_path):
    src = tmp_path / "train.py"
    src.write_text("#!/usr/bin/env python\nimport torch\nx = torch.ones(2).cuda()\ny = torch.lobpcg(x, x)\n")
    result = migrate_path(src)
    text = result.dst.read_text()
    lines = text.split("\n")
    assert lines[0] == "#!/usr/bin/env python"
    assert lines[1] == "# msnb migrate: run with `msnb exec train_msnb.py`"
    assert lines[2] == "# msnb migrate: safe fixes applied: MSN101"
    fft_line = next(i for i, line in enumerate(lines, 1) if "lobpcg" in line and not line.startswith("#"))
    assert f"# msnb migrate: needs a human: line {fft_line}:5 MSN401 error" in text
    again = migrate_script(result.dst, tmp_path / "again.py")
    assert again.dst.read_text().count("# msnb migrate: run with") == 1


def test_an_existing_magic_line_is_kept_with_blank_lines_above(make_notebook):
    src = make_notebook("nb.ipynb", ["\n%%torch_on_ascend --mode graph\nimport torch\nx = torch.ones(2).cuda()"])
    nb = read(migrate_notebook(src).dst)
    assert nb.cells[-1].source == ('\n%%torch_on_ascend --mode graph\nimport torch\n'
                                   'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
                                   "x = torch.ones(2).to(device)")
