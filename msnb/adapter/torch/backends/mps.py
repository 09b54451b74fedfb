"""``torch.backends.mps``: never available under msnb."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
