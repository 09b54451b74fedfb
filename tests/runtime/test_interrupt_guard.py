"""InterruptGuard in-process: Python's SIGINT handler is back at the C level
inside a cell, a SIGTERM while another C handler (MindSpore's) holds SIGINT
becomes KeyboardInterrupt, and the SIGTERM disposition is restored after."""

from __future__ import annotations

import os
import signal

import pytest

from msnb.runtime import interrupts


def test_guard_converts_mindspores_sigterm_and_restores_handlers(monkeypatch):
    before = signal.getsignal(signal.SIGTERM)
    with interrupts.InterruptGuard():
        python_handler = interrupts._PYTHON_TRAMPOLINE
        assert python_handler and interrupts._c_handler(signal.SIGINT) == python_handler
        # stand-in for MindSpore's handler: the guard must see "someone else holds SIGINT"
        monkeypatch.setattr(interrupts, "_PYTHON_TRAMPOLINE", python_handler + 1)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10_000):  # the Python-level handler runs at the next bytecode boundary
                pass
        assert interrupts._c_handler(signal.SIGINT) == python_handler  # Python's handler put back
    assert signal.getsignal(signal.SIGTERM) == before
