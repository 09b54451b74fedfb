"""The legacy typed-tensor constructors: ``torch.FloatTensor([1, 2])``,
``torch.LongTensor(3)``, ``isinstance(x, torch.LongTensor)``."""

from __future__ import annotations

from . import _dtype as D
from ._tensor import Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


class _LegacyType(type):
    """Calling makes a tensor of the class's dtype; ``isinstance`` checks the dtype."""

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not isinstance(args[0], int):
            from ._ops.creation import tensor
            data = args[0]
            if isinstance(data, Tensor):
                return data.to(cls.dtype)
            return tensor(data, dtype=cls.dtype)
        from ._ops.creation import empty
        return empty(*args, dtype=cls.dtype)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _make(name, dtype):
    return _LegacyType(name, (), {"dtype": dtype, "__doc__": f"msnb implementation of ``torch.{name}``."})


FloatTensor = _make("FloatTensor", D.float32)
DoubleTensor = _make("DoubleTensor", D.float64)
HalfTensor = _make("HalfTensor", D.float16)
BFloat16Tensor = _make("BFloat16Tensor", D.bfloat16)
LongTensor = _make("LongTensor", D.int64)
IntTensor = _make("IntTensor", D.int32)
ShortTensor = _make("ShortTensor", D.int16)
CharTensor = _make("CharTensor", D.int8)
ByteTensor = _make("ByteTensor", D.uint8)
BoolTensor = _make("BoolTensor", D.bool)
