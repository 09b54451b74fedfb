"""msnb's ``torch.backends``: the cuDNN/MPS switches users set are accepted
and have no effect (MindSpore picks its own kernels)."""

from types import SimpleNamespace

__all__ = ["cudnn", "mps", "cuda"]

cudnn = SimpleNamespace(benchmark=False, deterministic=False, enabled=True, allow_tf32=True,
                        is_available=lambda: False, version=lambda: None)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False), is_built=lambda: False)
