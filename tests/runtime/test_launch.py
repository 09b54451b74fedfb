"""How kernels are launched: synchronously on a CPU host with few cores.

MindSpore's asynchronous PyNative queue spins two threads; on a 2-core CPU
host they fight the Python thread and ops slow to one scheduler tick each.
msnb switches such hosts to synchronous launch once, when the device is
bound, and says so; ``MSNB_LAUNCH`` overrides the choice."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from msnb.runtime.context import HOST_BLOCKING_RUN, DeviceError, DeviceState, launch_mode

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


# --- MindSpore's queue tasks on the calling thread with synchronous launch -----------------

def _bind(monkeypatch, launch):
    monkeypatch.setenv("MSNB_LAUNCH", launch)
    DeviceState(say=lambda line: None).bind(FakeMindSpore(ascend=False), "cpu")


def test_blocking_launch_also_runs_queued_tasks_on_the_calling_thread(monkeypatch):
    """launch_blocking leaves a compiled graph's run on MindSpore's frontend_queue thread,
    which the Python thread then waits for by spinning: msnb asks MindSpore to run it inline."""
    monkeypatch.delenv(HOST_BLOCKING_RUN, raising=False)
    monkeypatch.delenv("MSNB_HOST_BLOCKING_RUN", raising=False)
    _bind(monkeypatch, "blocking")
    assert os.environ[HOST_BLOCKING_RUN] == "1"


def test_a_value_the_user_set_is_kept(monkeypatch):
    monkeypatch.setenv(HOST_BLOCKING_RUN, "0")
    monkeypatch.delenv("MSNB_HOST_BLOCKING_RUN", raising=False)
    _bind(monkeypatch, "blocking")
    assert os.environ[HOST_BLOCKING_RUN] == "0"
    _bind(monkeypatch, "async")
    assert os.environ[HOST_BLOCKING_RUN] == "0"


def test_an_async_child_drops_what_a_blocking_parent_set(monkeypatch):
    """The variable is inherited by child processes (workers, ``msnb exec`` from a notebook);
    one that launches asynchronously must not run MindSpore's queues inline."""
    monkeypatch.delenv(HOST_BLOCKING_RUN, raising=False)
    monkeypatch.delenv("MSNB_HOST_BLOCKING_RUN", raising=False)
    _bind(monkeypatch, "blocking")
    _bind(monkeypatch, "async")
    assert HOST_BLOCKING_RUN not in os.environ and "MSNB_HOST_BLOCKING_RUN" not in os.environ


_TRAIN = """
import json, os, sys
import numpy as np
import torch
import torch.nn as nn

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.out = nn.Linear(16, 50)

    def forward(self, x):
        return self.out(self.lstm(self.embed(x))[0])

torch.manual_seed(0)
rng = np.random.default_rng(0)
x = torch.tensor(rng.integers(0, 50, (4, 6)))
y = torch.tensor(rng.integers(0, 50, (4, 6)))
model = LM()
with torch.no_grad():  # the same start under both: msnb's generator is not PyTorch's
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
losses = []
for _ in range(7):
    out = model(x)
    loss = criterion(out.reshape(-1, 50), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    opt.step()
    losses.append(loss.item())
res = {"losses": losses}
if "msnb" in torch.__file__:
    from msnb.adapter import graph
    from msnb.adapter.graph import step as whole
    res.update(graphs=graph.stats()["graphs"], replayed=whole.stats()["replayed"],
               threads=sorted({open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task")}),
               env=[k for k in ("MS_DEV_HOST_BLOCKING_RUN", "MSNB_HOST_BLOCKING_RUN") if k in os.environ])
print(json.dumps(res))
"""


def test_a_replayed_training_step_runs_on_the_python_thread(tmp_path):
    """The suite's LSTM language model step, small: under ``msnb exec --mode graph`` with
    synchronous launch the step is compiled once and replayed, MindSpore never starts its
    frontend_queue thread (the compiled graph runs on the Python thread), programs the process
    would start no longer inherit the switch, and the losses are real PyTorch's."""
    script = tmp_path / "train.py"
    script.write_text(_TRAIN)
    env = {k: v for k, v in os.environ.items() if k not in (HOST_BLOCKING_RUN, "MSNB_HOST_BLOCKING_RUN")}
    env.update(MSNB_LAUNCH="blocking", MSNB_GRAPH_CHOICE="graph", GLOG_v="3")
    out = subprocess.run([sys.executable, "-m", "msnb", "exec", "--mode", "graph", str(script)], env=env,
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    ref = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr[-2000:]
    want = json.loads(ref.stdout.strip().splitlines()[-1])
    assert got["graphs"] == 1 and got["replayed"] >= 4, got  # compiled once, no recompilation per step
    assert "frontend_queue" not in got["threads"], got["threads"]
    assert got["env"] == []  # read by MindSpore at the first graph run, then out of the environment
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5, atol=1e-6)
