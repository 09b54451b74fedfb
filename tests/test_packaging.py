"""The JupyterLab extension is installed with msnb: JupyterLab lists it as
enabled, jupyter_server loads msnb's server extension, and ``import msnb``
stays cheap (no MindSpore, no Jupyter server) for ``%load_ext``.

The assets are built by ``pip install`` (hatch-jupyter-builder) or by
``make``; this test fails when they are missing, as a user would find them."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import msnb


def test_labextension_paths_point_at_built_assets():
    (entry,) = msnb._jupyter_labextension_paths()
    assert entry["dest"] == "msnb"
    built = Path(msnb.__file__).parent / entry["src"] / "package.json"
    meta = json.loads(built.read_text(encoding="utf-8"))
    assert meta["name"] == "msnb" and meta["jupyterlab"]["_build"]["load"].startswith("static/remoteEntry.")
    assert msnb._jupyter_server_extension_points() == [{"module": "msnb.server"}]


def test_jupyter_lists_both_extensions_enabled(python, tmp_path):
    """What ``jupyter labextension list`` and ``jupyter server extension list`` print (one child process)."""
    script = (
        f"import os; os.environ.update(HOME={str(tmp_path)!r}, JUPYTER_CONFIG_DIR={str(tmp_path)!r})\n"
        "from jupyterlab.labextensions import ListLabExtensionsApp\n"
        "from jupyter_server.extension.serverextension import ListServerExtensionsApp\n"
        "for cls in (ListLabExtensionsApp, ListServerExtensionsApp):\n"
        "    app = cls(); app.initialize([]); app.start()\n")
    out = python("-c", script)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout + out.stderr)
    assert out.returncode == 0, plain
    assert re.search(r"^\s+msnb v0\.1\.0 enabled OK", plain, re.M), plain
    assert re.search(r"msnb\.server\s+enabled", plain) and re.search(r"msnb\.server\s+OK", plain), plain


def test_import_msnb_stays_cheap(python):
    out = python("-c", "import msnb, sys; print(sorted(m for m in ('mindspore', 'jupyter_server', 'tornado', "
                       "'libcst', 'comm') if m in sys.modules))")
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr
    assert sys.modules.get("msnb") is msnb
