"""Kernel side of the JupyterLab extension's link: a Jupyter comm named ``msnb``.

The notebook toolbar and the status bar show the kernel's msnb mode, AMP
level and device, and the toolbar changes them.  Both go through the one
:data:`msnb.settings.settings` object the magics and the panel use, so the
three can never disagree:

* ``%load_ext msnb`` opens a comm with target ``msnb`` to the front ends
  (data ``{"state": {...}}``, see :func:`state`); a front end that connects
  later opens one itself and is answered with the state;
* ``{"action": "set", "changes": {"mode": "graph"}}`` calls
  ``settings.update(...)``; a bad value is answered with
  ``{"error": "...", "state": {...}}`` and changes nothing;
* ``{"action": "get"}`` re-sends the state (the front end asks after each
  executed cell, when the device may just have been bound);
* every settings change, from a magic, the panel or a comm, is pushed to
  every open comm as ``{"state": {...}}``.

:func:`register` runs on ``%load_ext msnb`` and is cheap: no MindSpore import.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from msnb.settings import settings

__all__ = ["TARGET", "register", "unregister", "state", "open_comms"]

#: Comm target name the front end opens (``labextension/src/kernellink.ts``).
TARGET = "msnb"

#: Settings the front end may change through the comm.
_SETTABLE = ("mode", "amp", "device", "analyze")

_comms: list[Any] = []
_shell: Any = None


def open_comms() -> tuple[Any, ...]:
    """The comms currently open to front ends."""
    return tuple(_comms)


def _bound_target() -> str | None:
    """The device MindSpore is bound to ("CPU"/"Ascend"), None before the first cell.

    Read from the shell's msnb runtime only when one exists, so asking never
    imports MindSpore.
    """
    if _shell is None or "msnb.runtime" not in sys.modules:
        return None
    magics = _shell.magics_manager.registry.get("TorchOnAscendMagics")
    runtime = getattr(magics, "_runtime", None)
    return getattr(getattr(runtime, "devices", None), "target", None)


def state() -> dict[str, Any]:
    """What the toolbar and status bar show: mode, amp, device, bound target, analyze."""
    values = settings.snapshot()
    return {
        "mode": values["mode"],
        "amp": values["amp"],
        "device": values["device"],
        "target": _bound_target(),
        "analyze": values["analyze"],
    }


def _send(comm: Any, payload: dict[str, Any]) -> None:
    try:
        comm.send(payload)
    except Exception:  # noqa: BLE001 - a dead front end must not break a settings change
        _forget(comm)


def _push(_changed: dict[str, tuple[Any, Any]]) -> None:
    payload = {"state": state()}
    for comm in list(_comms):
        _send(comm, payload)


def _forget(comm: Any) -> None:
    if comm in _comms:
        _comms.remove(comm)


def _handle(comm: Any, data: Any) -> None:
    """Answer one message from the front end (see the module docstring)."""
    if not isinstance(data, dict) or data.get("action") not in ("get", "set"):
        _send(comm, {"error": "msnb comm: expected {'action': 'get'|'set', ...}", "state": state()})
        return
    if data["action"] == "get":
        _send(comm, {"state": state()})
        return
    changes = data.get("changes")
    if not isinstance(changes, dict) or not changes:
        _send(comm, {"error": "msnb comm: 'set' needs a non-empty 'changes' object", "state": state()})
        return
    unknown = [name for name in changes if name not in _SETTABLE]
    if unknown:
        _send(comm, {"error": f"msnb comm: cannot set {', '.join(map(str, unknown))} from the toolbar",
                     "state": state()})
        return
    try:
        settings.update(**changes)  # observers (this module's _push included) tell every front end
    except ValueError as exc:
        _send(comm, {"error": str(exc), "state": state()})
        return
    _send(comm, {"state": state()})


def _wire(comm: Any) -> None:
    _comms.append(comm)

    @comm.on_msg
    def _on_msg(msg: dict[str, Any]) -> None:
        _handle(comm, msg.get("content", {}).get("data"))

    @comm.on_close
    def _on_close(_msg: Any) -> None:
        _forget(comm)


def _on_open(comm: Any, _open_msg: Any) -> None:
    """A front end opened a comm: remember it, wire its messages, send the state."""
    _wire(comm)
    _send(comm, {"state": state()})


def _announce() -> None:
    """Open a comm to the front ends already connected, so their toolbars
    light up as soon as ``%load_ext msnb`` runs (JupyterLab registers the
    ``msnb`` target; other front ends ignore the message)."""
    import comm as comm_package

    _wire(comm_package.create_comm(target_name=TARGET, data={"state": state()}))


def _manager() -> Any:
    import comm as comm_package

    return comm_package.get_comm_manager()


def register(shell: Any) -> None:
    """Register the ``msnb`` comm target and the settings observer (idempotent)."""
    global _shell
    _shell = shell
    _manager().register_target(TARGET, _on_open)
    settings.observe(_push)
    if getattr(shell, "kernel", None) is not None:  # a real kernel, not a bare IPython shell
        _announce()


def unregister(shell: Any = None) -> None:
    """Undo :func:`register`: close open comms, drop the target and the observer."""
    global _shell
    settings.unobserve(_push)
    manager = _manager()
    if manager.targets.get(TARGET) is _on_open:
        manager.unregister_target(TARGET, _on_open)
    for comm in list(_comms):
        _forget(comm)
        with contextlib.suppress(Exception):  # already closed on the other side
            comm.close()
    _shell = None
