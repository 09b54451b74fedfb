"""Kernel -> Interrupt during an msnb cell: KeyboardInterrupt within 2 s, a
short traceback at the user's line, and the kernel runs the next cell.

Real kernels through jupyter_client (``km.interrupt_kernel()`` sends SIGINT
as JupyterLab does).  One kernel per launch mode, reused for PyNative and
graph mode; the asynchronous kernel runs native MindSpore first, the case
where MindSpore's own SIGINT handler (which sends SIGTERM) is in place
before msnb ever ran.  The interrupt comes once the loop is compiled and
training; a separate kernel is interrupted while graph mode records and
compiles its first step, which must leave MindSpore's trace recorder clean.

"Within 2 s" is 2 s of this machine's speed at that moment: on a loaded
host (CI runs with a load of ~8 on 2 cores) every process gets a fraction
of a core, so the bound is ``2 s x slowdown + baseline``, where
``slowdown`` is wall time over the kernel main thread's CPU time for a
CPU-bound loop run in the same kernel right before and after the case (1 on
an idle host) and ``baseline`` is how long the same kernel takes to report
an interrupt of a plain Python loop just before (messaging, traceback).
"""

from __future__ import annotations

import os
import queue
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from jupyter_client import KernelManager

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Reply:
    status: str
    outputs: list = field(default_factory=list)
    ename: str | None = None
    traceback: list[str] = field(default_factory=list)
    seconds_after_interrupt: float | None = None

    @property
    def text(self) -> str:
        return "".join(o.get("text", "") for o in self.outputs)


@contextmanager
def kernel(env: dict[str, str]):
    """A started kernel (python3 spec) with ``env`` added to this process's environment."""
    km = KernelManager(kernel_name="python3")
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    km.start_kernel(env={**os.environ, "GLOG_v": "3", "PYTHONPATH": path, **env})
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        yield km, client
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def run(km, client, code: str, interrupt_after: str | None = None, timeout: float = 120,
        delay: float = 0.5) -> Reply:
    """Execute ``code``; if ``interrupt_after`` is given, interrupt the kernel
    ``delay`` seconds after that text was printed and time how long the error took."""
    msg_id = client.execute(code)
    reply = Reply(status="?")
    sent = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = client.get_iopub_msg(timeout=1)
        except queue.Empty:
            if not km.is_alive():
                reply.status = "dead"
                return reply
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            reply.outputs.append(content)
            if interrupt_after and sent is None and interrupt_after in reply.text:
                time.sleep(delay)
                sent = time.monotonic()
                km.interrupt_kernel()
        elif kind in ("execute_result", "display_data"):
            reply.outputs.append({"text": content["data"].get("text/plain", "")})
        elif kind == "error":
            reply.ename, reply.traceback = content["ename"], content["traceback"]
            if sent is not None:
                reply.seconds_after_interrupt = time.monotonic() - sent
        elif kind == "status" and content["execution_state"] == "idle":
            reply.status = "error" if reply.ename else "ok"
            return reply
    reply.status = "timeout" if km.is_alive() else "dead"
    return reply

TRAIN_FOREVER = """%%torch_on_ascend {flags}
import torch
net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
x = torch.randn(32, 64)
step = 0
while True:
    opt.zero_grad()
    loss = net(x).pow(2).mean()
    loss.backward()
    opt.step()
    step += 1
    if step == 3:  # compiled by now in graph mode: interrupt a steady training loop
        print("started", flush=True)
"""
NATIVE = "import mindspore as ms\nprint(ms.ops.matmul(ms.ops.ones((4, 4)), ms.ops.ones((4, 4))).sum())"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


PLAIN_LOOP = 'print("started", flush=True)\nwhile True:\n    sum(range(100))'
SLOWDOWN = """import time as _t
_c, _w, _n = _t.thread_time(), _t.perf_counter(), 0
while _t.thread_time() - _c < 0.3:
    _n += 1
print("slowdown", (_t.perf_counter() - _w) / (_t.thread_time() - _c))"""


def plain_python_latency(km, client) -> float:
    """How long this kernel takes to report an interrupt of a plain Python loop
    (messaging and traceback rendering on a possibly busy host): the baseline."""
    reply = run(km, client, PLAIN_LOOP, interrupt_after="started")
    assert reply.ename == "KeyboardInterrupt", reply
    return reply.seconds_after_interrupt


def slowdown(km, client) -> float:
    """How many times slower than its own CPU time the kernel's main thread
    runs now (wall / thread CPU time of a 0.3 s CPU-bound loop; >= 1)."""
    reply = run(km, client, SLOWDOWN)
    assert reply.status == "ok", reply
    return max(1.0, float(re.search(r"slowdown ([0-9.e+-]+)", reply.text).group(1)))


def within_2s(km, client, code: str, interrupt_after: str, delay: float = 0.5) -> Reply:
    """Interrupt ``code`` and assert the KeyboardInterrupt came within 2 s of this machine's speed."""
    baseline = plain_python_latency(km, client)
    before = slowdown(km, client)
    reply = run(km, client, code, interrupt_after=interrupt_after, timeout=90, delay=delay)
    assert reply.status == "error" and reply.ename == "KeyboardInterrupt", reply
    factor = max(before, slowdown(km, client))
    assert reply.seconds_after_interrupt < 2.0 * factor + baseline, (reply.seconds_after_interrupt, factor, baseline)
    return reply


