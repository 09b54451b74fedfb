"""Re-execute tutorial notebooks top to bottom and save them clean.

Run by hand after editing a tutorial (from the repository root):
    python tools/execute_notebooks.py notebooks/03_data_and_transforms.ipynb
Each notebook runs in a fresh python3 kernel in its own folder (nbclient, widget
state saved), then per-cell timing metadata is dropped, cell ids are made
stable and the kernelspec is written as JupyterLab writes it for the installed
python3 kernel, so tests/notebooks/test_tutorials_clean.py passes and JupyterLab
opens it unmodified (tests/server/test_browser_tutorials.py). A notebook whose
run fails is left as it was.

    python tools/execute_notebooks.py --clean-only notebooks/0*.ipynb
applies the same cleaning to the saved notebooks without running them.
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

KERNEL = "python3"


def kernelspec_metadata(name: str = KERNEL) -> dict:
    """The ``kernelspec`` metadata JupyterLab writes once the kernel ``name`` starts."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


def clean(nb) -> None:
    """Drop run noise, number the cell ids, and keep widget state only where a widget is shown."""
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        cell["id"] = f"c{i:02d}"
    nb.metadata["kernelspec"] = kernelspec_metadata()
    has_widgets = any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                      for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    if not has_widgets:
        nb.metadata.pop("widgets", None)
    nbformat.validate(nb)


def execute_clean(path: Path, run: bool = True) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    if run:
        NotebookClient(nb, timeout=600, kernel_name=KERNEL, store_widget_state=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    clean(nb)
    nbformat.write(nb, path)
    return seconds


def main(argv):
    run = "--clean-only" not in argv
    names = [a for a in argv if a != "--clean-only"]
    if not names:
        print(__doc__.strip())
        return 2
    for name in names:
        seconds = execute_clean(Path(name), run)
        print(f"{name}: {seconds:.1f} s" if run else f"{name}: cleaned")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
