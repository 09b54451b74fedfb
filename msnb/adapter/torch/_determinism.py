"""``torch.use_deterministic_algorithms`` and its queries.

PyTorch keeps a process-wide flag that makes ops without a deterministic
implementation raise (or warn, with ``warn_only``).  msnb passes it on to
MindSpore (``set_context(deterministic="ON"/"OFF")``) and keeps it so that
code reading it back (torchmetrics picks its bincount path from it) sees what
it set, as in PyTorch.
"""

from __future__ import annotations

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]

_STATE = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """msnb implementation of ``torch.use_deterministic_algorithms``."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    from .._ms import ms
    ms.set_context(deterministic="ON" if mode else "OFF")
    _STATE["mode"], _STATE["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """msnb implementation of ``torch.are_deterministic_algorithms_enabled``."""
    return _STATE["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """msnb implementation of ``torch.is_deterministic_algorithms_warn_only_enabled``."""
    return _STATE["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """msnb implementation of ``torch.set_deterministic_debug_mode`` (0/"default", 1/"warn", 2/"error")."""
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """msnb implementation of ``torch.get_deterministic_debug_mode``."""
    return 0 if not _STATE["mode"] else 1 if _STATE["warn_only"] else 2
