"""``torch.backends.mps``: never available under msnb (as on PyTorch's Linux CPU build)."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.backends.mps")
