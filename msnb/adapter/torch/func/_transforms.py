"""``torch.func``'s autodiff transforms over msnb's tape autograd.

Each transform gives the inputs it differentiates fresh graph entries (a new
leaf, or a recorded copy of a tensor an outer transform or the user's own
graph already tracks), runs the function with grad mode on, and takes
gradients with ``create_graph=True`` so that transforms nest (``hessian`` is
``jacfwd(jacrev(f))``).  Results are detached unless they still depend on a
tensor from outside the transform (an outer transform's input, a parameter
the user differentiates later), which is when PyTorch's results carry a
``grad_fn`` too.

Forward mode (``jvp``, ``jacfwd``) is the double-vjp construction: with
``g(u) = J^T u`` recorded for a dummy cotangent ``u``, ``J t`` is the vjp of
``g`` with respect to ``u``.  That needs every op's backward to be
differentiable; where one is not, the tangent would silently be zero, so
msnb checks and raises :class:`NotSupportedError` instead."""

from __future__ import annotations

import contextlib
import functools

from .._missing import NotSupportedError
from .._tensor import Tensor
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import STATE, enable_grad
from ..autograd.graph import AccumulateGrad
from . import _pytree as P

__all__ = ["transform", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "enter", "Unwrapper",
           "forward_products", "check_argnums", "jacobian_blocks"]


@contextlib.contextmanager
def transform(kind="grad"):
    """Marks a torch.func transform as running (custom Functions follow its rules inside)."""
    from ..autograd.function import TRANSFORMS
    TRANSFORMS[kind] += 1
    try:
        yield
    finally:
        TRANSFORMS[kind] -= 1


def _zeros_like(t):
    from .._ops.creation import zeros_like
    return zeros_like(t)


def check_argnums(argnums, n):
    """``argnums`` checked against ``n`` positional inputs, as a tuple of indices."""
    def one(a):
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
        return a % n

    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return (one(argnums),)
    if isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(one(a) for a in argnums)
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def enter(t, own):
    """The tensor a transform differentiates in place of ``t``; fresh leaves go into ``own``."""
    if not isinstance(t, Tensor):
        raise RuntimeError(f"Expected the inputs being differentiated to be Tensors, got {type(t)}")
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if t.requires_grad:  # tracked outside this transform: keep the connection
        with enable_grad():
            return t.clone()
    leaf = t.detach().requires_grad_(True)
    own.add(id(leaf))
    return leaf


class Unwrapper:
    """Detaches results that depend on nothing outside the transform."""

    def __init__(self, own, keep):
        self.own = own
        self.keep = keep
        self.memo = {}

    def _outside(self, node):
        memo = self.memo
        stack = [node]
        order = []
        while stack:  # iterative DFS, results memoised per node
            n = stack.pop()
            if id(n) in memo:
                continue
            memo[id(n)] = None
            order.append(n)
            if not isinstance(n, AccumulateGrad):
                stack.extend(e[0] for e in n.next_functions if e is not None)
        for n in reversed(order):
            if memo[id(n)] is not None:
                continue
            if isinstance(n, AccumulateGrad):
                memo[id(n)] = id(n.variable) not in self.own
            else:
                memo[id(n)] = any(memo.get(id(e[0])) for e in n.next_functions if e is not None)
        return bool(memo[id(node)])

    def __call__(self, tree):
        leaves, spec = P.flatten(tree)
        out = []
        for t in leaves:
            if isinstance(t, Tensor) and t.requires_grad:
                if not self.keep:
                    t = t.detach()
                elif t._grad_fn is None:
                    if id(t) in self.own:
                        t = t.detach()
                elif not self._outside(t._grad_fn):
                    t = t.detach()
            out.append(t)
        return P.unflatten(out, spec)


