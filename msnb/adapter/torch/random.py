"""msnb implementation of ``torch.random``: the default generator's seed and
state (PyTorch's CPU mt19937, see ``_ops/generator.py``) and ``fork_rng``."""

from __future__ import annotations

import contextlib

from ._ops.generator import Generator, default_generator
from ._ops.random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Run the block with the default generator's state saved and restored after
    (msnb has one generator for every device, so ``devices`` changes nothing)."""
    if not enabled:
        yield
        return
    saved = default_generator.clone_state()
    try:
        yield
    finally:
        default_generator.restore(saved)


from ._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.random")
