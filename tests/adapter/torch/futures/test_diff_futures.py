"""Differential tests of ``torch.futures`` against real PyTorch 2.13: results,
callback order and values, which errors ``wait()`` / ``value()`` raise (type and
message head), ``then`` wrapping callback errors, ``collect_all`` / ``wait_all``,
and a future completed from another thread."""

from __future__ import annotations

import threading

import pytest

from ..harness import case, run_case

CASES = []


def beh(id, names, fn):
    CASES.append(case(id, names, fn, kind="behaviour"))


def _err(fn):
    """``(type name, first line of the message)`` of what ``fn()`` raises, or its value."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the error is the result
        return (type(e).__name__, str(e).splitlines()[0] if str(e) else "")


def _basic(t):
    f = t.futures.Future()
    before = f.done()
    f.set_result(41)
    return before, f.done(), f.wait(), f.value()


def _twice(t):
    f = t.futures.Future()
    f.set_result(1)
    again = _err(lambda: f.set_result(2))
    value = f.value()  # read first: PyTorch's failed set_exception leaves value() broken
    return again, value, _err(lambda: f.set_exception(ValueError("x")))


def _exception(t):
    f = t.futures.Future()
    f.set_exception(ValueError("boom"))
    return f.done(), _err(f.wait), _err(f.value)


def _not_an_exception(t):
    return _err(lambda: t.futures.Future().set_exception(5))


def _then_chain(t):
    f = t.futures.Future()
    g = f.then(lambda fut: fut.value() + 1).then(lambda fut: fut.value() * 10)
    pending = g.done()
    f.set_result(2)
    return pending, g.wait()


def _then_on_done(t):
    f = t.futures.Future()
    f.set_result(t.ones(2))
    return f.then(lambda fut: fut.value() * 3).wait()


def _then_callback_raises(t):
    f = t.futures.Future()
    g = f.then(lambda fut: int("x"))
    f.set_result(1)
    return g.done(), _err(g.wait)


def _then_after_exception(t):
    f = t.futures.Future()
    f.set_exception(KeyError("k"))
    ignoring = f.then(lambda fut: 5).wait()
    reading = _err(f.then(lambda fut: fut.value()).wait)
    return ignoring, reading


def _done_callbacks(t):
    seen = []
    f = t.futures.Future()
    f.add_done_callback(lambda fut: seen.append(("first", fut.value())))
    f.set_result(7)
    f.add_done_callback(lambda fut: seen.append(("late", fut.value())))  # already done: runs inline
    return tuple(seen)


def _done_callback_raises(t):
    f = t.futures.Future()

    def bad(fut):
        raise KeyError("dropped")

    f.add_done_callback(bad)
    f.set_result(3)  # PyTorch logs the callback's error and completes the future
    return f.done(), f.value()


def _collect_all(t):
    a, b = t.futures.Future(), t.futures.Future()
    c = t.futures.collect_all([a, b])
    states = [c.done()]
    b.set_result("b")
    states.append(c.done())
    a.set_result("a")
    states.append(c.done())
    return tuple(states), tuple(f.value() for f in c.wait())


def _collect_all_error(t):
    a, b = t.futures.Future(), t.futures.Future()
    c = t.futures.collect_all([a, b])
    a.set_result(1)
    b.set_exception(RuntimeError("r"))
    return c.done(), _err(c.wait), _err(lambda: t.futures.wait_all([a, b]))


def _wait_all(t):
    futs = [t.futures.Future() for _ in range(3)]
    for i, f in enumerate(futs):
        f.set_result(i * i)
    return tuple(t.futures.wait_all(futs))


def _from_another_thread(t):
    f = t.futures.Future()
    threading.Timer(0.05, lambda: f.set_result("late")).start()
    return f.wait()


def _devices(t):
    return (_err(lambda: t.futures.Future(devices=[]).done()), _err(lambda: t.futures.Future(devices=["cpu"])),
            _err(lambda: t.futures.Future(devices=["cuda:0"])))


def _isinstance(t):
    f = t.futures.Future()  # (PyTorch's then() children are torch._C.Future, not this class: not compared)
    return isinstance(f, t.futures.Future), repr(f).startswith("<torch.jit.Future object at 0x")


beh("result", ("torch.futures.Future",), _basic)
beh("complete-twice", ("torch.futures.Future",), _twice)
beh("set-exception", ("torch.futures.Future",), _exception)
beh("set-exception-not-exception", ("torch.futures.Future",), _not_an_exception)
beh("then-chain", ("torch.futures.Future",), _then_chain)
beh("then-on-done-tensor", ("torch.futures.Future",), _then_on_done)
beh("then-callback-raises", ("torch.futures.Future",), _then_callback_raises)
beh("then-after-exception", ("torch.futures.Future",), _then_after_exception)
beh("add-done-callback", ("torch.futures.Future",), _done_callbacks)
beh("add-done-callback-raises", ("torch.futures.Future",), _done_callback_raises)
beh("collect-all", ("torch.futures.collect_all",), _collect_all)
beh("collect-all-error", ("torch.futures.collect_all", "torch.futures.wait_all"), _collect_all_error)
beh("wait-all", ("torch.futures.wait_all",), _wait_all)
beh("other-thread", ("torch.futures.Future",), _from_another_thread)
beh("devices", ("torch.futures.Future",), _devices)
beh("isinstance-repr", ("torch.futures.Future",), _isinstance)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_futures_match_pytorch(c):
    run_case(c)


def test_then_error_names_the_callback_frame():
    """The wrapped error carries the traceback of the failing callback, as PyTorch's does."""
    import msnb.adapter.torch as mt

    def failing_callback(fut):
        raise ValueError("inside")

    f = mt.futures.Future()
    g = f.then(failing_callback)
    f.set_result(0)
    with pytest.raises(RuntimeError, match="ValueError: inside") as e:
        g.wait()
    assert "failing_callback" in str(e.value)
