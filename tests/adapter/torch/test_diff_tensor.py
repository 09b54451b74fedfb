"""Differential tests: ``torch.Tensor`` metadata, conversions, copies and
fills, and the autograd API (``backward``, hooks, ``torch.autograd.grad``,
grad modes, custom ``Function``), compared with real PyTorch."""

from __future__ import annotations

import io

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(5)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
ROW = rng.standard_normal((4,)).astype(np.float32)
I = rng.integers(-5, 6, (3, 4)).astype(np.int64)

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def beh(id, names, fn, **opts):
    add(id, names, fn, kind="behaviour", **opts)


def T(name):
    return registered(f"torch.Tensor.{name}")


# --- metadata ----------------------------------------------------------------------------------
beh("metadata", registered(*[f"torch.Tensor.{n}" for n in (
    "shape", "size", "dtype", "dim", "ndim", "ndimension", "numel", "nelement", "element_size", "itemsize", "nbytes",
    "stride", "device", "is_cuda", "is_cpu", "is_sparse", "is_quantized", "is_meta", "layout", "is_contiguous")]),
    lambda t: [(x.shape, x.size(), x.size(1) if x.ndim > 1 else x.size(0), x.size(-1), x.dtype, x.dim(), x.ndim,
                x.ndimension(), x.numel(), x.nelement(), x.element_size(), x.itemsize, x.nbytes, x.stride(),
                x.stride(0), x.device, x.is_cuda, x.is_cpu, x.is_sparse, x.is_quantized, x.is_meta, str(x.layout),
                x.is_contiguous())
               for x in (t.ones(2, 3, 4), t.zeros(5, dtype=t.int64), t.ones(2, 2, dtype=t.float16), t.tensor([True]),
                         t.ones(3, dtype=t.float64))])
beh("grad", T("grad"), lambda t: (lambda x: (x.grad, (x * 3).sum().backward(), x.grad, x.grad is x.grad))(
    t.ones(2, requires_grad=True)))
beh("size[error]", T("size"), lambda t: t.ones(2).size(2))
beh("stride[transposed]", T("stride"), lambda t: (t.ones(2, 3).t().contiguous().stride(), t.ones(2, 3, 4).stride(-1)))
beh("data_ptr", T("data_ptr") + T("untyped_storage"),
    lambda t: (lambda x: (x.data_ptr() == x.view(-1).data_ptr(), x.data_ptr() == x.clone().data_ptr(),
                          x.untyped_storage().data_ptr() == x[0].untyped_storage().data_ptr(),
                          x.untyped_storage().data_ptr() == t.ones(2).untyped_storage().data_ptr()))(t.ones(2, 3)))

# --- conversions -------------------------------------------------------------------------------------
beh("casts", registered(*[f"torch.Tensor.{n}" for n in ("float", "double", "half", "int", "long", "short", "char", "byte",
                                                         "bool", "bfloat16")]),
    lambda t: [(lambda x: (x.float(), x.double(), x.half(), x.int(), x.long(), x.short(), x.char(), x.byte(), x.bool(),
                           x.bfloat16().dtype, x.float() is x if x.dtype == t.float32 else None))(x)
               for x in (t.tensor([1.7, -2.2, 0.0]), t.tensor([3, -1, 0]), t.tensor([True, False, True]))])
add("casts[grad]", T("double") + T("half") + T("float"), lambda t, x: (x.double() * 2, x.half().float(), x.double().float()), A,
    rtol=1e-3, atol=1e-3)
beh("to", T("to"),
    lambda t: (lambda x: (x.to(t.float64), x.to("cpu") is x, x.to(t.device("cpu")), x.to("cpu", t.int32), x.to(dtype=t.float16),
                          x.to(t.ones(1, dtype=t.int64)), x.to(x) is x, x.to(t.float32) is x, x.to(t.float32, copy=True) is x,
                          x.to(device="cpu", dtype=t.float64, non_blocking=True)))(t.tensor([1.5, 2.5])))
beh("to[bad-kwarg]", T("to"), lambda t: t.ones(2).to(dtype=t.float64, foo=1))
add("to[grad]", T("to"), lambda t, x: (x.to(t.float64) * 3, x.to(t.float16).to(t.float32)), A, rtol=1e-3, atol=1e-3)
beh("type", T("type") + T("type_as"),
    lambda t: (lambda x: (x.type(), t.ones(2, dtype=t.int64).type(), x.type(t.float64), x.type("torch.LongTensor"),
                          x.type_as(t.ones(1, dtype=t.int32)), t.ones(1, dtype=t.bool).type(),
                          t.ones(1, dtype=t.float16).type()))(t.tensor([1.5, 2.0])))
