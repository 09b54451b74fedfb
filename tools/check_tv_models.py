"""Build msnb's full-size torchvision models and compare them with the facts measured from torchvision.

For each builder (all by default, or those named): parameter count, number of
parameter tensors, number of state-dict entries and the SHA-256 of the ordered
``key:shape:dtype`` list against ``tests/adapter/torchvision/data/tv_facts.pt``
(written by ``tools/tv_reference_facts.py``).  Slow (CPU initialisation of
up to 127M parameters per model), hence not part of the test suite.

Usage: PYTHONPATH=. python tools/check_tv_models.py [BUILDER ...]
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import torch as real

import msnb.adapter.torchvision.models as models

FACTS = Path(__file__).resolve().parents[1] / "tests" / "adapter" / "torchvision" / "data" / "tv_facts.pt"


def signature(sd) -> str:
    return hashlib.sha256("\n".join(f"{k}:{tuple(v.shape)}:{v.dtype}" for k, v in sd.items()).encode()).hexdigest()


def main(names) -> int:
    facts = real.load(FACTS, weights_only=False)["models"]
    bad = 0
    for name in names or list(facts):
        fact, start = facts[name], time.time()
        model = getattr(models, name)()
        sd = model.state_dict()
        checks = {"numel": sum(p.numel() for p in model.parameters()) == fact["numel"],
                  "n_params": len(list(model.parameters())) == fact["n_params"],
                  "n_entries": len(sd) == fact["n_entries"], "keys/shapes": signature(sd) == fact["sha"]}
        bad += not all(checks.values())
        print(f"{name:20s} {'ok' if all(checks.values()) else 'DIFFERS ' + str(checks)} ({time.time() - start:.0f} s)",
              flush=True)
        del model, sd
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
