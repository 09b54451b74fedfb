"""``torch.memory_format`` and its four values.

msnb tensors have one (row-major) layout, so a memory format changes no
value: ``contiguous``/``to``/factories accept one where PyTorch does, and
check the rank PyTorch requires for the channels-last formats."""

from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d",
           "check_memory_format"]


class memory_format:  # noqa: N801 - PyTorch's spelling
    """A memory format value (``torch.channels_last`` ...); not instantiable, as in PyTorch."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.memory_format' instances")

    @classmethod
    def _make(cls, name):
        obj = object.__new__(cls)
        object.__setattr__(obj, "_name", name)
        return obj

    def __repr__(self):
        return f"torch.{self._name}"

    __str__ = __repr__

    def __reduce__(self):
        return (_by_name, (self._name,))


def _by_name(name):
    return globals()[name]


contiguous_format = memory_format._make("contiguous_format")
preserve_format = memory_format._make("preserve_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")


def check_memory_format(fmt, ndim, where="contiguous"):
    """PyTorch's checks of a ``memory_format`` argument against a tensor of rank ``ndim``."""
    if fmt is None:
        return
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{where}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(fmt).__name__}")
    if fmt is channels_last and ndim != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    if fmt is channels_last_3d and ndim != 5:
        raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