beh("cpu/cuda", T("cpu") + T("cuda") + T("pin_memory") + T("is_pinned") + T("share_memory_"),
    lambda t: (lambda x: (x.cpu() is x, x.cpu(), x.pin_memory() if False else None, x.is_pinned(),
                          x.share_memory_() is x))(t.tensor([1.0])))
beh("numpy", T("numpy") + T("tolist") + T("item") + T("__array__"),
    lambda t: (lambda x: (x.numpy(), x.tolist(), x[0, 1].item(), np.asarray(x), np.asarray(x, dtype=np.float64),
                          t.tensor([3]).item(), t.tensor(True).item(), t.ones(2, dtype=t.int64).tolist(), t.tensor(2.5).tolist(),
                          np.array(t.tensor([1, 2])).dtype.str, x.detach().numpy()))(t.tensor([[1.5, 2.0], [3.0, 4.0]])))
beh("numpy[requires-grad]", T("numpy"), lambda t: t.ones(2, requires_grad=True).numpy())
beh("item[error]", T("item"), lambda t: t.ones(2).item())
beh("python-numbers", T("__bool__") + T("__float__") + T("__int__") + T("__len__") + T("__format__"),
    lambda t: (bool(t.tensor([1.0])), bool(t.tensor(0)), float(t.tensor([2.5])), int(t.tensor(3.9)), int(t.tensor([-2.5])),
               len(t.ones(3, 2)), f"{t.tensor(2.5):.3f}", format(t.tensor(7), "d"), f"{t.tensor(1.25)}",
               "%.1f" % t.tensor(0.25).item(), [1, 2, 3][t.tensor(1)]))
beh("bool[ambiguous]", T("__bool__"), lambda t: bool(t.ones(2)))
beh("len[0d]", T("__len__"), lambda t: len(t.tensor(1.0)))
beh("iter", T("__iter__"), lambda t: (list(t.tensor([[1, 2], [3, 4]])), [float(v) for v in t.tensor([1.5, 2.5])],
                                    tuple(t.arange(3))))
beh("iter[0d]", T("__iter__"), lambda t: iter(t.tensor(1.0)))
beh("new_*", T("new_tensor") + T("new_zeros") + T("new_ones") + T("new_empty") + T("new_full"),
    lambda t: (lambda x: (x.new_tensor([1, 2]), x.new_tensor([1.5]), x.new_zeros(2, 3), x.new_zeros((2,)), x.new_ones(2),
                          x.new_ones(1, dtype=t.int64), x.new_empty(3).shape, x.new_empty((2, 2)).dtype, x.new_full((2,), 3),
                          x.new_full([1, 2], 1.5), x.new_tensor([1.0], requires_grad=True).requires_grad))
    (t.ones(2, dtype=t.float64)))

# --- copies and fills ---------------------------------------------------------------------------------
add("copy_", T("copy_"), lambda t, x, y, r, i: (lambda z, w, v: (z.copy_(y) is z, z, w.copy_(r), v.copy_(x)))
    (x.clone(), x.clone(), i.clone()), A, B, ROW, I)
add("fill_", T("fill_"),
    lambda t, x, y: (lambda z, w, v: (z.fill_(2.5) is z, z, w.fill_(y[0, 0]), v.fill_(3)))(x.clone(), x.clone(), t.ones(2, dtype=t.int64)),
    A, B)
add("zero_", T("zero_"), ("zero_", lambda t: ()), A, kind="inplace")
add("fill_[view]", T("fill_") + T("zero_"), lambda t, x: (lambda z: (z[0].fill_(1.0), z[:, 1].zero_(), z)[2])(x.clone()), A)
beh("resize_", T("resize_"),
    lambda t: (lambda x: (x.resize_(2, 2) is x, x, x.resize_(3).shape, x.resize_((1, 3)).shape))(t.arange(6.0)))
beh("apply_/map_", T("apply_") + T("map_"),
    lambda t: (lambda x, y: (x.apply_(lambda v: v * 2 + 1) is x, x, y.map_(t.tensor([10.0, 20.0, 30.0]), lambda a, b: a + b) is y,
                             y))(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.0, 3.0])))
