"""Regenerate ``cell_attributes.json``: attribute names a MindSpore ``Cell`` owns.

Run manually with MindSpore installed (``python -m
msnb.analyzer.data.generate_cell_attributes``); the analyzer only reads the
JSON so that it never imports MindSpore.  ``all`` is every name found on a
fresh ``mindspore.nn.Cell()`` (class members plus instance attributes set in
``__init__``).  ``unsafe`` is hand-curated (see ``UNSAFE``): names that MindSpore
looks up *by name* on a network, so a user attribute or method with that name
changes behaviour however the adapter stores ordinary attributes.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["UNSAFE", "collect", "main"]

OUT = Path(__file__).with_name("cell_attributes.json")

#: Names MindSpore's compiler / autodiff treat specially on a Cell:
#: ``construct`` is the Cell's forward, ``bprop`` a custom backward that
#: autodiff picks up, ``_cells`` / ``_params`` the containers the compiler
#: walks, ``phase`` the compile-cache key the seed (MSAdapter guide 4.2.1)
#: reports user code colliding with.
UNSAFE = ["bprop", "construct", "_cells", "_params", "_params_list", "_tensor_list", "_primitives"]


def collect() -> dict:
    import mindspore
    from mindspore import nn

    cell = nn.Cell()
    names = set(dir(nn.Cell)) | set(vars(cell))
    names = sorted(n for n in names if not (n.startswith("__") and n.endswith("__")))
    return {"mindspore_version": mindspore.__version__, "all": names, "unsafe": UNSAFE}


def main() -> None:
    doc = collect()
    OUT.write_text(json.dumps(doc, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {len(doc['all'])} names to {OUT}")


if __name__ == "__main__":
    main()
