"""How kernels are launched: synchronously on a CPU host with few cores.

MindSpore's asynchronous PyNative queue spins two threads; on a 2-core CPU
host they fight the Python thread and ops slow to one scheduler tick each.
msnb switches such hosts to synchronous launch once, when the device is
bound, and says so; ``MSNB_LAUNCH`` overrides the choice."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from msnb.runtime.context import DeviceError, DeviceState, launch_mode

from .test_context import FakeMindSpore


@pytest.mark.parametrize("target,cores,want", [
    ("CPU", 1, "blocking"), ("CPU", 2, "blocking"), ("CPU", 3, "blocking"),
    ("CPU", 4, "async"), ("CPU", 64, "async"), ("Ascend", 2, "async"), ("Ascend", 64, "async"),
])
def test_auto_blocks_only_cpu_hosts_with_few_cores(target, cores, want):
    assert launch_mode(target, cores) == want


@pytest.mark.parametrize("requested", ["async", "blocking"])
def test_an_explicit_request_wins(requested):
    assert launch_mode("CPU", 2, requested) == requested
    assert launch_mode("Ascend", 64, requested) == requested


def test_a_bad_request_is_one_clear_line():
    with pytest.raises(DeviceError, match=r"MSNB_LAUNCH must be one of auto\|async\|blocking, not 'fast'"):
        launch_mode("CPU", 2, "fast")


def test_bind_applies_blocking_once_and_says_so(monkeypatch):
    monkeypatch.setenv("MSNB_LAUNCH", "blocking")
    lines, ms = [], FakeMindSpore(ascend=False)
    state = DeviceState(say=lines.append)
    state.bind(ms, "auto")
    state.bind(ms, "cpu")
    assert ms.blocking == 1 and state.launch == "blocking"
    assert lines == ["msnb: running on CPU (Ascend not available), MindSpore 2.10.0, each op finishing before the next line runs"]


def test_bind_leaves_async_alone(monkeypatch):
    monkeypatch.setenv("MSNB_LAUNCH", "async")
    ms = FakeMindSpore(ascend=True)
    state = DeviceState(say=lambda line: None)
    state.bind(ms, "auto")
    assert ms.blocking == 0 and state.launch == "async"


_PROBE = """
from mindspore._c_expression import RuntimeConf
print("blocking" if RuntimeConf.get_instance().is_launch_blocking() else "async")
"""


@pytest.mark.parametrize("requested", ["async", "blocking"])
def test_msnb_exec_sets_real_mindspore(tmp_path, requested):
    """The real MindSpore runtime ends up in the mode asked for (checked
    with MindSpore's own flag, in a fresh process: the switch is one-way)."""
    script = tmp_path / "probe.py"
    script.write_text(_PROBE)
    env = dict(os.environ, MSNB_LAUNCH=requested, GLOG_v="3")
    out = subprocess.run([sys.executable, "-m", "msnb", "exec", str(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == [requested]
    assert ("each op finishing before the next line runs" in out.stderr) == (requested == "blocking")