def _grads(outputs, inputs, grad_outputs):
    """Gradients of ``outputs`` (weighted by ``grad_outputs``) for each input, zeros where unused."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [_zeros_like(i) for i in inputs]
    with enable_grad():
        gs = _autograd_grad([o for o, _ in pairs], inputs, grad_outputs=[g for _, g in pairs],
                            retain_graph=True, create_graph=True, allow_unused=True)
    return [_zeros_like(i) if g is None else g for g, i in zip(gs, inputs)]


def _reaches(t, leaves, nodes=frozenset()):
    """Whether ``t``'s graph reaches one of ``leaves`` (their ids) or one of ``nodes`` (ids of
    the ``grad_fn`` of non-leaf inputs, e.g. a dual tensor made from a primal that requires grad)."""
    fn = t._grad_fn
    if fn is None:
        return id(t) in leaves
    seen, stack = set(), [fn]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if id(n) in nodes:
            return True
        if isinstance(n, AccumulateGrad):
            if id(n.variable) in leaves:
                return True
            continue
        stack.extend(e[0] for e in n.next_functions if e is not None)
    return False


def forward_products(outputs, inputs, tangent_sets):
    """``J t`` for each tangent set (one tangent per input): a list, per set, of one
    tensor per output (the double-vjp construction)."""
    from .._ops.creation import ones_like
    idx = [k for k, o in enumerate(outputs) if o.requires_grad and (o.dtype.is_floating_point or
                                                                  o.dtype.is_complex)]
    zeros = [[_zeros_like(o) for o in outputs] for _ in tangent_sets]
    if not idx:
        return zeros
    with enable_grad():
        us = [ones_like(outputs[k]).requires_grad_(True) for k in idx]
        gs = _autograd_grad([outputs[k] for k in idx], inputs, grad_outputs=us, retain_graph=True,
                            create_graph=True, allow_unused=True)
        u_ids = {id(u) for u in us}
        valid = []
        for j, g in enumerate(gs):
            if g is None:
                continue
            if not g.requires_grad or not _reaches(g, u_ids):
                if bool((g != 0).any()):
                    name = g._grad_fn.name() if g._grad_fn is not None else "an op"
                    raise NotSupportedError(
                        "forward-mode AD (jvp/jacfwd/hessian) through an op whose backward msnb does not record "
                        f"differentiably ({name}) is not supported by msnb yet")
                continue
            valid.append((j, g))
        if not valid:
            return zeros
        out = []
        for ts in tangent_sets:
            r = _autograd_grad([g for _, g in valid], us, grad_outputs=[ts[j] for j, _ in valid],
                               retain_graph=True, create_graph=True, allow_unused=True)
            row = [_zeros_like(o) for o in outputs]
            for k, v in zip(idx, r):
                if v is not None:
                    row[k] = v
            out.append(row)
    return out


def _split_aux(out, has_aux, who):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{who}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return out


def _enter_args(args, nums):
    """Start a transform level: the grad state to restore, the set of tensors this level
    owns, ``args`` with the trees at ``nums`` entered, the entered leaves and each tree's spec."""
    keep, own = STATE.enabled, set()
    args = list(args)
    flat, specs = [], []
    for i in nums:
        leaves, spec = P.flatten(args[i])
        new = [enter(t, own) for t in leaves]
        args[i] = P.unflatten(new, spec)
        flat.append(new)
        specs.append(spec)
    return keep, own, args, flat, specs


def _pack(per_arg, specs, argnums):
    """One value per differentiated argument, shaped as ``argnums`` asks (a tree or a tuple of trees)."""
    trees = [P.unflatten(v, s) for v, s in zip(per_arg, specs)]
    return trees[0] if isinstance(argnums, int) else tuple(trees)


def _split(flat_values, flat):
    out, i = [], 0
    for leaves in flat:
        out.append(flat_values[i:i + len(leaves)])
        i += len(leaves)
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """msnb implementation of ``torch.func.grad_and_value``."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        keep, own, args, flat, specs = _enter_args(args, check_argnums(argnums, len(args)))
        with enable_grad(), transform():
            out, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(out, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            inputs = [t for leaves in flat for t in leaves]
            gs = _grads([out], inputs, [None])
        un = Unwrapper(own, keep)
        grads = un(_pack(_split(gs, flat), specs, argnums))
        value = un(out)
        return (grads, (value, un(aux))) if has_aux else (grads, value)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """msnb implementation of ``torch.func.grad``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, v = gv(*args, **kwargs)
        return (g, v[1]) if has_aux else g

    return wrapper


def _tensor_outputs(out, who):
    leaves, spec = P.flatten(out)
    for t in leaves:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{who}: expected f(*primals) to return only tensors, got unsupported type {type(t)}")
    return leaves, spec


