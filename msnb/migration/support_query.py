"""Query the support registry by name: ``msnb support torch.nn.Linear``.

Short spellings users type are accepted: ``nn.Linear``, ``F.relu``,
``Tensor.view``, ``ones`` (read as ``torch.ones``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from .usage import api_status, torch_api_names

__all__ = ["ApiStatus", "lookup", "candidates", "registry_entries"]

_SHORT = {"F.": "torch.nn.functional.", "nn.": "torch.nn.", "optim.": "torch.optim.", "Tensor.": "torch.Tensor.",
          "transforms.": "torchvision.transforms.", "datasets.": "torchvision.datasets.",
          "models.": "torchvision.models."}


@dataclass
class ApiStatus:
    name: str
    status: str  # supported | partial | unsupported
    note: str
    pytorch_api: bool  # is it a public PyTorch name at all?

    def to_dict(self) -> dict:
        return asdict(self)


def candidates(name: str) -> list[str]:
    """Full names ``name`` may stand for, most literal first."""
    name = name.strip()
    if name.startswith(("torch.", "torchvision.")) or name in ("torch", "torchvision"):
        return [name]
    out = [prefix_full + name[len(short):] for short, prefix_full in _SHORT.items() if name.startswith(short)]
    return out + [f"torch.{name}", f"torchvision.{name}"]


def lookup(name: str) -> ApiStatus:
    """Status of one API; the first spelling that is listed or a real
    PyTorch name wins, else the literal spelling is reported unsupported."""
    from msnb.adapter import support

    registry = support.load_registry()
    known = torch_api_names()
    options = candidates(name)
    for full in options:
        if full in registry or full in known:
            status, note = api_status(full, registry)
            return ApiStatus(full, status, note, full in known or full in registry)
    return ApiStatus(options[0], "unsupported", "", False)


def registry_entries() -> dict:
    """The committed registry as JSON data (``{"version", "entries"}``)."""
    from msnb.adapter import support

    return json.loads(support.REGISTRY_PATH.read_text(encoding="utf-8"))
