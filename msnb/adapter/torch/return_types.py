"""``torch.return_types``: the named tuples PyTorch ops return (``max``, ``sort``,
``linalg_qr``, ...), printed as PyTorch prints them::

    torch.return_types.max(
    values=tensor([3., 4.]),
    indices=tensor([1, 1]))

Each type is made once by :func:`structseq` and kept as an attribute of this
module, so results pickle and compare by type as in PyTorch.
"""

from __future__ import annotations

import collections
import sys

__all__ = ["structseq"]


def _repr(self) -> str:
    body = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
    return f"torch.return_types.{type(self).__name__}(\n{body})"


def structseq(name: str, fields):
    """The return type ``torch.return_types.<name>`` with ``fields`` (made on first use)."""
    module = sys.modules[__name__]
    cls = module.__dict__.get(name)
    if isinstance(cls, type) and tuple(cls._fields) == tuple(fields):
        return cls
    cls = type(name, (collections.namedtuple(name, fields),), {"__slots__": (), "__repr__": _repr,
                                                                 "__module__": __name__})
    setattr(module, name, cls)
    return cls