def vjp(func, *primals, has_aux=False):
    """msnb implementation of ``torch.func.vjp``: ``(output, vjp_fn[, aux])``."""
    keep, own, args, flat, specs = _enter_args(primals, range(len(primals)))
    with enable_grad(), transform():
        out, aux = _split_aux(func(*args), has_aux, "vjp(f, *primals)")
    outs, out_spec = _tensor_outputs(out, "vjp(f, *primals)")
    inputs = [t for leaves in flat for t in leaves]

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cts, ct_spec = P.flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {ct_spec}, primal output: {out_spec}")
        for i, (o, c) in enumerate(zip(outs, cts)):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] "
                                   f"has a shape of {o.shape}.")
        gs = _grads(outs, inputs, cts)
        return Unwrapper(own, keep and STATE.enabled)(tuple(_pack(_split(gs, flat), specs, tuple(specs))))

    un = Unwrapper(own, keep)
    res = (un(out), vjp_fn)
    return res + (un(aux),) if has_aux else res


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """msnb implementation of ``torch.func.jvp``: ``(output, jvp_out[, aux])``."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if strict:
        raise RuntimeError("jvp(f, primals, tangents, strict=True): strict=True is not implemented yet.")
    p_leaves, p_spec = P.flatten(primals)
    t_leaves, t_spec = P.flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {p_spec} and tangents with structure {t_spec}")
    for p, t in zip(p_leaves, t_leaves):
        if isinstance(p, Tensor) and isinstance(t, Tensor) and tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    keep, own, args, flat, _ = _enter_args(primals, range(len(primals)))
    with enable_grad(), transform():
        out, aux = _split_aux(func(*args), has_aux, "jvp(f, primals, tangents)")
        outs, out_spec = _tensor_outputs(out, "jvp(f, primals, tangents)")
        inputs = [t for leaves in flat for t in leaves]
        (row,) = forward_products(outs, inputs, [t_leaves])
    un = Unwrapper(own, keep)
    res = (un(out), un(P.unflatten(row, out_spec)))
    return res + (un(aux),) if has_aux else res


def _basis(t):
    """The rows of the identity, each shaped like ``t`` (one per element)."""
    from .._ops.creation import eye
    n = t.numel()
    e = eye(n, dtype=t.dtype)
    return [e[j].reshape(t.shape) for j in range(n)]


def _jacobian_tree(out_spec, per_out, flat, specs, argnums):
    return P.unflatten([_pack(_split(j, flat), specs, argnums) for j in per_out], out_spec)


def jacobian_blocks(outs, inputs, forward, vjp=None):
    """``J[m][k]``: d ``outs[m]`` / d ``inputs[k]``, shaped ``outs[m].shape + inputs[k].shape``;
    by one vjp per output element (``vjp(out, cotangent)``), or ``forward``: one jvp per input element."""
    from .._ops.creation import zeros
    from .._ops.shape import stack
    if forward:
        sets, owner = [], []
        for k, x in enumerate(inputs):
            for e in _basis(x):
                sets.append([e if i == k else _zeros_like(y) for i, y in enumerate(inputs)])
                owner.append(k)
        rows = forward_products(outs, inputs, sets)

        def block(m, k):
            cols = [rows[s][m] for s in range(len(sets)) if owner[s] == k]
            return stack(cols, dim=-1) if cols else None
    else:
        vjp = vjp or (lambda o, e: _grads([o], inputs, [e]))
        per_out = [[vjp(o, e) for e in _basis(o)] for o in outs]

        def block(m, k):
            return stack([r[k] for r in per_out[m]]) if per_out[m] else None
    out = []
    for m, o in enumerate(outs):
        row = []
        for k, x in enumerate(inputs):
            shape = tuple(o.shape) + tuple(x.shape)
            b = block(m, k)
            row.append(b.reshape(shape) if b is not None else zeros(shape, dtype=(o if forward else x).dtype))
        out.append(row)
    return out


def _jacobian_transform(func, argnums, has_aux, forward):
    who = "jvp(f, primals, tangents)" if forward else "vjp(f, *primals)"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        keep, own, args, flat, specs = _enter_args(args, check_argnums(argnums, len(args)))
        with enable_grad(), transform():
            out, aux = _split_aux(func(*args, **kwargs), has_aux, who)
            outs, out_spec = _tensor_outputs(out, who)
            per_out = jacobian_blocks(outs, [t for leaves in flat for t in leaves], forward)
        un = Unwrapper(own, keep)
        res = un(_jacobian_tree(out_spec, per_out, flat, specs, argnums))
        return (res, un(aux)) if has_aux else res

    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """msnb implementation of ``torch.func.jacrev`` (one vjp per output element)."""
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian_transform(func, argnums, has_aux, forward=False)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """msnb implementation of ``torch.func.jacfwd`` (one jvp per input element)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    return _jacobian_transform(func, argnums, has_aux, forward=True)


def hessian(func, argnums=0):
    """msnb implementation of ``torch.func.hessian``: ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)
