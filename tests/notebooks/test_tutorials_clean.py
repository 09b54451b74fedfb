"""Every shipped tutorial is committed clean: it opens unmodified and reads well.

A notebook saved from a real top-to-bottom run has execution counts 1, 2, 3...
in cell order, no error outputs, no per-cell timing metadata, and is already in
the form nbformat writes (so opening and saving it changes nothing). These
checks read files only; nbval (`pytest notebooks/`) re-executes them.
"""

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("0*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_valid_and_resaves_unchanged(path):
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nbformat.writes(nb) + "\n" == text or nbformat.writes(nb) == text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_was_executed_in_order_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    errors = [o.ename for c in code for o in c.outputs if o.output_type == "error"]
    assert errors == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_no_run_noise_in_metadata(path):
    nb = nbformat.read(path, as_version=4)
    noisy = [i for i, c in enumerate(nb.cells) if set(c.metadata) - {"tags"}]
    assert noisy == []
    assert set(nb.metadata) <= {"kernelspec", "language_info", "widgets"}


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _widget_outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if WIDGET_VIEW in o.get("data", {})]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_widget_views_have_saved_state_and_a_readable_fallback(path):
    """A web viewer renders a saved widget from the notebook's widget state, and a
    viewer without widgets shows the text/html or text/plain next to it: both
    must be there, and the text must not be the widget's Python repr."""
    nb = nbformat.read(path, as_version=4)
    views = _widget_outputs(nb)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    assert [o.data[WIDGET_VIEW]["model_id"] for o in views if o.data[WIDGET_VIEW]["model_id"] not in state] == []
    for o in views:
        assert "text/html" in o.data, o.data.keys()
        assert "(children=" not in o.data["text/plain"], o.data["text/plain"]


def test_the_graph_mode_tutorial_saves_its_panel_with_a_summary():
    nb = nbformat.read(next(p for p in NOTEBOOKS if p.name.startswith("02_")), as_version=4)
    (panel,) = _widget_outputs(nb)
    assert panel.data["text/plain"].startswith("msnb panel: mode=")
    assert "last cell:" in panel.data["text/plain"] and "<table>" in panel.data["text/html"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_kernelspec_is_what_jupyterlab_writes(path):
    """JupyterLab rewrites ``kernelspec`` from the python3 kernel it starts; a
    different display name would mark the notebook modified on opening."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.kernelspec == {"display_name": spec.display_name, "language": spec.language, "name": "python3"}
