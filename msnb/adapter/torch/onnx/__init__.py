"""msnb implementation of ``torch.onnx``: importable, so code that mentions
it loads; exporting raises msnb's unsupported error (msnb has no ONNX
exporter; MindSpore's own ``mindspore.export(..., file_format="ONNX")`` works
on native MindSpore networks)."""

from __future__ import annotations

__all__ = ["export", "dynamo_export", "is_in_onnx_export", "OperatorExportTypes", "TrainingMode"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def export(*args, **kwargs):
    raise NotImplementedError(f"torch.onnx.export is not supported by msnb yet ({_SUPPORT})")


def dynamo_export(*args, **kwargs):
    raise NotImplementedError(f"torch.onnx.dynamo_export is not supported by msnb yet ({_SUPPORT})")


def is_in_onnx_export() -> bool:
    """False: msnb never runs an ONNX export."""
    return False


class OperatorExportTypes:
    ONNX, ONNX_ATEN, ONNX_ATEN_FALLBACK, ONNX_FALLTHROUGH = range(4)


class TrainingMode:
    EVAL, PRESERVE, TRAINING = range(3)


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.onnx")