def next_cell_runs(km, client) -> None:
    after = run(km, client, "%%torch_on_ascend\nimport torch\nprint(torch.ones(2).sum().item())")
    assert after.status == "ok" and "2.0" in after.text, after


def interrupt_then_next_cell(km, client, flags: str) -> None:
    reply = within_2s(km, client, TRAIN_FOREVER.format(flags=flags), "started")
    text = ANSI.sub("", "\n".join(reply.traceback))
    # any line of the loop's body (8: opt.zero_grad() ... 14), never MindSpore's or msnb's frames
    assert re.search(r"Cell In\[\d+\], line (8|9|10|11|12|13|14|15)", text), text
    assert "msnb/" not in text and "mindspore/" not in text and len(text.splitlines()) < 20
    next_cell_runs(km, client)


@pytest.mark.parametrize("launch, native_first", [("blocking", False), ("async", False), ("async", True), ("blocking", True)])
def test_interrupt_in_pynative_and_graph_mode(launch, native_first):
    with kernel({"MSNB_LAUNCH": launch}) as (km, client):
        if native_first:
            assert "64" in run(km, client, NATIVE).text
        assert run(km, client, "%load_ext msnb").status == "ok"
        for flags in ("", "--mode graph"):
            interrupt_then_next_cell(km, client, flags)


# SIGINT at the one place that broke MindSpore's trace recorder: inside its
# graph compiler (``trace_end``), which calls back into Python to fold
# constants (``infer_value_for_*``): the KeyboardInterrupt is raised there and
# unwinds through MindSpore's C++ compiler.  Sent once, by the kernel itself,
# so it lands there on every run (an interrupt timed from outside lands there
# only sometimes).
SIGINT_IN_COMPILER = """import os, signal
import mindspore.ops.operations.manually_defined.ops_def as _od
from msnb.adapter import _ms as _msnb_ms
_state = {"armed": False, "sent": 0}
def _sigint_in_compiler(fn):
    def call(*args, **kwargs):
        if _state["armed"] and not _state["sent"]:
            _state["sent"] += 1
            os.kill(os.getpid(), signal.SIGINT)
        return fn(*args, **kwargs)
    return call
for _name in dir(_od):
    if _name.startswith("infer_value_for_"):
        setattr(_od, _name, _sigint_in_compiler(getattr(_od, _name)))
_trace_end = _msnb_ms.trace_end
def _armed_trace_end(outputs):
    _state["armed"] = True
    try:
        return _trace_end(outputs)
    finally:
        _state["armed"] = False
_msnb_ms.trace_end = _armed_trace_end
"""
FIRST_RECORDING = """%%torch_on_ascend --mode graph
import torch
layers = []
for _ in range(4):
    layers += [torch.nn.Linear(32, 32), torch.nn.ReLU()]
deep = torch.nn.Sequential(*layers)
x = torch.randn(8, 32)
while True:
    deep.zero_grad()
    deep(x).pow(2).mean().backward()
"""
AFTER_RECORDING = """%%torch_on_ascend --mode graph
import torch
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(6):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(net(x), y)
    loss.backward()
    opt.step()
print("graph steps ok", loss.item())
"""
AFTER_RECORDING_EAGER = AFTER_RECORDING.replace(" --mode graph", "")


def test_interrupt_inside_graph_compiler_leaves_the_recorder_clean():
    """SIGINT while MindSpore compiles the first recorded graph of a model
    (msnb graph mode): the cell ends with KeyboardInterrupt, and the next
    cells, PyNative and graph mode, compute what they compute in a fresh
    kernel.  (Before the fix, MindSpore's C++ recorder stayed "open": every
    later op failed with ``'NoneType' object has no attribute 'run_op'``.)"""
    with kernel({"MSNB_LAUNCH": "blocking"}) as (km, client):
        assert run(km, client, "%load_ext msnb").status == "ok"
        eager = run(km, client, AFTER_RECORDING_EAGER)
        assert eager.status == "ok", eager
        expected = float(re.search(r"graph steps ok (\S+)", eager.text).group(1))
        assert run(km, client, SIGINT_IN_COMPILER).status == "ok"
        reply = run(km, client, FIRST_RECORDING, timeout=90)
        assert reply.status == "error" and reply.ename == "KeyboardInterrupt", reply
        text = ANSI.sub("", "\n".join(reply.traceback))  # the user's line; msnb's frames hidden
        assert re.search(r"Cell In\[\d+\], line 10", text) and "msnb/" not in text, text
        assert "1" in run(km, client, 'print(_state["sent"])').text
        next_cell_runs(km, client)
        again = run(km, client, AFTER_RECORDING)
        assert again.status == "ok", again
        got = float(re.search(r"graph steps ok (\S+)", again.text).group(1))
        assert abs(got - expected) <= 1e-4 * max(1.0, abs(expected)), (again.text, expected)
