"""Every ``torch.*`` / ``torch.Tensor.*`` registry entry (outside nn, optim,
utils and torchvision, which register their own) has at least one
differential case comparing msnb with real PyTorch (a ``CASES`` table entry,
or the OpInfo replay in ``tests/adapter/opinfo``).

Coverage is computed from the ``CASES`` tables the ``test_diff_*`` modules
declare, so it does not depend on test order; a declared name that is not in
the registry is a typo and fails too."""

from __future__ import annotations

import importlib
from pathlib import Path

from .harness import REGISTRY, own_names

HERE = Path(__file__).parent


def declared_names():
    names = set()
    for path in sorted(HERE.rglob("test_diff_*.py")):  # also linalg/, fft/, special/
        if path.stem == "test_diff_coverage":
            continue
        rel = ".".join(path.relative_to(HERE).with_suffix("").parts)
        mod = importlib.import_module(f"{__package__}.{rel}")
        for c in getattr(mod, "CASES", ()):  # random/ compares streams with its own tables
            names.update(c.names)
    return names


def replayed_names():
    """Names PyTorch's OpInfo database covers: ``tests/adapter/opinfo`` replays them against real torch."""
    return {n for n, e in REGISTRY.items() if e.opinfo}


def test_every_registry_entry_has_a_differential_case():
    names = declared_names() | replayed_names()
    missing = sorted(own_names() - names)
    assert not missing, f"{len(missing)} registry entries have no differential case:\n" + "\n".join(missing)


def test_declared_names_are_registry_entries():
    unknown = sorted(n for n in declared_names() if n not in REGISTRY)
    assert not unknown, f"declared names missing from the registry: {unknown}"
