"""``torch.backends.cuda``: the matmul switches are recorded; CUDA is never built in."""

from types import SimpleNamespace

__all__ = ["matmul", "is_built"]

matmul = SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True)


def is_built() -> bool:
    return False
