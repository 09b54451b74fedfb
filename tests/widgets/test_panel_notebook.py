"""The panel in a real kernel (nbclient): its widget state is saved in the executed notebook."""

from __future__ import annotations

import json

import nbformat
from nbclient import NotebookClient

CELLS = [
    "%load_ext msnb",
    "%msnb panel",
    "%torch_on_ascend --amp O2 --mode graph",
    "import msnb\np = msnb.panel(ascend=False)\np.device.value = 'cpu'\np",
]


def test_executed_notebook_stores_the_panels_widget_state(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = NotebookClient(nb, timeout=180, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    assert not any(o.output_type == "error" for c in nb.cells for o in c.outputs)
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    models = list(state.values())
    toggles = [m["state"] for m in models if m["model_name"] == "ToggleButtonsModel"]
    # two panels (from %msnb panel and msnb.panel()), both moved to graph / O2 by the line magic
    assert sorted(t["_options_labels"][t["index"]] for t in toggles) == ["Graph", "Graph", "O2", "O2"]
    buttons = {(m["state"]["description"], m["state"]["value"], m["state"]["disabled"])
               for m in models if m["model_name"] == "ToggleButtonModel"}
    assert ("CPU", True, False) in buttons and ("Ascend", False, True) in buttons
    shown = [o for o in nb.cells[1].outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert shown and shown[0]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] in state
    assert json.dumps(state)  # plain JSON, saved with the notebook
