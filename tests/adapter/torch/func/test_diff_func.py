"""Differential tests of ``torch.func`` (vmap and the autodiff transforms, functional
module calls) against real PyTorch: values, shapes, which results carry a graph,
and the exception types of PyTorch's argument checks."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, run_case

rng = np.random.default_rng(12)
A = rng.standard_normal((3, 2)).astype(np.float32)
B = rng.standard_normal((2, 4)).astype(np.float32)
V = rng.standard_normal(3).astype(np.float32)

CASES = []


def undict(x):
    """Dicts as tuples of (key, value) pairs: the harness compares tuples element-wise."""
    if isinstance(x, dict):
        return tuple((k, undict(v)) for k, v in x.items())
    if isinstance(x, (tuple, list)) and not hasattr(x, "shape"):
        return type(x)(undict(v) for v in x) if type(x) in (tuple, list) else tuple(undict(v) for v in x)
    return x


def beh(id, names, fn, **opts):
    CASES.append(case(id, names, lambda t: undict(fn(t)), kind="behaviour", **opts))


def f_scalar(a):
    return (a.sin() * a).sum()


def f_vec(a):
    return a.sin() * a.exp()


# --- vmap ----------------------------------------------------------------------------------
VM = ("torch.func.vmap",)
beh("vmap[matmul,in_dims]", VM, lambda t: t.func.vmap(lambda a, b: a @ b, in_dims=(0, None))(t.tensor(A), t.tensor(B)))
beh("vmap[in_dim 1,out_dim 1]", VM, lambda t: t.func.vmap(lambda a: a * 2, in_dims=1, out_dims=1)(t.tensor(A)))
beh("vmap[negative dims]", VM, lambda t: t.func.vmap(lambda a: a.sum(), in_dims=-1)(t.tensor(A)))
beh("vmap[nested]", VM, lambda t: t.func.vmap(t.func.vmap(lambda a: a.exp()))(t.tensor(A)))
beh("vmap[pytree in/out]", VM, lambda t: t.func.vmap(lambda d: (d["x"] + d["y"], d["x"].sum()))(
    {"x": t.tensor(A), "y": t.tensor(A) * 2}))
beh("vmap[out_dims tuple, None]", VM, lambda t: t.func.vmap(lambda a: (a * 3, 1), out_dims=(0, None))(t.tensor(A)))
beh("vmap[kwargs unbatched]", VM, lambda t: t.func.vmap(lambda a, *, s: a * s)(t.tensor(A), s=t.tensor(2.0)))
beh("vmap[zero-size batch]", VM, lambda t: t.func.vmap(lambda a: a * 2)(t.ones(0, 3)).shape)
beh("vmap[chunk_size]", VM, lambda t: t.func.vmap(lambda a: a.cos(), chunk_size=2)(t.tensor(A)))
beh("vmap[0-d samples]", VM, lambda t: t.func.vmap(lambda a: a * a)(t.tensor(V)))
beh("torch.vmap is torch.func.vmap", ("torch.vmap",), lambda t: t.vmap is t.func.vmap)
beh("vmap[grad of per-sample]", VM + ("torch.func.grad",),
    lambda t: t.func.vmap(t.func.grad(f_scalar))(t.tensor(A)))
for bad_id, bad in (
        ("size mismatch", lambda t: t.func.vmap(lambda a, b: a + b)(t.tensor(A), t.ones(4, 2))),
        ("non-tensor in_dim", lambda t: t.func.vmap(lambda a: a)(1.0)),
        ("in_dim out of range", lambda t: t.func.vmap(lambda a: a, in_dims=5)(t.tensor(A))),
        ("in_dims None", lambda t: t.func.vmap(lambda a: a, in_dims=None)(t.tensor(A))),
        ("in_dims structure", lambda t: t.func.vmap(lambda a: a, in_dims=(0, 0))(t.tensor(A))),
        ("in_dim float", lambda t: t.func.vmap(lambda a: a, in_dims=(0.5,))(t.tensor(A))),
        ("nothing batched", lambda t: t.func.vmap(lambda a: a, in_dims=(None,))(t.tensor(A))),
        ("no inputs", lambda t: t.func.vmap(lambda: 1)()),
        ("non-tensor output", lambda t: t.func.vmap(lambda a: 1.0)(t.tensor(A))),
        ("out_dim out of range", lambda t: t.func.vmap(lambda a: a, out_dims=3)(t.tensor(A))),
        ("out_dims structure", lambda t: t.func.vmap(lambda a: a.sum(), out_dims=(0, 0))(t.tensor(A))),
        ("randomness value", lambda t: t.func.vmap(lambda a: a, randomness="foo")),
        ("randomness error", lambda t: t.func.vmap(lambda a: a + t.rand(2))(t.tensor(A))),
        ("chunk_size 0", lambda t: t.func.vmap(lambda a: a, chunk_size=0)(t.tensor(A)))):
    beh(f"vmap raises[{bad_id}]", VM, bad)


def vmap_randomness(t):
    t.manual_seed(0)
    same = t.func.vmap(lambda a: a + t.rand(2), randomness="same")(t.zeros(3, 2))
    diff = t.func.vmap(lambda a: a + t.rand(2), randomness="different")(t.zeros(3, 2))
    return bool((same[0] == same[1]).all() and (same[1] == same[2]).all()), bool((diff[0] != diff[1]).any())


beh("vmap[randomness same/different]", VM, vmap_randomness)

# --- grad / vjp / jvp / jacobians ---------------------------------------------------------
beh("grad", ("torch.func.grad",), lambda t: t.func.grad(f_scalar)(t.tensor(A)))
beh("grad[argnums tuple]", ("torch.func.grad",),
    lambda t: t.func.grad(lambda a, b: (a @ b).sum(), argnums=(0, 1))(t.tensor(A), t.tensor(B)))
beh("grad[has_aux]", ("torch.func.grad",),
    lambda t: t.func.grad(lambda a: (f_scalar(a), a.mean()), has_aux=True)(t.tensor(A)))
beh("grad[dict input]", ("torch.func.grad",),
    lambda t: t.func.grad(lambda p: (p["w"] * p["b"]).sum())({"w": t.tensor(A), "b": t.tensor(A) + 1}))
beh("grad[unused input is zeros]", ("torch.func.grad",),
    lambda t: t.func.grad(lambda a, b: a.sum(), argnums=1)(t.tensor(A), t.tensor(A)))
beh("grad of grad", ("torch.func.grad",), lambda t: t.func.grad(t.func.grad(lambda a: a.sin().sum()))(t.tensor(0.5)))
beh("grad[result detached]", ("torch.func.grad",), lambda t: t.func.grad(f_scalar)(t.tensor(A)).requires_grad)


def grad_through_closure(t):
    w = t.tensor(V[:2]).requires_grad_()
    g = t.func.grad(lambda a: (a * w).sum())(t.tensor(A))
    return g.requires_grad, g


beh("grad[keeps outside graph]", ("torch.func.grad",), grad_through_closure)


def grad_no_grad(t):
    with t.no_grad():
        return t.func.grad(lambda a: (a ** 2).sum())(t.tensor(A))


beh("grad[under no_grad]", ("torch.func.grad",), grad_no_grad)
beh("grad_and_value", ("torch.func.grad_and_value",), lambda t: t.func.grad_and_value(f_scalar)(t.tensor(A)))
beh("grad_and_value[has_aux]", ("torch.func.grad_and_value",),
    lambda t: t.func.grad_and_value(lambda a: (f_scalar(a), {"m": a.max()}), has_aux=True)(t.tensor(A)))
for bad_id, bad in (("non-scalar", lambda t: t.func.grad(lambda a: a)(t.tensor(A))),
                    ("non-tensor", lambda t: t.func.grad(lambda a: 1.0)(t.tensor(A))),
                    ("argnum range", lambda t: t.func.grad(lambda a: a.sum(), argnums=2)(t.tensor(A))),
                    ("aux not tuple", lambda t: t.func.grad(lambda a: a.sum(), has_aux=True)(t.tensor(A))),
                    ("argnums repeated", lambda t: t.func.grad(lambda a: a.sum(), argnums=(0, 0))(t.tensor(A))),
                    ("argnums float", lambda t: t.func.grad(lambda a: a.sum(), argnums=1.0)(t.tensor(A))),
                    ("integer input", lambda t: t.func.grad(lambda a: a.sum())(t.ones(2, dtype=t.long)))):
    beh(f"grad raises[{bad_id}]", ("torch.func.grad",), bad)


def vjp_case(t):
    out, fn = t.func.vjp(f_vec, t.tensor(A))
    return out, fn(t.ones(3, 2)), fn(t.tensor(A))


beh("vjp", ("torch.func.vjp",), vjp_case)


def vjp_two(t):
    out, fn, aux = t.func.vjp(lambda a, b: ((a @ b).tanh(), a.sum()), t.tensor(A), t.tensor(B), has_aux=True)
    return out, fn(t.ones(3, 4)), aux


beh("vjp[two primals, aux]", ("torch.func.vjp",), vjp_two)
beh("vjp raises[cotangent shape]", ("torch.func.vjp",), lambda t: t.func.vjp(lambda a: a * 2, t.tensor(A))[1](t.ones(2)))
beh("vjp raises[cotangent structure]", ("torch.func.vjp",),
    lambda t: t.func.vjp(lambda a: a * 2, t.tensor(A))[1]((t.ones(3, 2),)))
beh("vjp raises[non-tensor output]", ("torch.func.vjp",), lambda t: t.func.vjp(lambda a: 2, t.tensor(A)))
beh("jvp", ("torch.func.jvp",), lambda t: t.func.jvp(f_vec, (t.tensor(A),), (t.ones(3, 2),)))
beh("jvp[two primals]", ("torch.func.jvp",),
    lambda t: t.func.jvp(lambda a, b: (a @ b).sigmoid(), (t.tensor(A), t.tensor(B)), (t.tensor(A), t.tensor(B) * 0.5)))
beh("jvp[has_aux]", ("torch.func.jvp",),
    lambda t: t.func.jvp(lambda a: (a.exp(), a.sum()), (t.tensor(A),), (t.ones(3, 2),), has_aux=True))
beh("jvp raises[primals not tuple]", ("torch.func.jvp",), lambda t: t.func.jvp(lambda a: a, t.tensor(A), t.tensor(A)))
beh("jvp raises[structure]", ("torch.func.jvp",),
    lambda t: t.func.jvp(lambda a: a, (t.tensor(A),), (t.tensor(A), t.tensor(A))))
beh("jvp raises[tangent shape]", ("torch.func.jvp",), lambda t: t.func.jvp(lambda a: a, (t.tensor(A),), (t.ones(2),)))
beh("jacrev", ("torch.func.jacrev",), lambda t: t.func.jacrev(f_vec)(t.tensor(V)))
beh("jacrev[matrix in, argnums tuple]", ("torch.func.jacrev",),
    lambda t: t.func.jacrev(lambda a, b: a @ b, argnums=(0, 1))(t.tensor(A), t.tensor(B)))
beh("jacrev[tuple output, aux]", ("torch.func.jacrev",),
    lambda t: t.func.jacrev(lambda a: ((a.sin(), a.sum()), a.max()), has_aux=True)(t.tensor(V)))
beh("jacrev raises[argnum]", ("torch.func.jacrev",), lambda t: t.func.jacrev(lambda a: a, argnums=3)(t.tensor(V)))
beh("jacfwd", ("torch.func.jacfwd",), lambda t: t.func.jacfwd(f_vec)(t.tensor(V)))
beh("jacfwd[argnums tuple]", ("torch.func.jacfwd",),
    lambda t: t.func.jacfwd(lambda a, b: (a @ b).tanh(), argnums=(0, 1))(t.tensor(A), t.tensor(B)))
beh("hessian", ("torch.func.hessian",), lambda t: t.func.hessian(f_scalar)(t.tensor(V)), rtol=1e-4, atol=1e-5)
beh("hessian[matrix]", ("torch.func.hessian",),
    lambda t: t.func.hessian(lambda a: (a.tanh() ** 2).sum())(t.tensor(A)), rtol=1e-4, atol=1e-5)
beh("vmap of jacrev", ("torch.func.jacrev", "torch.func.vmap"), lambda t: t.func.vmap(t.func.jacrev(f_vec))(t.tensor(A)))


def jacrev_custom_function(t, style):
    class Sq(t.autograd.Function):
        generate_vmap_rule = True

        if style == "ctx":
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x
        else:
            @staticmethod
            def forward(x):
                return x * x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return t.func.jacrev(Sq.apply)(t.tensor(V)), t.func.vmap(Sq.apply)(t.tensor(A))


beh("jacrev[custom Function, setup_context]", ("torch.func.jacrev",), lambda t: jacrev_custom_function(t, "setup"))
beh("jacrev raises[custom Function with ctx forward]", ("torch.func.jacrev",),
    lambda t: jacrev_custom_function(t, "ctx"))


# --- functional_call / stack_module_state ---------------------------------------------------
def lin(t):
    t.manual_seed(0)
    return t.nn.Linear(2, 2)


FC = ("torch.func.functional_call",)
beh("functional_call", FC, lambda t: t.func.functional_call(
    lin(t), {"weight": t.tensor(A[:2]), "bias": t.tensor(V[:2])}, (t.tensor(A),)))
beh("functional_call[single arg, kwargs]", FC, lambda t: (
    t.func.functional_call(lin(t), {"weight": t.tensor(A[:2]), "bias": t.tensor(V[:2])}, t.tensor(A)),
    t.func.functional_call(lin(t), {"weight": t.tensor(A[:2])}, kwargs={"input": t.tensor(A)})))
beh("functional_call[restores params]", FC, lambda t: (lambda m: (
    t.func.functional_call(m, {"weight": t.zeros(2, 2)}, t.tensor(A)), m(t.tensor(A))))(lin(t)))
beh("functional_call[tuple of dicts]", FC, lambda t: t.func.functional_call(
    lin(t), ({"weight": t.tensor(A[:2])}, {"bias": t.ones(2)}), t.tensor(A)))
beh("functional_call[grad over params]", FC + ("torch.func.grad",), lambda t: t.func.grad(
    lambda p, x: t.func.functional_call(lin(t), p, (x,)).pow(2).sum())(
    {"weight": t.tensor(A[:2]), "bias": t.tensor(V[:2])}, t.tensor(A)))
for bad_id, bad in (
        ("strict missing", lambda t: t.func.functional_call(lin(t), {"weight": t.zeros(2, 2)}, t.tensor(A),
                                                            strict=True)),
        ("strict unexpected", lambda t: t.func.functional_call(lin(t), {"weight": t.zeros(2, 2), "bias": t.ones(2),
                                                                        "foo": t.ones(1)}, t.tensor(A), strict=True)),
        ("no such submodule", lambda t: t.func.functional_call(lin(t), {"a.b": t.ones(1)}, t.tensor(A))),
        ("duplicate key", lambda t: t.func.functional_call(lin(t), ({"weight": t.zeros(2, 2)},
                                                                    {"weight": t.ones(2, 2)}), t.tensor(A)))):
    beh(f"functional_call raises[{bad_id}]", FC, bad)


def tied(t):
    class T(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = t.nn.Linear(2, 2, bias=False)
            self.b = t.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    t.manual_seed(0)
    return T()


beh("functional_call[tie_weights]", FC, lambda t: (
    t.func.functional_call(tied(t), {"a.weight": t.eye(2) * 2}, t.tensor(A)),
    t.func.functional_call(tied(t), {"a.weight": t.eye(2) * 2}, t.tensor(A), tie_weights=False)))
beh("functional_call raises[tied given twice]", FC, lambda t: t.func.functional_call(
    tied(t), {"a.weight": t.eye(2), "b.weight": t.eye(2)}, t.tensor(A)))


def stacked(t):
    ms = [lin(t), lin(t)]
    params, buffers = t.func.stack_module_state(ms)
    bn_p, bn_b = t.func.stack_module_state([t.nn.BatchNorm1d(2), t.nn.BatchNorm1d(2)])
    return ({k: (v, v.requires_grad, v.is_leaf) for k, v in params.items()}, buffers,
            {k: v.shape for k, v in bn_b.items()})


SM = ("torch.func.stack_module_state",)
beh("stack_module_state", SM, stacked)


def ensemble(t):
    base = lin(t)
    params, buffers = t.func.stack_module_state([lin(t), lin(t), lin(t)])
    return t.func.vmap(lambda p, b, x: t.func.functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))(
        params, buffers, t.tensor(A))


beh("stack_module_state + vmap ensemble", SM + FC + VM, ensemble)
beh("stack_module_state raises[empty]", SM, lambda t: t.func.stack_module_state([]))
beh("stack_module_state raises[classes]", SM, lambda t: t.func.stack_module_state([lin(t), t.nn.ReLU()]))
beh("stack_module_state raises[modes]", SM, lambda t: t.func.stack_module_state([lin(t), lin(t).eval()]))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_func_matches_pytorch(c):
    run_case(c)


def test_forward_mode_through_a_non_differentiable_backward_is_refused():
    """A backward msnb does not record differentiably would give a zero tangent:
    msnb raises its unsupported error instead (PyTorch computes it)."""
    import msnb.adapter.torch as mt
    from msnb.adapter.torch._missing import NotSupportedError

    class Opaque(mt.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return (g.detach() * 3)

    with pytest.raises(NotSupportedError, match="forward-mode AD"):
        mt.func.jvp(Opaque.apply, (mt.ones(2),), (mt.ones(2),))
