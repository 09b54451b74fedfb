"""``torch.autograd.graph.saved_tensors_hooks`` / ``save_on_cpu`` /
``disable_saved_tensors_hooks`` against real PyTorch: which tensors the pack
hook sees (and in which order) for common ops, that backward computes with
what the unpack hook returns (the saved-tensors tutorial's checks), unpacking
again on every backward, custom Functions, nesting, no packing without grad,
double backward, and the errors PyTorch raises."""

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
G = "torch.autograd.graph."
HOOKS, ON_CPU, OFF = G + "saved_tensors_hooks", G + "save_on_cpu", G + "disable_saved_tensors_hooks"
A, B = np.array([1.0, 2.0, -0.5], np.float32), np.array([3.0, 4.0, 1.5], np.float32)


def beh(id, names, fn, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def _logged(t, op):
    """The pack / unpack calls (with the values they saw) of ``op`` and its gradients."""
    a, b = t.tensor(A, requires_grad=True), t.tensor(B, requires_grad=True)
    log = []

    def pack(x):
        log.append(("pack", x.tolist(), t.is_grad_enabled()))
        return x

    def unpack(x):
        log.append(("unpack", x.tolist()))
        return x

    with t.autograd.graph.saved_tensors_hooks(pack, unpack) as entered:
        y = op(t, a, b)
    y.sum().backward()
    return log, entered, a.grad, b.grad


OPS = {
    "a * b": lambda t, a, b: a * b,
    "a * b.detach()": lambda t, a, b: a * b.detach(),
    "x * x": lambda t, a, b: a * a,
    "pow": lambda t, a, b: a.pow(2),
    "exp": lambda t, a, b: a.exp(),
    "sin": lambda t, a, b: a.sin(),
    "tanh": lambda t, a, b: t.tanh(a),
    "sigmoid": lambda t, a, b: t.sigmoid(a),
    "div": lambda t, a, b: a / b,
    "add saves nothing": lambda t, a, b: a + b,
    "sum saves nothing": lambda t, a, b: a.sum() + b.sum(),
    "chain": lambda t, a, b: (a * b).exp() * a,
}
for _name, _op in OPS.items():
    beh(f"pack/unpack of {_name}", (HOOKS,), lambda t, op=_op: _logged(t, op))


# --- the saved-tensors tutorial's checks: backward uses what unpack returns ------------------------
def _scaled(t):
    x = t.tensor(A, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(lambda v: v * 4, lambda v: v / 4):
        y = t.pow(x, 2)
    y.sum().backward()
    return x.grad, bool(x.grad.equal(2 * x))


def _stored(t):
    storage = []

    def pack(v):
        storage.append(v)
        return len(storage) - 1

    x = t.tensor(A, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(pack, lambda i: storage[i]):
        y = x * x
    y.sum().backward()
    return x.grad, len(storage)


def _changed(t):
    """The unpacked value is what backward multiplies by (10x the saved operand)."""
    a = t.tensor(A, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v * 10):
        y = (a * t.tensor(B)).sum()
    y.backward()
    return a.grad


def _repr_eval(t):
    x = t.tensor(A, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(lambda v: repr(v.detach()), lambda s: eval("torch." + s, {"torch": t})):
        y = x * x
    y.sum().backward()
    return x.grad


beh("unpacked values are used (x * 4 / 4)", (HOOKS,), _scaled)
beh("pack returns an index", (HOOKS,), _stored)
beh("unpack changes the value", (HOOKS,), _changed)
beh("pack to a string and back", (HOOKS,), _repr_eval)


def _retained(t):
    a = t.tensor(A, requires_grad=True)
    n = []
    with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: n.append(1) or v):
        y = (a * a).sum()
    y.backward(retain_graph=True)
    y.backward()
    return len(n), a.grad


def _no_grad(t):
    a = t.tensor(A, requires_grad=True)
    n = []
    with t.autograd.graph.saved_tensors_hooks(lambda v: n.append(1) or v, lambda v: v):
        with t.no_grad():
            a * a
        t.ones(2) * t.ones(2)
    return len(n)


def _nested(t):
    a = t.tensor(A, requires_grad=True)
    log = []
    with t.autograd.graph.saved_tensors_hooks(lambda v: log.append("outer") or v, lambda v: log.append("u-out") or v):
        with t.autograd.graph.saved_tensors_hooks(lambda v: log.append("inner") or v,
                                                  lambda v: log.append("u-in") or v):
            y = a * a
        z = a.sin()
    y.sum().backward()
    z.sum().backward()
    return log, a.grad


beh("unpacked again on every backward", (HOOKS,), _retained)
beh("nothing is packed without grad", (HOOKS,), _no_grad)
beh("the innermost hooks pack and unpack", (HOOKS,), _nested)


def _bad_unpack(t):
    a = t.tensor(A, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: "not a tensor"):
        y = a * a
    try:
        y.sum().backward()
    except TypeError as e:
        return str(e)


def _custom_function(t):
    class Twice(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            (again,) = ctx.saved_tensors
            return g * x * again

    log = []
    b = t.tensor(B, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(lambda v: log.append("p") or v, lambda v: log.append("u") or v * 3):
        y = Twice.apply(b)
    y.sum().backward()
    return log, b.grad


def _double_backward(t):
    c = t.tensor(A, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):
        y = (c * c * c).sum()
    (g,) = t.autograd.grad(y, c, create_graph=True)
    g.sum().backward()
    return g, c.grad


beh("unpack must return a tensor", (HOOKS,), _bad_unpack)
beh("a custom Function's saved tensors", (HOOKS,), _custom_function)
beh("double backward through hooks", (HOOKS,), _double_backward)


# --- save_on_cpu and disable_saved_tensors_hooks ----------------------------------------------------
def _on_cpu(t):
    t.manual_seed(0)
    lin = t.nn.Linear(3, 4)
    w = t.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    with t.no_grad():
        lin.weight.copy_(w)
        lin.bias.fill_(0.25)
    x = t.tensor(np.stack([A, B]))
    with t.autograd.graph.save_on_cpu(pin_memory=False) as entered:
        y = t.tanh(lin(x)) * x.sum()
    y.sum().backward()
    return entered, y, lin.weight.grad, lin.bias.grad


def _disabled(t):
    out = []
    try:
        with t.autograd.graph.disable_saved_tensors_hooks("hooks are off here"):
            with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):
                pass
    except RuntimeError as e:
        out.append(str(e))
    try:
        with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):
            with t.autograd.graph.disable_saved_tensors_hooks("cannot disable now"):
                pass
    except RuntimeError as e:
        out.append(str(e))
    with t.autograd.graph.disable_saved_tensors_hooks("off"):
        a = t.tensor(A, requires_grad=True)
        (a * a).sum().backward()
    out.append(a.grad)
    with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):  # usable again after the block
        out.append(1)
    return out


beh("save_on_cpu", (ON_CPU,), _on_cpu)
beh("disable_saved_tensors_hooks", (OFF,), _disabled)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_saved_tensors_hooks_match_pytorch(c):
    run_case(c)
