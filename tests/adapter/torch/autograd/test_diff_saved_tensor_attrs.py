"""Differential tests of a node's saved tensors as attributes (``grad_fn._saved_self``,
``_saved_other``, ``_saved_result``) against real PyTorch, as the saved-tensors-hooks
tutorial reads them: the saved inputs are the very tensor objects, the saved output
a new tensor on the same data whose grad_fn is the node, access under
``saved_tensors_hooks`` runs the unpack hook, a node that saved nothing raises
AttributeError, and a freed node RuntimeError."""

from __future__ import annotations

import pytest

from ..harness import case, run_case

CASES = []
NAMES = ("torch.Tensor.grad_fn", "torch.autograd.graph.saved_tensors_hooks")


def beh(id, fn):
    CASES.append(case(id, NAMES, fn, kind="behaviour"))


def mul_inputs(t):
    a = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = t.tensor([0.5, 4.0, -1.0], requires_grad=True)
    y = a * b
    return y.grad_fn._saved_self is a, y.grad_fn._saved_other is b, y.grad_fn._saved_self


def exp_result(t):
    a = t.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = t.exp(a)
    r = y.grad_fn._saved_result
    return r.equal(y), r is y, r.requires_grad, r.grad_fn is y.grad_fn, r


def unary_input(t):
    a = t.tensor([1.0, -2.0, 0.5], requires_grad=True)
    return a.sin().grad_fn._saved_self is a, a.pow(2).grad_fn._saved_self is a


def unpack_each_access(t):
    calls = []

    def pack(x):
        calls.append("pack")
        return x.clone()

    def unpack(x):
        calls.append("unpack")
        return x

    x = t.ones(3, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.pow(2)
    first, second = y.grad_fn._saved_self, y.grad_fn._saved_self
    return calls, first is x, first.equal(x), second.equal(x)


beh("mul saves its operands", mul_inputs)
beh("exp saves its result", exp_result)
beh("sin / pow save their input", unary_input)
beh("saved_tensors_hooks: unpack on every access", unpack_each_access)
beh("add saves nothing: AttributeError", lambda t: (t.ones(2, requires_grad=True) + 1).grad_fn._saved_self)
beh("not a saved name: AttributeError", lambda t: t.ones(2, requires_grad=True).exp().grad_fn._saved_nothing)


def freed(t):
    a = t.ones(3, requires_grad=True)
    y = a * a
    y.sum().backward()
    return y.grad_fn._saved_self


beh("after backward freed it: RuntimeError", freed)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_saved_tensor_attributes_match_pytorch(c):
    run_case(c)
