"""jupyter_server extension behind msnb's JupyterLab extension.

It serves the analyzer to the editor without a kernel: ``POST /msnb/analyze``
returns the findings of one cell (earlier cells as context) and
``POST /msnb/fix`` the cell with safe fixes applied.  Both are authenticated
like every Jupyter endpoint.  Enabled by
``etc/jupyter/jupyter_server_config.d/msnb.json``, which the wheel installs.
"""

from __future__ import annotations

from typing import Any

__all__ = ["_load_jupyter_server_extension", "_jupyter_server_extension_points"]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "msnb.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Add msnb's handlers under the server's base URL."""
    from msnb.server.handlers import routes

    web_app = serverapp.web_app
    web_app.add_handlers(".*$", routes(web_app.settings["base_url"]))
    serverapp.log.info("msnb: analyzer endpoints at %smsnb/", web_app.settings["base_url"])
