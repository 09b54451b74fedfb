"""Every registered name of ``torch.distributed.{rpc,autograd,optim,nn}`` is used by a test here:
the 2-worker program (``rpc_program.py``, compared with real PyTorch) or the one-worker tests."""

from __future__ import annotations

import re
from pathlib import Path

from msnb.adapter.support import load_registry

HERE = Path(__file__).parent
SUBSPACES = ("rpc", "autograd", "optim", "nn")
#: types and probes, used through the calls the tests make
INDIRECT = {"rpc.WorkerInfo", "rpc.RpcBackendOptions", "rpc.BackendType", "rpc.functions",
            "autograd.DistAutogradContext"}


def test_every_registered_rpc_name_is_exercised():
    text = "\n".join(p.read_text() for p in HERE.glob("*.py") if p.name != Path(__file__).name)
    names = {n[len("torch.distributed."):] for n in load_registry()
             if n.startswith(tuple(f"torch.distributed.{s}." for s in SUBSPACES))}
    assert names, "torch.distributed.rpc is missing from the registry"
    unused = sorted(n for n in names - INDIRECT if not re.search(rf"\b{re.escape(n.rsplit('.', 1)[1])}\b", text))
    assert not unused, f"registered names no test uses: {unused}"
