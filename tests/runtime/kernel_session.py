"""A real Jupyter kernel driven with jupyter_client, for interrupt tests.

Kept tiny: start a kernel with extra environment, run a cell and collect its
outputs, interrupt a running cell after it printed a marker.
"""

from __future__ import annotations

import os
import queue
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from jupyter_client import KernelManager


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
    km.start_kernel(env={**os.environ, "GLOG_v": "3", **env})
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
