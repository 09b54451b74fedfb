"""``torch.backends.cudnn`` (a module, so ``import torch.backends.cudnn as cudnn``
works): flags are recorded and have no effect; cuDNN is never available."""

benchmark = False
deterministic = False
enabled = True
allow_tf32 = True

__all__ = ["benchmark", "deterministic", "enabled", "allow_tf32", "is_available", "version"]


def is_available() -> bool:
    """False: msnb runs on MindSpore's kernels, never cuDNN."""
    return False


def version():
    """None, as PyTorch answers without cuDNN."""
    return None


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.backends.cudnn")

