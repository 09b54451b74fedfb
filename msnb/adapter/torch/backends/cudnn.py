"""``torch.backends.cudnn`` (a module, so ``import torch.backends.cudnn as cudnn``
works): flags are recorded and have no effect; cuDNN is never available."""

benchmark = False
deterministic = False
enabled = True
allow_tf32 = True

__all__ = ["benchmark", "deterministic", "enabled", "allow_tf32", "is_available", "version", "flags",
           "set_flags"]

import contextlib
import sys

_NAMES = ("enabled", "benchmark", "deterministic", "allow_tf32")


def is_available() -> bool:
    """False: msnb runs on MindSpore's kernels, never cuDNN."""
    return False


def version():
    """None, as PyTorch answers without cuDNN."""
    return None


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None):
    """Set the given flags; returns their previous values in PyTorch's order (enabled, benchmark,
    benchmark_limit: None without CUDA, deterministic, allow_tf32)."""
    mod = sys.modules[__name__]
    old = tuple(getattr(mod, n) for n in _NAMES)
    old = old[:2] + (None,) + old[2:]
    for n, v in zip(_NAMES, (_enabled, _benchmark, _deterministic, _allow_tf32)):
        if v is not None:
            setattr(mod, n, v)
    return old


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """The flags set for the block (every one, to the defaults where not given, as PyTorch's
    context manager does) and restored after it, also when it raises."""
    old = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    try:
        yield
    finally:
        mod = sys.modules[__name__]
        for n, v in zip(_NAMES, old[:2] + old[3:]):
            setattr(mod, n, v)


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.backends.cudnn")