add("data", T("data"),
    lambda t, x: (lambda z: (z.data.mul_(2), z.data.requires_grad, z.data.is_leaf, z * 1)[3])(x.clone()), A)
beh("data[setter]", T("data"),
    lambda t: (lambda w: (setattr(w, "data", t.zeros(2)), w, w.requires_grad, w.is_leaf))(t.ones(2, requires_grad=True)))

# --- autograd API --------------------------------------------------------------------------------------------------
beh("requires_grad", T("requires_grad") + T("requires_grad_") + T("is_leaf") + T("grad_fn"),
    lambda t: (lambda x: (x.requires_grad, x.requires_grad_() is x, x.requires_grad, x.is_leaf, (x * 2).is_leaf,
                          (x * 2).requires_grad, x.grad_fn is None, type((x * 2).grad_fn).__name__ != "NoneType",
                          (x * 2).grad_fn.name(), (x + 1).grad_fn.name(), (x.sum()).grad_fn.name(), x.requires_grad_(False).requires_grad,
                          t.ones(2).requires_grad))(t.ones(2)))
beh("requires_grad[int]", T("requires_grad_"), lambda t: t.ones(2, dtype=t.int64).requires_grad_())
beh("requires_grad[non-leaf]", T("requires_grad_"), lambda t: (t.ones(2, requires_grad=True) * 2).requires_grad_(False))
beh("requires_grad[setter]", T("requires_grad"),
    lambda t: (lambda x: (setattr(x, "requires_grad", True), x.requires_grad, x.is_leaf))(t.zeros(3)))


def _backward(t):
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    g1 = x.grad.clone()
    y.backward()  # accumulates
    z = x * 2
    z.backward(t.tensor([1.0, 0.5, 0.0]))
    w = t.tensor(2.0, requires_grad=True)
    (w ** 3).backward(t.tensor(1.0))
    return g1, x.grad, w.grad


beh("backward", T("backward"), _backward)
beh("backward[nonscalar]", T("backward"), lambda t: (t.ones(2, requires_grad=True) * 2).backward())
beh("backward[no-grad]", T("backward"), lambda t: t.ones(2).sum().backward())
beh("backward[freed]", T("backward"),
    lambda t: (lambda y: (y.backward(), y.backward()))((t.ones(2, requires_grad=True).exp()).sum()))


def _hooks(t):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.clone()))
    y = x * 3
    y.register_hook(lambda g: g * 2)
    y.retain_grad()
    r = (y * y).sum()
    r.backward()
    h.remove()
    (x * 1).sum().backward()
    return seen, x.grad, y.grad, y.retains_grad, x.retains_grad, len(seen)


beh("hooks", T("register_hook") + T("retain_grad") + T("retains_grad"), _hooks)
beh("hook[no-grad]", T("register_hook"), lambda t: t.ones(2).register_hook(lambda g: g))
beh("retain_grad[no-grad]", T("retain_grad"), lambda t: t.ones(2).retain_grad())


def _autograd_fns(t):
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
    out = (x * y).sum() + (x ** 3).sum()
    gx, gy = t.autograd.grad(out, (x, y), create_graph=True)
    (ggx,) = t.autograd.grad(gx.sum(), x)
    z = (x * 2).sum()
    t.autograd.backward(z)
    unused = t.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
    mat = t.autograd.grad((x * 2).sum(), [x, y], allow_unused=True, materialize_grads=True)
    t.autograd.backward([(x * x).sum(), (y * 2).sum()], inputs=[y])
    v = t.autograd.Variable(t.ones(2), requires_grad=True)
    return gx, gy, ggx, x.grad, unused[1] is None, mat, y.grad, v.requires_grad, isinstance(v, t.Tensor)


beh("autograd.grad", registered("torch.autograd.grad", "torch.autograd.backward", "torch.autograd.Variable"), _autograd_fns)
beh("autograd.grad[unused]", registered("torch.autograd.grad"),
    lambda t: (lambda x, y: t.autograd.grad((x * 2).sum(), [x, y]))(t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)))
beh("autograd.grad[vector]", registered("torch.autograd.grad"),
    lambda t: (lambda x: t.autograd.grad(x * x, x, grad_outputs=t.tensor([1.0, 2.0])))(t.tensor([3.0, 4.0], requires_grad=True)))


#: names msnb's ``torch.autograd`` exports that PyTorch keeps elsewhere: compared with PyTorch's object
_AUTOGRAD_ELSEWHERE = {"is_grad_enabled": "is_grad_enabled", "is_inference_mode_enabled": "is_inference_mode_enabled",
                       "Node": "autograd.graph.Node", "once_differentiable": "autograd.function.once_differentiable",
                       "FunctionCtx": "autograd.function.FunctionCtx"}


