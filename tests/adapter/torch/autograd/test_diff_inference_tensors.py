"""Tensors made inside ``torch.inference_mode`` are inference tensors, as in PyTorch:
``is_inference()`` says so (views of them too, a view of a normal tensor taken inside does
not), and outside the block PyTorch refuses to save them for backward, to write them in
place and to make them require grad -- msnb raised nothing and let autograd record them."""

from __future__ import annotations

import pytest

from ..harness import case, mt, real, run_case


def _made_inside(t):
    normal = t.ones(3)
    with t.inference_mode():
        a = t.ones(3)
        b = a * 2
        req = t.ones(2, requires_grad=True)
        v_normal = normal.view(3)
        normal.add_(1)  # a normal tensor written in place inside stays normal
        a.add_(1)  # inside, inference tensors may be written
    return normal, a, b, req, v_normal


@pytest.mark.parametrize("lib", [real, mt], ids=["torch", "msnb"])
def test_is_inference_follows_pytorch(lib):
    t = lib
    normal, a, b, req, v_normal = _made_inside(t)
    got = [normal.is_inference(), a.is_inference(), b.is_inference(), req.is_inference(),
           v_normal.is_inference(), a.view(3).is_inference(), a[1:].is_inference(), a.detach().is_inference(),
           (a + 1).is_inference(), a.clone().is_inference(), normal.tolist(), a.tolist()]
    with t.inference_mode(False):
        got.append(t.ones(1).is_inference())
    assert got == [False, True, True, True, False, True, True, True, False, False, [2.0] * 3, [2.0] * 3, False]


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception type and message are compared
        return type(e).__name__, str(e).split(".")[0]
    return "ok", ""


USES = {
    "saved for backward (mul)": lambda t, a, w: a * w,
    "saved for backward (linear)": lambda t, a, w: t.nn.functional.linear(a.view(1, 3), w.view(1, 3)),
    "not saved (add)": lambda t, a, w: (a + w).sum().backward(),
    "in place outside": lambda t, a, w: a.add_(1),
    "in place into a view outside": lambda t, a, w: a[1:].mul_(2),
    "in place under no_grad": lambda t, a, w: _under(t.no_grad(), lambda: a.zero_()),
    "out= outside": lambda t, a, w: t.add(w.detach(), 1, out=a),
    "requires_grad_": lambda t, a, w: a.requires_grad_(),
    "Parameter": lambda t, a, w: t.nn.Parameter(a),
    "clone then autograd": lambda t, a, w: (a.clone() * w).sum().backward(),
    "in place inside a later block": lambda t, a, w: _under(t.inference_mode(), lambda: a.add_(1)),
}


def _under(ctx, fn):
    with ctx:
        return fn()


@pytest.mark.parametrize("use", list(USES))
def test_outside_uses_raise_as_pytorch(use):
    outcomes = []
    for t in (real, mt):
        with t.inference_mode():
            a = t.ones(3)
        w = t.full((3,), 2.0, requires_grad=True)
        outcomes.append(_outcome(lambda: USES[use](t, a, w)))
    assert outcomes[1] == outcomes[0]


def _flags(t):
    normal, a, b, req, v_normal = _made_inside(t)
    return [x.is_inference() for x in (normal, a, b, req, v_normal, a[1:], a + 1)]


#: the differential case table test_diff_coverage reads
CASES = [case("is_inference of tensors made inside and outside the block", "torch.Tensor.is_inference", _flags,
              kind="behaviour")]


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_case_table(c):
    run_case(c)
