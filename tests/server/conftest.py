"""A real jupyter_server / JupyterLab on 127.0.0.1 for the endpoint and browser tests.

The servers run as child processes with HOME, TMPDIR and Jupyter's config,
data and runtime folders inside the test's temporary folder, so a run leaves
nothing in the user's home.  msnb's server extension is enabled explicitly
(as the installed ``jupyter_server_config.d/msnb.json`` does).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest


@dataclass
class LiveServer:
    url: str
    token: str
    root: Path
    log: Path
    process: subprocess.Popen

    def request(self, path: str, body: bytes | None = None, *, token: bool = True,
                method: str | None = None) -> tuple[int, dict]:
        """(status, JSON reply) of one request; ``token=False`` sends no credentials."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"token {self.token}"
        req = urllib.request.Request(self.url + path, data=body, headers=headers,
                                     method=method or ("POST" if body is not None else "GET"))
        try:
            with urllib.request.urlopen(req, timeout=60) as reply:
                return reply.status, json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as err:
            raw = err.read()
            try:
                return err.code, json.loads(raw)
            except ValueError:
                return err.code, {"raw": raw.decode("utf-8", "replace")}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def isolated_env(base: Path) -> dict[str, str]:
    """The environment of a child Jupyter process: everything user-level under ``base``."""
    env = dict(os.environ)
    for name in ("home", "tmp", "config", "data", "runtime"):
        (base / name).mkdir(parents=True, exist_ok=True)
    (base / "config" / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": {"msnb.server": True}}}), encoding="utf-8")
    env.update(HOME=str(base / "home"), TMPDIR=str(base / "tmp"), JUPYTER_CONFIG_DIR=str(base / "config"),
               JUPYTER_DATA_DIR=str(base / "data"), JUPYTER_RUNTIME_DIR=str(base / "runtime"),
               IPYTHONDIR=str(base / "home" / ".ipython"), GLOG_v="3", JUPYTER_PLATFORM_DIRS="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2]),
                                                      env.get("PYTHONPATH", "")) if p))
    return env


@contextlib.contextmanager
def live_server(base: Path, app: str = "server", extra: tuple[str, ...] = ()) -> Iterator[LiveServer]:
    """``jupyter server`` or ``jupyter lab`` on a free port; stopped on exit."""
    root = base / "notebooks"
    root.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(16)
    port = _free_port()
    log = base / f"jupyter-{app}.log"
    module = "jupyterlab" if app == "lab" else "jupyter_server"
    cmd = [sys.executable, "-m", module, "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0",
           *extra]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=isolated_env(base))
    server = LiveServer(f"http://127.0.0.1:{port}", token, root, log, proc)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"jupyter {app} exited:\n{log.read_text()[-3000:]}")
            with contextlib.suppress(OSError):
                if server.request("/api/status")[0] == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"jupyter {app} not up after 60 s:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory) -> Iterator[LiveServer]:
    """One jupyter_server with msnb's extension for a test module."""
    with live_server(tmp_path_factory.mktemp("jupyter-server")) as server:
        yield server


@pytest.fixture
def start_jupyter():
    """``start_jupyter(base, app="lab")``: a context manager running one Jupyter server."""
    return live_server
