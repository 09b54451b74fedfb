"""Run a notebook's code cells in order in one namespace, as a person would,
and say which cells passed: ``python nbdriver.py NOTEBOOK.ipynb``.

Run it with real PyTorch, or under ``msnb exec`` (then ``import torch`` in the
cells resolves to msnb's adapter).  IPython-only lines (``%magic``, ``!cmd``)
are dropped; a failing cell prints its error's last line and the run goes on,
so one missing API does not hide the rest.  The last line printed is
``cells: P passed, F failed``.
"""

from __future__ import annotations

import json
import sys
import time
import traceback


def cells(path):
    nb = json.load(open(path, encoding="utf-8"))
    for cell in nb["cells"]:
        if cell.get("cell_type") == "code":
            src = "".join(cell.get("source", []))
            lines = [ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!"))]
            yield "\n".join(lines)


def main(path):
    sys.path.insert(0, "")  # a Jupyter kernel imports from its working folder (a notebook's helper package)
    ns = {"__name__": "__main__"}
    passed = failed = 0
    for i, src in enumerate(cells(path), 1):
        if not src.strip():
            continue
        t = time.time()
        try:
            exec(compile(src, f"<cell {i}>", "exec"), ns)
            passed += 1
            print(f"[nbdriver] cell {i}: ok ({time.time() - t:.1f}s)", flush=True)
        except BaseException as exc:  # noqa: BLE001 - report and go on, like running all cells
            if isinstance(exc, KeyboardInterrupt):
                raise
            failed += 1
            last = traceback.format_exception_only(type(exc), exc)[-1].strip()
            print(f"[nbdriver] cell {i}: FAILED {last}", flush=True)
    print(f"cells: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
