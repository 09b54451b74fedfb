"""The exception classes ``torch.export`` raises, by PyTorch's names (each a
``RuntimeError``, as in PyTorch): ``torch._dynamo.exc.UserError`` /
``Unsupported``, ``ConstraintViolationError`` and
``GuardOnDataDependentSymNode`` of ``torch.fx.experimental.symbolic_shapes``."""

from __future__ import annotations

__all__ = ["UserError", "Unsupported", "ConstraintViolationError", "GuardOnDataDependentSymNode"]


class UserError(RuntimeError):
    """A ``dynamic_shapes`` or input mistake (PyTorch: ``torch._dynamo.exc.UserError``)."""


class Unsupported(RuntimeError):
    """Strict export met code it cannot trace (PyTorch: ``torch._dynamo.exc.Unsupported``)."""


class ConstraintViolationError(RuntimeError):
    """An example input outside its ``Dim``'s range."""


class GuardOnDataDependentSymNode(RuntimeError):
    """Python control flow on a value computed from tensor data."""
