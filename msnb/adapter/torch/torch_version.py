"""``torch.__version__``: msnb's adapter version, a ``str`` that compares like
PyTorch's ``TorchVersion`` (with strings, tuples and ``packaging`` versions)."""

from __future__ import annotations

__all__ = ["TorchVersion", "__version__"]


class TorchVersion(str):
    """A version string comparable with ``"2.0"``, ``(2, 0)`` or ``packaging.version.Version``."""

    def _cmp(self, other):
        from packaging.version import InvalidVersion, Version  # a Version object is not compared, as in PyTorch
        if isinstance(other, (tuple, list)):
            theirs = Version(".".join(str(p) for p in other))
        elif isinstance(other, str):
            try:
                theirs = Version(other)
            except InvalidVersion:
                raise InvalidVersion(f"Invalid version: '{other}'") from None
        else:
            return None
        mine = Version(str(self))
        return (mine > theirs) - (mine < theirs)

    def __lt__(self, other):
        c = self._cmp(other)
        return NotImplemented if c is None else c < 0

    def __le__(self, other):
        c = self._cmp(other)
        return NotImplemented if c is None else c <= 0

    def __gt__(self, other):
        c = self._cmp(other)
        return NotImplemented if c is None else c > 0

    def __ge__(self, other):
        c = self._cmp(other)
        return NotImplemented if c is None else c >= 0

    def __eq__(self, other):
        if isinstance(other, str) and not isinstance(other, TorchVersion):
            try:
                return self._cmp(other) == 0
            except Exception:  # noqa: BLE001 - not a version: compare as strings
                return str.__eq__(self, other)
        if isinstance(other, (tuple, list)):
            return self._cmp(other) == 0
        return str.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__


#: PyTorch's version msnb follows, with ``+msnb`` (a PEP 440 local version) saying it is msnb's adapter
__version__ = TorchVersion("2.13.0+msnb")
