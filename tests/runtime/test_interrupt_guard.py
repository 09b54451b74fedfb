"""InterruptGuard in-process: Python's SIGINT handler is back at the C level
inside a cell, a SIGTERM while another C handler (MindSpore's) holds SIGINT
becomes KeyboardInterrupt, and the SIGTERM disposition is restored after."""

from __future__ import annotations

import os
import signal
import sys

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


FAKE_MINDSPORE_OP = '''import ctypes
def op(obj):
    # as MindSpore's C++ looks attributes up on an op's arguments: PyObject_HasAttr clears any exception
    return ctypes.pythonapi.PyObject_HasAttrString(ctypes.py_object(obj), b"_probe")
'''


class _InterruptedLookup:
    """An argument whose attribute lookup is where the interrupt lands."""

    def __getattr__(self, name):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs here, inside the swallowing lookup
            pass
        raise AttributeError(name)


@pytest.fixture
def fake_mindspore(tmp_path, monkeypatch):
    """An "op" whose file counts as MindSpore's package for the guard, and the
    SIGINT disposition of a Jupyter kernel (Python's default handler; pytest-xdist
    workers ignore SIGINT)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield _load_fake_op(tmp_path, monkeypatch)
    signal.signal(signal.SIGINT, previous)


def _load_fake_op(tmp_path, monkeypatch):
    import importlib.util
    path = tmp_path / "fake_ms_op.py"
    path.write_text(FAKE_MINDSPORE_OP)
    spec = importlib.util.spec_from_file_location("fake_ms_op", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(interrupts, "_callback_roots", lambda: (str(tmp_path) + os.sep,), raising=False)
    return module


def test_interrupt_inside_a_swallowing_callback_arrives_after_the_op(fake_mindspore):
    """Without the deferral the KeyboardInterrupt is raised inside the lookup,
    cleared by PyObject_HasAttr, and the cell runs on as if never interrupted."""
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts.InterruptGuard():
            assert fake_mindspore.op(_InterruptedLookup()) == 0
            reached.append("line after the op")  # raised here, before this line runs
    assert reached == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert sys.gettrace() is None or sys.gettrace() is not interrupts._DeferredInterrupt._trace


def test_interrupt_in_the_last_op_of_a_cell_is_raised_when_the_cell_ends(fake_mindspore):
    with pytest.raises(KeyboardInterrupt):
        with interrupts.InterruptGuard():
            fake_mindspore.op(_InterruptedLookup())


def test_interrupt_outside_mindspore_is_raised_at_once(fake_mindspore):
    with pytest.raises(KeyboardInterrupt):
        with interrupts.InterruptGuard():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):
                pass
            pytest.fail("the interrupt did not arrive in the loop it interrupted")


def test_interrupt_in_an_attribute_lookup_from_c_without_mindspore_frames(monkeypatch):
    """msnb calls some MindSpore kernels directly (no MindSpore Python frame on the
    stack); MindSpore's C++ still looks attributes up on the arguments, so a
    ``__getattr__`` called from C is never where the interrupt is raised."""
    import ctypes
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(interrupts, "_callback_roots", lambda: ())
    reached = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.InterruptGuard():
                assert ctypes.pythonapi.PyObject_HasAttrString(ctypes.py_object(_InterruptedLookup()), b"_probe") == 0
                reached.append("line after the lookup")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert reached == []
