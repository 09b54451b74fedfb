"""msnb implementation of ``torch.autograd.functional``: jacobian, hessian,
vjp, jvp, hvp and vhp of a function of tensors, over msnb's autograd (the
same machinery as :mod:`torch.func`; jvp by the double-vjp construction).

Results are detached unless ``create_graph=True``."""

from __future__ import annotations

from .._tensor import Tensor
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, what, fn_name):
    if isinstance(x, tuple):
        is_tuple, xs = True, x
    elif isinstance(x, list):
        is_tuple, xs = True, tuple(x)
    else:
        is_tuple, xs = False, (x,)
    for t in xs:
        if not isinstance(t, Tensor):
            if what == "inputs":
                raise TypeError(f"The inputs given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                                f"the given inputs has type {type(x)}.")
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"given {what} has type {type(x)}.")
    return is_tuple, xs


def _enter(xs, create_graph):
    with enable_grad():
        return tuple(t.clone() if (create_graph and t.requires_grad) else t.detach().requires_grad_(True)
                     for t in xs)


def _finish(tree, create_graph, is_tuple):
    def fix(t):
        if isinstance(t, tuple):
            return tuple(fix(v) for v in t)
        return t if create_graph or t is None else t.detach()
    out = fix(tree)
    if not is_tuple:
        return out[0]
    return out


def _outputs(func, inputs, fn_name, create_graph):
    with enable_grad():
        out = func(*inputs)
    is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    return is_tuple, outs


def _grad(outs, inputs, vs, create_graph, strict, strict_msg="input"):
    from .._ops.creation import zeros_like
    from . import grad as agrad
    pairs = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    if strict:
        for i, o in enumerate(outs):
            if not o.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                                   "must be computed in a differentiable manner from the input when running in "
                                   "strict mode.")
    if not pairs:
        return tuple(zeros_like(i) for i in inputs)
    with enable_grad():
        gs = agrad([o for o, _ in pairs], inputs, grad_outputs=[v for _, v in pairs], retain_graph=True,
                   create_graph=True, allow_unused=True)
    if strict:
        for i, g in enumerate(gs):
            if g is None:
                raise RuntimeError(f"The output of the user-provided function is independent of {strict_msg} {i}. "
                                   "This is not allowed in strict mode.")
    return tuple(zeros_like(i) if g is None else g for g, i in zip(gs, inputs))


def _check_v(v, outs, fn_name, what="output"):
    if v is None:
        if len(outs) != 1 or outs[0].numel() != 1:
            src = "user-provided function returns" if what == "output" else "input to the user-provided function is"
            raise RuntimeError(f"The vector v can only be None if the {src} a single Tensor with a single element.")
        from .._ops.creation import ones_like
        return (ones_like(outs[0]),)
    _, vs = _as_tuple(v, "v", fn_name)
    if len(vs) != len(outs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outs)} but got {len(vs)}.")
    for i, (a, b) in enumerate(zip(vs, outs)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Entry {i} in v has invalid size: should be {b.shape} but got {a.shape}.")
    return vs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, vjp)``."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
    xs = _enter(xs, create_graph)
    out_tuple, outs = _outputs(func, xs, "vjp", create_graph)
    vs = _check_v(v, outs, "vjp")
    gs = _grad(outs, xs, vs, create_graph, strict)
    return _finish(outs, create_graph, out_tuple), _finish(gs, create_graph, in_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, jvp)`` (double-vjp)."""
    from ..func._transforms import forward_products
    in_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
    vs = _check_v(v, xs, "jvp", what="input")
    xs = _enter(xs, create_graph)
    out_tuple, outs = _outputs(func, xs, "jvp", create_graph)
    if strict:
        _grad(outs, xs, [o.detach() * 0 for o in outs], create_graph, strict)
    (row,) = forward_products(outs, xs, [vs])
    return _finish(outs, create_graph, out_tuple), _finish(tuple(row), create_graph, out_tuple)


def _jac(outs, xs, create_graph, strict, forward):
    """``J[i][j]``: d outs[i] / d xs[j], shaped ``outs[i].shape + xs[j].shape``."""
    from ..func._transforms import jacobian_blocks
    return tuple(tuple(row) for row in jacobian_blocks(
        outs, xs, forward, vjp=lambda o, e: _grad([o], xs, [e], create_graph, strict)))


def _nest(jac, out_tuple, in_tuple, create_graph):
    fixed = tuple(tuple(v if create_graph else v.detach() for v in row) for row in jac)
    rows = [row if in_tuple else row[0] for row in fixed]
    return tuple(rows) if out_tuple else rows[0]


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` "
                               "are not supported together (yet). Please either set `strict=False` or "
                               "`strategy=\"reverse-mode\"`.")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    xs = _enter(xs, create_graph)
    out_tuple, outs = _outputs(func, xs, "jacobian", create_graph)
    return _nest(_jac(outs, xs, create_graph, strict, strategy == "forward-mode"), out_tuple, in_tuple,
                 create_graph)


def _scalar(func, fn_name):
    def f(*a):
        out = func(*a)
        _, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
        if len(outs) != 1:
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                               "element")
        return outs[0].squeeze()
    return f


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs``."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    in_tuple, _ = _as_tuple(inputs, "inputs", "hessian")
    f = _scalar(func, "hessian")

    def jac_func(*a):
        out = jacobian(f, a, create_graph=True, strict=strict)
        return out

    res = jacobian(jac_func, inputs if in_tuple else (inputs,), create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return res if in_tuple else res[0][0]


def _hv(func, inputs, v, create_graph, strict, fn_name, transpose):
    in_tuple, xs = _as_tuple(inputs, "inputs", fn_name)
    f = _scalar(func, fn_name)
    xs = _enter(xs, create_graph)
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        from .._ops.creation import ones_like
        vs = (ones_like(xs[0]),)
    else:
        _, vs = _as_tuple(v, "v", fn_name)
        if len(vs) != len(xs):
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(xs)} but got {len(vs)}.")
    with enable_grad():
        out = f(*xs)
        gs = _grad([out], xs, [None], True, strict)
        # the Hessian is symmetric for twice-differentiable functions: v^T H = (H v)^T
        dot = sum((g * w).sum() for g, w in zip(gs, vs))
        res = _grad([dot], xs, [None], create_graph, strict)
    return _finish((out,), create_graph, False), _finish(res, create_graph, in_tuple)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, v^T H)``."""
    return _hv(func, inputs, v, create_graph, strict, "vhp", True)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, H v)``."""
    return _hv(func, inputs, v, create_graph, strict, "hvp", False)
