"""The error a ``torch.<namespace>`` module raises for a name it lacks."""

from __future__ import annotations

__all__ = ["missing_attribute"]


def missing_attribute(namespace: str, name: str) -> AttributeError:
    """msnb's "not supported by msnb yet" error when PyTorch has ``namespace.name``,
    else Python's usual ``AttributeError``."""
    from ._api_names import MODULE_NAMES
    if name in MODULE_NAMES.get(namespace, ()):
        return AttributeError(f"{namespace}.{name} is not supported by msnb yet (see the support list: "
                              "python -m msnb.adapter.support --markdown)")
    return AttributeError(f"module '{namespace}' has no attribute '{name}'")
