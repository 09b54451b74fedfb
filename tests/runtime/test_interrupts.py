"""Kernel -> Interrupt during an msnb cell: KeyboardInterrupt within 2 s (beyond
what the same kernel takes for a plain Python loop on this host), a
short traceback at the user's line, and the kernel runs the next cell.

Real kernels through jupyter_client (``km.interrupt_kernel()`` sends SIGINT
as JupyterLab does).  One kernel per launch mode, reused for PyNative and
graph mode; the asynchronous kernel runs native MindSpore first, the case
where MindSpore's own SIGINT handler (which sends SIGTERM) is in place
before msnb ever ran.  The interrupt comes once the loop is compiled and
training (an interrupt while graph mode records a step can leave MindSpore's
trace state broken for later cells: a known gap of graph mode, see the report).
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


def run(km, client, code: str, interrupt_after: str | None = None, timeout: float = 120) -> Reply:
    """Execute ``code``; if ``interrupt_after`` is given, interrupt the kernel
    once that text was printed and time how long the error took."""
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
                time.sleep(0.5)
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


def plain_python_latency(km, client) -> float:
    """How long this kernel takes to report an interrupt of a plain Python loop
    (messaging and traceback rendering on a possibly busy host): the baseline."""
    reply = run(km, client, PLAIN_LOOP, interrupt_after="started")
    assert reply.ename == "KeyboardInterrupt", reply
    return reply.seconds_after_interrupt


def interrupt_then_next_cell(km, client, flags: str, baseline: float) -> None:
    reply = run(km, client, TRAIN_FOREVER.format(flags=flags), interrupt_after="started", timeout=90)
    assert reply.status == "error" and reply.ename == "KeyboardInterrupt", reply
    assert reply.seconds_after_interrupt < 2.0 + baseline, (reply.seconds_after_interrupt, baseline)
    text = ANSI.sub("", "\n".join(reply.traceback))
    assert re.search(r"Cell In\[\d+\], line (9|10|11|12|13|14|15)", text), text
    assert "msnb/" not in text and "mindspore/" not in text and len(text.splitlines()) < 20
    after = run(km, client, "%%torch_on_ascend\nimport torch\nprint(torch.ones(2).sum().item())")
    assert after.status == "ok" and "2.0" in after.text, after


@pytest.mark.parametrize("launch, native_first", [("blocking", False), ("async", False), ("async", True), ("blocking", True)])
def test_interrupt_in_pynative_and_graph_mode(launch, native_first):
    with kernel({"MSNB_LAUNCH": launch}) as (km, client):
        if native_first:
            assert "64" in run(km, client, NATIVE).text
        assert run(km, client, "%load_ext msnb").status == "ok"
        baseline = plain_python_latency(km, client)
        for flags in ("", "--mode graph"):
            interrupt_then_next_cell(km, client, flags, baseline)
