"""IPython front of msnb: register and unregister its magics and hooks."""

from __future__ import annotations

from typing import Any

from msnb.magics.msnb_magic import MsnbMagics, subcommand
from msnb.magics.torch_on_ascend import TorchOnAscendMagics

__all__ = ["register", "unregister", "subcommand", "MAGICS"]

#: (kind, name) of every magic msnb adds; unregister removes exactly these.
MAGICS = (("cell", "torch_on_ascend"), ("line", "torch_on_ascend"), ("line", "msnb"))
_HOOKS = (("post_run_cell", "_flush_cell_globals"),)


def _flush_cell_globals(*_: Any) -> None:
    """After every cell: ``global`` writes by magic-cell functions reach user_ns."""
    from msnb.runtime.namespace import flush_all

    flush_all()


def register(shell: Any) -> None:
    """Add msnb's magics and hooks to ``shell`` (idempotent)."""
    unregister(shell)
    torch_magics = TorchOnAscendMagics(shell)
    shell.register_magics(torch_magics)
    shell.register_magics(MsnbMagics(shell, torch_magics))
    for event, name in _HOOKS:
        shell.events.register(event, globals()[name])


def unregister(shell: Any) -> None:
    """Remove every magic and hook :func:`register` added."""
    manager = shell.magics_manager
    for kind, name in MAGICS:
        manager.magics[kind].pop(name, None)
    for cls in (TorchOnAscendMagics, MsnbMagics):
        manager.registry.pop(cls.__name__, None)
    for event, name in _HOOKS:
        callback = globals()[name]
        if callback in shell.events.callbacks[event]:
            shell.events.unregister(event, callback)
