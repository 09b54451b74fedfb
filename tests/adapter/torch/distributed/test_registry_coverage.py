"""Every ``torch.distributed`` name the support registry lists is called by a test here.

The names run on 2 workers (collectives_worker.py, sharded_worker.py,
dying_worker.py) or in one process (test_single_process.py,
test_sharded_single_process.py); this checks the scripts use each one.  A
name of a submodule (``torch.distributed.fsdp.fully_shard``) or a member
(``...StateDictType.LOCAL_STATE_DICT``) counts by its last part."""

from __future__ import annotations

import re
from pathlib import Path

from msnb.adapter.support import load_registry

HERE = Path(__file__).parent
#: names the registry lists that are types or probes, used through the calls above
INDIRECT = {"Backend", "ProcessGroup", "GroupMember", "group", "Work", "is_available", "is_mpi_available",
            "is_nccl_available", "is_gloo_available", "is_hccl_available", "is_torchelastic_launched",
            "get_process_group_ranks", "get_global_rank", "get_group_rank"}


def test_every_registered_distributed_name_is_exercised():
    used, words = set(), set()
    for path in HERE.glob("*.py"):
        text = path.read_text()
        used.update(re.findall(r"dist\.(\w+)", text))
        words.update(re.findall(r"\w+", text))
    names = {n.split(".", 2)[2] for n in load_registry() if n.startswith("torch.distributed.")}
    names = {n for n in names if "." not in n}  # sub-namespaces (rpc/, ...) check their own names
    assert names, "torch.distributed is missing from the registry"
    missing = sorted(n for n in names - INDIRECT if (n.rsplit(".", 1)[-1] not in words if "." in n else n not in used))
    assert not missing, f"torch.distributed names no test calls: {missing}"
