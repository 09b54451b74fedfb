"""msnb implementation of ``torch.quantization``: PyTorch's older name for ``torch.ao.quantization``."""

from ..ao.quantization import quantize_dynamic

__all__ = ["quantize_dynamic"]


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.quantization")
