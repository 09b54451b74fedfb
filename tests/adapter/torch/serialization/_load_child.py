"""Child process of the hostile-file suite: load each file, report how.

Run as ``python _load_child.py manifest.json result.json``.  After msnb
and MindSpore are imported the address space is capped (``RLIMIT_AS``:
what is mapped now plus ``MSNB_TEST_AS_SLACK`` bytes), so a file that makes
msnb allocate gigabytes fails this process instead of the machine.  After
every file it checks that msnb's state is unchanged.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

os.environ.setdefault("GLOG_v", "3")


def _vm_bytes():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize")


def _fingerprint(torch):
    """What a hostile file must not change in msnb."""
    from msnb.adapter.torch import serialization as S
    import collections
    return {
        "numel": torch.ones(2, 3).size().numel(),
        "size_repr": repr(torch.Size([2, 3])),
        "size_attrs": sorted(vars(torch.Size)),
        "device": (torch.device("cpu").type, repr(torch.device("cpu"))),
        "device_attrs": sorted(vars(type(torch.device("cpu")))),
        "rebuild": (S._rebuild_tensor_v2.__code__.co_code.hex(), sorted(vars(S._rebuild_tensor_v2))),
        "odict": sorted(vars(collections.OrderedDict)),
        "float32": (repr(torch.float32), torch.float32.itemsize),
        "sum": torch.tensor([1.0, 2.0]).sum().item(),
    }


def main(manifest, result):
    import msnb.adapter.torch as torch

    before = _fingerprint(torch)
    slack = int(os.environ.get("MSNB_TEST_AS_SLACK", str(3 * 2 ** 30)))
    resource.setrlimit(resource.RLIMIT_AS, (_vm_bytes() + slack, resource.RLIM_INFINITY))
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = []
    for item in json.load(open(manifest)):
        for wo in item["modes"]:
            t0 = time.monotonic()
            rec = {"name": item["name"], "weights_only": wo}
            try:
                obj = torch.load(item["file"], weights_only=wo)
                rec["outcome"] = "loaded"
                rec["type"] = type(obj).__name__
                del obj
            except Exception as e:  # noqa: BLE001 - the parent judges the type and the message
                rec["outcome"] = "error"
                rec["type"] = type(e).__name__
                rec["message"] = str(e)
                rec["has_cause"] = e.__cause__ is not None or (e.__context__ is not None
                                                               and not e.__suppress_context__)
            rec["seconds"] = time.monotonic() - t0
            rec["peak_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0
            rec["state_ok"] = _fingerprint(torch) == before
            out.append(rec)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    json.dump({"results": out, "peak_growth_kb": peak - rss0}, open(result, "w"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
