"""%load_ext is cheap (MindSpore's import only starts, in the background); %unload_ext
removes everything; %reload_ext works."""

import json

LOAD_TIMER = r"""
import json, sys, time
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
start = time.perf_counter()
ip.run_line_magic("load_ext", "msnb")
seconds = time.perf_counter() - start
from msnb.runtime import preload
state = preload.state()
print(json.dumps({"seconds": seconds, "mindspore": "mindspore" in sys.modules,
                  "preload": state["started"] is not None, "still_importing": state["running"],
                  "adapter": "msnb.adapter.torch" in sys.modules,
                  "magic": "torch_on_ascend" in ip.magics_manager.magics["cell"]}))
"""


def test_load_ext_is_fast_and_only_starts_importing_mindspore(python):
    child = python("-c", LOAD_TIMER)
    assert child.returncode == 0, child.stderr
    facts = json.loads(child.stdout.strip().splitlines()[-1])
    # %load_ext returned while MindSpore's import (seconds long) still runs on
    # the preload thread: it did not wait for it
    assert facts["magic"] and facts["preload"] and facts["still_importing"] and not facts["adapter"], facts


def test_msnb_preload_0_leaves_mindspore_to_the_first_cell(python, monkeypatch):
    monkeypatch.setenv("MSNB_PRELOAD", "0")
    child = python("-c", LOAD_TIMER)
    assert child.returncode == 0, child.stderr
    facts = json.loads(child.stdout.strip().splitlines()[-1])
    assert facts["magic"] and not facts["preload"] and not facts["mindspore"] and not facts["adapter"]


def _msnb_state(ip):
    magics = ip.magics_manager.magics
    hooks = [cb for cbs in ip.events.callbacks.values() for cb in cbs]
    return (
        "torch_on_ascend" in magics["cell"],
        "torch_on_ascend" in magics["line"],
        "msnb" in magics["line"],
        any(getattr(cb, "__module__", "").startswith("msnb") for cb in hooks),
        any(name.endswith("Magics") and type(m).__module__.startswith("msnb")
            for name, m in ip.magics_manager.registry.items()),
    )


def test_unload_removes_every_magic_and_hook_and_reload_restores(ip, run):
    assert _msnb_state(ip) == (True,) * 5
    run("%unload_ext msnb")
    assert _msnb_state(ip) == (False,) * 5
    assert not run("%%torch_on_ascend\nx = 1\n", ok=False).success
    run("%load_ext msnb")
    run("%reload_ext msnb")
    assert _msnb_state(ip) == (True,) * 5
    hooks = [cb for cb in ip.events.callbacks["post_run_cell"] if cb.__module__.startswith("msnb")]
    assert len(hooks) == 1
    run("%%torch_on_ascend\nafter_reload = 1\n")
    assert ip.user_ns["after_reload"] == 1