def ag(t, name):
    """``t.autograd.<name>``, or PyTorch's own location of it."""
    if hasattr(t.autograd, name):
        return getattr(t.autograd, name)
    obj = t
    for part in _AUTOGRAD_ELSEWHERE[name].split("."):
        obj = getattr(obj, part)
    return obj


def _grad_modes(t):
    x = t.ones(2, requires_grad=True)
    out = []
    with t.no_grad():
        out.append(((x * 2).requires_grad, t.is_grad_enabled()))
        with t.enable_grad():
            out.append(((x * 2).requires_grad, t.is_grad_enabled()))
    with t.set_grad_enabled(False):
        out.append(((x * 2).requires_grad, ag(t, "is_grad_enabled")()))
    with t.autograd.no_grad():
        out.append((x * 2).requires_grad)
    with t.autograd.set_grad_enabled(True), t.autograd.enable_grad():
        out.append((x * 2).requires_grad)
    with t.inference_mode():
        out.append(((x * 2).requires_grad, t.is_inference_mode_enabled(), ag(t, "is_inference_mode_enabled")()))
    with t.autograd.inference_mode(False):
        out.append(((x * 2).requires_grad, t.is_inference_mode_enabled()))

    @t.no_grad()
    def f(v):
        return v * 2

    @t.inference_mode()
    def g(v):
        return v * 2

    out += [f(x).requires_grad, g(x).requires_grad, t.is_grad_enabled(), t.is_inference_mode_enabled()]
    prev = t.is_grad_enabled()
    t.set_grad_enabled(False)
    out.append(t.is_grad_enabled())
    t.set_grad_enabled(prev)
    return out


beh("grad-modes", registered("torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled", "torch.is_grad_enabled",
                             "torch.inference_mode", "torch.is_inference_mode_enabled", "torch.autograd.no_grad",
                             "torch.autograd.enable_grad", "torch.autograd.set_grad_enabled",
                             "torch.autograd.is_grad_enabled", "torch.autograd.inference_mode",
                             "torch.autograd.is_inference_mode_enabled"), _grad_modes)


def _function(t):
    class Cube(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x ** 3 * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2 * ctx.k, None

    class Twice(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable
            return x * 2, x + 1

        @staticmethod
        @ag(t, "once_differentiable")
        def backward(ctx, g1, g2):
            return g1 * 2 + g2

    x = t.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = Cube.apply(x, 2.0)
    a, b = Twice.apply(x)
    (y.sum() + (a * b).sum()).backward()
    return y, a, b, x.grad, y.grad_fn is not None, isinstance(y.grad_fn, t.autograd.graph.Node), \
        issubclass(Cube, t.autograd.Function), callable(ag(t, "FunctionCtx"))


beh("autograd.Function", registered("torch.autograd.Function", "torch.autograd.FunctionCtx", "torch.autograd.once_differentiable",
                                    "torch.autograd.graph", "torch.autograd.Node"), _function)


def _node(t):
    x = t.ones(2, requires_grad=True)
    y = (x * 2).sum()
    fn = y.grad_fn
    nxt = fn.next_functions
    return fn.name(), isinstance(fn, t.autograd.graph.Node), len(nxt), nxt[0][0].name(), isinstance(fn, ag(t, "Node"))


beh("autograd.Node", registered("torch.autograd.Node", "torch.autograd.graph"), _node)


def _save_load(t):
    buf = io.BytesIO()
    obj = {"w": t.arange(6.0).reshape(2, 3), "i": t.tensor([1, 2]), "n": 3, "l": [t.ones(2, dtype=t.float64)]}
    t.save(obj, buf)
    buf.seek(0)
    back = t.load(buf)
    return sorted(back), back["w"], back["i"], back["n"], back["l"]


beh("save/load", registered("torch.save", "torch.load"), _save_load)

# --- methods msnb binds to their torch.* function (x.f(...) == torch.f(x, ...)) --------------------
beh("is_nonzero-method", T("is_nonzero"), lambda t: (t.tensor([2.0]).is_nonzero(), t.tensor(0).is_nonzero()))
beh("multinomial-method-one-hot", T("multinomial"),
    lambda t: t.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 3.0]]).multinomial(1))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_tensor(c):
    run_case(c)
