"""Re-execute tutorial notebooks top to bottom and save them clean.

Run by hand after editing a tutorial (from the repository root):
    python tools/execute_notebooks.py notebooks/03_data_and_transforms.ipynb
Each notebook runs in a fresh python3 kernel in its own folder (nbclient, widget
state saved), then per-cell timing metadata is dropped and cell ids are made
stable, so tests/notebooks/test_tutorials_clean.py passes and JupyterLab opens
it unmodified. A notebook whose run fails is left as it was.
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def execute_clean(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        cell["id"] = f"c{i:02d}"
    has_widgets = any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                      for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    if not has_widgets:
        nb.metadata.pop("widgets", None)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return seconds


def main(argv):
    if not argv:
        print(__doc__.strip())
        return 2
    for name in argv:
        print(f"{name}: {execute_clean(Path(name)):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
