"""msnb implementation of ``torch.ao``: dynamic quantization (``torch.ao.quantization.quantize_dynamic``)."""

from . import quantization

__all__ = ["quantization"]


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.ao")
