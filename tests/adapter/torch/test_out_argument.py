"""``out=`` the PyTorch way, against real PyTorch (issue 12, point 7).

One helper (``_core.write_out``, reached from every function PyTorch gives
``out=``: ``_out_arg``) carries PyTorch's rules, so each rule is checked on a
few functions of different kinds: the result lands in ``out``, which is
returned; a non-empty ``out`` of another shape is resized with PyTorch's
deprecation warning (an empty one silently); ``out`` keeps its dtype, and a
result that cannot be cast to it is refused; autograd through ``out=`` is
refused; an expanded ``out`` and, for the ops that refuse any overlap, an
``out`` sharing memory with an argument are refused; a function PyTorch gives
no ``out=`` refuses the keyword.  Before, ~80 functions (``torch.linalg.det``,
``torch.rand``, ``torch.bernoulli``, ``torch.index_select`` ...) accepted
``out=`` and left it untouched, and ``take``/``sort``/``kthvalue`` ...
refused it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .harness import compare_behaviour, mt, real

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
M = np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.float32)


def _t(lib, a):
    return lib.tensor(a)


# (id, call(lib) -> (returned, out)): the returned value must be out itself, holding torch's value
WRITES = [
    ("take", lambda t: (lambda o: (t.take(_t(t, X), t.tensor([0, 5, 11]), out=o), o))(t.empty(3))),
    ("masked_select", lambda t: (lambda o: (t.masked_select(_t(t, X), _t(t, X) > 0.8, out=o), o))(t.empty(0))),
    ("kthvalue", lambda t: (lambda o: (t.kthvalue(_t(t, X), 2, 1, out=o), o))(
        (t.empty(0), t.empty(0, dtype=t.int64)))),
    ("sort", lambda t: (lambda o: (t.sort(_t(t, X), 0, True, out=o), o))((t.empty(0), t.empty(0, dtype=t.int64)))),
    ("index_select", lambda t: (lambda o: (t.index_select(_t(t, X), 1, t.tensor([3, 0]), out=o), o))(t.empty(0))),
    ("linalg.det", lambda t: (lambda o: (t.linalg.det(_t(t, M), out=o), o))(t.empty(0))),
    ("linalg.inv", lambda t: (lambda o: (t.linalg.inv(_t(t, M), out=o), o))(t.empty(2, 2))),
    ("cumsum into float64", lambda t: (lambda o: (t.cumsum(_t(t, X), 1, out=o), o))(t.empty(0, dtype=t.float64))),
    ("argmax", lambda t: (lambda o: (t.argmax(_t(t, X), 1, out=o), o))(t.empty(0, dtype=t.int64))),
    ("square", lambda t: (lambda o: (t.square(_t(t, X), out=o), o))(t.empty(0))),
]


@pytest.mark.parametrize("call", [w[1] for w in WRITES], ids=[w[0] for w in WRITES])
def test_out_receives_the_result_and_is_returned(call):
    ret, out = call(mt)
    if isinstance(out, tuple):
        assert all(r is o for r, o in zip(ret, out))
    else:
        assert ret is out
    compare_behaviour(lambda lib: call(lib)[1])


def test_random_functions_write_out():
    """``rand``/``bernoulli`` ignored ``out`` (the draw was returned, ``out`` left as it was)."""
    for call in (lambda t, o: t.rand(2, 3, out=o), lambda t, o: t.bernoulli(t.ones(2, 3), out=o)):
        out = mt.zeros(0)
        assert call(mt, out) is out and tuple(out.shape) == (2, 3)


def _warned(fn, lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = fn(lib)
    return res, [str(x.message) for x in w if issubclass(x.category, UserWarning)]


@pytest.mark.parametrize("fn", [
    lambda t: t.add(t.ones(3), 1, out=t.ones(5)),
    lambda t: t.take(t.ones(4), t.tensor([0, 1]), out=t.ones(3)),
    lambda t: t.sum(t.ones(2, 3), 0, out=t.ones(3, 3)),
], ids=["add", "take", "sum"])
def test_resizing_a_non_empty_out_warns_as_pytorch(fn):
    (_, rw), (mres, mw) = _warned(fn, real), _warned(fn, mt)
    assert any("was resized" in m for m in rw)
    assert [m for m in mw if "was resized" in m], mw
    assert "t.resize_(0)" in [m for m in mw if "was resized" in m][0]
    compare_behaviour(fn)


def test_resizing_an_empty_out_is_silent():
    _, w = _warned(lambda t: t.add(t.ones(3), 1, out=t.ones(0)), mt)
    assert not [m for m in w if "resized" in m]


@pytest.mark.parametrize("fn", [
    lambda t: t.add(t.ones(3, dtype=t.int64), 1, out=t.zeros(5)),  # kept float32 while resized
    lambda t: t.add(t.ones(3), 1, out=t.ones(3, dtype=t.float64)),
    lambda t: t.take(t.arange(6), t.tensor([1, 4]), out=t.zeros(0, dtype=t.float32)),
], ids=["int_into_float_resized", "float_into_double", "take_long_into_float"])
def test_out_keeps_its_dtype(fn):
    compare_behaviour(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.add(t.ones(3), 1, out=t.ones(3, dtype=t.int64)),
    lambda t: t.add(t.ones(3), 1, out=t.ones(5, dtype=t.int64)),  # refused also when resizing
    lambda t: t.take(t.ones(4), t.tensor([0]), out=t.zeros(1, dtype=t.int64)),
    # autograd through out=: an input or out itself requiring grad
    lambda t: t.add(t.ones(3, requires_grad=True), 1, out=t.ones(3)),
    lambda t: t.cat([t.ones(3, requires_grad=True), t.ones(2)], out=t.ones(5)),
    lambda t: t.mm(t.ones(2, 2, requires_grad=True), t.ones(2, 2), out=t.ones(2, 2)),
    lambda t: t.add(t.ones(3), 1, out=t.ones(3, requires_grad=True)),
    # out whose elements share memory
    lambda t: t.add(t.ones(3), 1, out=t.zeros(1).expand(3)),
    lambda t: t.cat([t.ones(2), t.ones(1)], out=t.zeros(1, 1).expand(1, 3)[0]),
    # out sharing memory with an argument of an op that refuses any overlap
    lambda t: (lambda x: t.take(x, t.tensor([0, 1]), out=x[:2]))(t.arange(4.0)),
    lambda t: (lambda x: t.index_select(x, 0, t.tensor([1, 0]), out=x))(t.arange(2.0)),
    lambda t: (lambda x: t.cat([x, x], out=x))(t.ones(2)),
    lambda t: (lambda x: t.gather(x, 0, t.tensor([1, 0]), out=x))(t.arange(2.0)),
    lambda t: (lambda x: t.masked_select(x, x > 0, out=x))(t.arange(3.0)),
    lambda t: (lambda x: t.kthvalue(x, 1, out=(x, t.zeros((), dtype=t.int64))))(t.arange(3.0)),
    # functions PyTorch gives no out=
    lambda t: t.det(t.eye(2), out=t.empty(0)),
    lambda t: t.relu(t.ones(2), out=t.empty(0)),
    lambda t: t.sort(t.ones(2), out=t.empty(0)),  # a pair of outputs wants a tuple
], ids=["float_into_long", "float_into_long_resize", "take_float_into_long", "grad_input", "grad_cat",
        "grad_mm", "grad_out", "expanded", "expanded_row", "take_into_input", "index_select_into_input",
        "cat_into_input", "gather_into_input", "masked_select_into_input", "kthvalue_into_input",
        "det_has_no_out", "relu_has_no_out", "sort_needs_a_tuple"])
def test_out_refusals_match_pytorch(fn):
    compare_behaviour(fn)


@pytest.mark.parametrize("fn", [
    lambda t: (lambda x: (t.add(x, 1, out=x), x))(t.ones(3)),  # elementwise ops accept out= their input
    lambda t: (lambda x: (t.take(x[2:], t.tensor([0, 1]), out=x[:2]), x))(t.arange(4.0)),  # disjoint views
    lambda t: t.add(t.ones(3), 1, out=t.zeros(1).expand(3).contiguous()),
], ids=["add_into_input", "take_disjoint_views", "contiguous_copy_of_expanded"])
def test_out_sharing_pytorch_accepts(fn):
    compare_behaviour(fn)


def test_no_grad_allows_out_with_grad_inputs():
    def fn(t):
        with t.no_grad():
            return t.add(t.ones(3, requires_grad=True), 1, out=t.ones(3))
    compare_behaviour(fn)
