"""Matrix products: ``matmul``/``@``, ``mm``, ``bmm``, ``einsum`` ..."""

from __future__ import annotations

import numpy as np

from .. import _core, _dtype as D
from .._core import K, adopt, needs_grad, record, wrap, wrap_dim, write_out
from ..autograd.graph import name_node
from . import pointwise as P
from .._sparse_coo import SparseCooTensor, sparse_matmul

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "addmm", "baddbmm", "einsum",
           "addmv", "addbmm", "addr",
           "inner", "tensordot", "cross", "kron", "trace"]


#: C++ type names PyTorch's matmul errors use
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _mt(x):
    return x.transpose(-1, -2)


def matmul(input, other, *, out=None):
    """msnb implementation of ``torch.matmul`` (1-D, 2-D and batched, with
    broadcasting).  Operands must share a dtype: PyTorch does not promote here."""
    a, b = input, other
    if type(a) is SparseCooTensor or type(b) is SparseCooTensor:
        return sparse_matmul(a, b)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_CPP_NAMES.get(a.dtype._name)} != "
                           f"{_CPP_NAMES.get(b.dtype._name)}")
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a2.shape[-2]}x{a2.shape[-1]} "
                           f"and {b2.shape[-2]}x{b2.shape[-1]})")
    if a2.ndim > 2 or b2.ndim > 2:
        _check_batch_broadcast(tuple(a2.shape[:-2]), tuple(b2.shape[:-2]))
    res = wrap(K.matmul(a2, b2))
    if needs_grad(a2, b2):
        sa, sb = tuple(a2.shape), tuple(b2.shape)
        record("MmBackward0" if a2.ndim == 2 and b2.ndim == 2 else "BmmBackward0", res, (a2, b2),
               lambda g: (P.sum_to(matmul(g, _mt(b2)), sa) if a2.requires_grad else None,
                          P.sum_to(matmul(_mt(a2), g), sb) if b2.requires_grad else None),
               saved=(a2, b2))
    if a.ndim == 1:
        res = res.squeeze(-2)
    if b.ndim == 1:
        res = res.squeeze(-1)
    return write_out(out, name_node(res, _matmul_name(a.ndim, b.ndim), a, b))


def _check_batch_broadcast(sa, sb):
    """PyTorch's refusal of batch dimensions that do not broadcast (MindSpore's kernel raises
    later, at the next op, since it runs asynchronously)."""
    n = max(len(sa), len(sb))
    for k in range(1, n + 1):
        x = sa[-k] if k <= len(sa) else 1
        y = sb[-k] if k <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {n - k}")


def _matmul_name(na, nb):
    """PyTorch's node for ``matmul`` by operand ranks (it dispatches to dot, mv, mm or a folded bmm)."""
    if na >= 3 or nb >= 3:
        return "UnsafeViewBackward0"
    return {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (1, 2): "SqueezeBackward4"}.get((na, nb), "MmBackward0")


def mm(input, mat2, *, out=None):
    if type(input) is SparseCooTensor or type(mat2) is SparseCooTensor:
        return sparse_matmul(input, mat2, two_d=True)
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix")
    return matmul(input, mat2, out=out)


def bmm(input, mat2, *, out=None):
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, _, k = input.shape
    if tuple(mat2.shape[:2]) != (b, k):  # bmm does not broadcast its batch
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    return name_node(matmul(input, mat2, out=out), "BmmBackward0", input, mat2)


def mv(input, vec):
    return matmul(input, vec)


def dot(input, other):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {D._name_of(input.dtype)} "
                           f"and {D._name_of(other.dtype)}")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           "elements respectively")
    return name_node((input * other).sum(), "DotBackward0", input, other)


vdot = dot


def inner(input, other):
    """msnb implementation of ``torch.inner``: contracts the last dimensions."""
    if input.ndim == 0 or other.ndim == 0:
        return P.mul(input, other)
    if input.ndim == 1 and other.ndim == 1:
        return dot(input, other)
    return tensordot(input, other, dims=([input.ndim - 1], [other.ndim - 1]))


def outer(input, vec2):
    return P.mul(input.unsqueeze(-1), vec2.unsqueeze(0))


ger = outer


def _scaled_sum(input, prod, beta, alpha, floats_ok=True):
    """``beta * input + alpha * prod``; with ``beta == 0`` ``input`` is ignored (NaN included), as in PyTorch.
    On integer tensors PyTorch truncates a float ``alpha`` / ``beta`` to an integer (the result keeps
    the integer dtype), or refuses them (``floats_ok=False``: addr)."""
    if prod.dtype._kind in "iu":
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float) and not floats_ok:
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point "
                                   "number.")
        beta, alpha = int(beta), int(alpha)
    prod = P.mul(prod, alpha) if alpha != 1 else prod
    if beta == 0:
        from .shape import expand
        shape = P.broadcast_shape(tuple(input.shape), tuple(prod.shape))
        return expand(prod, shape) if tuple(prod.shape) != shape else prod
    return P.add(P.mul(input, beta) if beta != 1 else input, prod)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return name_node(_scaled_sum(input, matmul(mat1, mat2), beta, alpha), "AddmmBackward0", input, mat1, mat2)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """msnb implementation of ``torch.addmv``: ``beta * input + alpha * (mat @ vec)``."""
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    return name_node(_scaled_sum(input, mv(mat, vec), beta, alpha), "AddmvBackward0", input, mat, vec)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """msnb implementation of ``torch.addbmm``: ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    return name_node(_scaled_sum(input, bmm(batch1, batch2).sum(0), beta, alpha), "AddbmmBackward0",
                     input, batch1, batch2)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """msnb implementation of ``torch.addr``: ``beta * input + alpha * outer(vec1, vec2)``."""
    if input.dtype is D.bool:
        return P.logical_or(P.logical_and(input, bool(beta)) if beta != 1 else input,
                            P.logical_and(outer(vec1, vec2), bool(alpha)))
    return name_node(_scaled_sum(input, outer(vec1, vec2), beta, alpha, False), "AddrBackward0", input, vec1, vec2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return name_node(_scaled_sum(input, matmul(batch1, batch2), beta, alpha), "BaddbmmBackward0", input, batch1,
                     batch2)


def trace(input):
    from .shape import diag
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return diag(input).sum()


def einsum(equation, *operands):
    """msnb implementation of ``torch.einsum``, lowered to permute/reshape/matmul
    (differentiable through those ops)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    if "..." in eq:
        raise NotImplementedError("torch.einsum with '...' is not supported by msnb yet")
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs = eq
        letters = lhs.replace(",", "")
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    ins = lhs.split(",")
    if len(ins) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    # reduce the first operand with each following one pairwise
    cur, cur_sub = _diag_reduce(operands[0], ins[0])
    for k in range(1, len(ins)):
        op, sub = _diag_reduce(operands[k], ins[k])
        later = set("".join(ins[k + 1:]))
        # letters only in cur and not needed later can be summed before the product
        drop = [i for i, c in enumerate(cur_sub) if c not in out and c not in later and c not in sub]
        if drop:
            cur = cur.sum(dim=drop)
            cur_sub = "".join(c for c in cur_sub if c in out or c in later or c in sub)
        cur, cur_sub = _pair(cur, cur_sub, op, sub, set(out) | later)
    # sum out letters not in output
    drop = [i for i, c in enumerate(cur_sub) if c not in out]
    if drop:
        cur = cur.sum(dim=drop)
        cur_sub = "".join(c for c in cur_sub if c in out)
    if cur_sub != out:
        cur = cur.permute(tuple([cur_sub.index(c) for c in out]))
    return cur


def _diag_reduce(x, sub):
    # repeated letters inside one operand (a diagonal) are rare; reject clearly
    if len(set(sub)) != len(sub):
        raise NotImplementedError("torch.einsum with a repeated index in one operand is not supported by msnb yet")
    if len(sub) != x.ndim:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(sub)}) does not match "
                           f"the number of dimensions ({x.ndim}) for operand")
    return x, sub


def _pair(a, sa, b, sb, keep_hint):
    batch = [c for c in sa if c in sb]
    a_only = [c for c in sa if c not in sb]
    b_only = [c for c in sb if c not in sa]
    # contracted letters: shared letters that need not stay; we keep all shared as batch unless summed later
    contract = [c for c in batch if c not in keep_hint]
    batch = [c for c in batch if c in keep_hint]
    size = {c: a.shape[sa.index(c)] for c in sa}
    size.update({c: b.shape[sb.index(c)] for c in sb})
    pa = a.permute(tuple([sa.index(c) for c in batch + a_only + contract]))
    pb = b.permute(tuple([sb.index(c) for c in batch + contract + b_only]))
    nb = int(np.prod([size[c] for c in batch])) if batch else 1
    na = int(np.prod([size[c] for c in a_only])) if a_only else 1
    nc = int(np.prod([size[c] for c in contract])) if contract else 1
    nbo = int(np.prod([size[c] for c in b_only])) if b_only else 1
    r = matmul(pa.reshape(nb, na, nc), pb.reshape(nb, nc, nbo))
    r = r.reshape(tuple(size[c] for c in batch + a_only + b_only))
    return r, "".join(batch + a_only + b_only)


def tensordot(a, b, dims=2, out=None):
    """msnb implementation of ``torch.tensordot`` (``out=`` written as PyTorch does)."""
    return write_out(out, _tensordot(a, b, dims))


def _tensordot(a, b, dims):
    if isinstance(dims, int):
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = list(dims[0]), list(dims[1])
    fa = [i for i in range(a.ndim) if i not in da]
    fb = [i for i in range(b.ndim) if i not in db]
    pa = a.permute(tuple(fa + da)).reshape(int(np.prod([a.shape[i] for i in fa])) if fa else 1, -1)
    pb = b.permute(tuple(db + fb)).reshape(-1, int(np.prod([b.shape[i] for i in fb])) if fb else 1)
    return matmul(pa, pb).reshape(tuple([a.shape[i] for i in fa] + [b.shape[i] for i in fb]))


def cross(input, other, dim=None, *, out=None):
    """msnb implementation of ``torch.cross`` (``dim=None``: the first dimension of size 3,
    as PyTorch's deprecated default) and of ``torch.linalg.cross``; operands broadcast."""
    from .shape import broadcast_tensors, stack
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    if dim is not None:  # the cross dimension itself never broadcasts (a size-1 one is refused)
        d = wrap_dim(dim, input.ndim)
        if input.shape[d] != 3 or other.shape[d] != 3:
            raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} "
                               f"and {other.shape[d]}")
    if tuple(input.shape) != tuple(other.shape):
        input, other = broadcast_tensors(input, other)
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.", UserWarning, stacklevel=2)
        dim = next((i for i, n in enumerate(input.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if input.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} "
                           f"and {other.shape[dim]}")
    a0, a1, a2 = input.unbind(dim)
    b0, b1, b2 = other.unbind(dim)
    return write_out(out, stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim))


def kron(a, b):
    return (a.reshape(a.shape[0], 1, a.shape[1], 1) * b.reshape(1, b.shape[0], 1, b.shape[1])).reshape(
        a.shape[0] * b.shape[0], a.shape[1] * b.shape[1])


# --- mixed precision: PyTorch's autocast op lists (see ``torch.amp``) ----------------
from ..amp.autocast_mode import autocast_op as _autocast_op  # noqa: E402

for _name in ['matmul', 'mm', 'bmm', 'mv', 'addmm', 'baddbmm', 'dot', 'outer', 'tensordot', 'cross', 'addmv', 'addbmm',
              'addr']:
    globals()[_name] = _autocast_op(_name)(globals()[_name])
del _name

from ..amp.autocast_mode import _local as _autocast_local  # noqa: E402


def one_step_matmul(rest):
    """``op(a, b)``: ``a @ b`` in one step where it can, else ``rest(a, b)`` (the operator's
    general path).  One step: two 2-D adapter tensors of one recorded float16/32/64 dtype
    whose inner dimensions agree and are not 0, no operand that autograd tracks, no
    autocast region open.  Then :func:`matmul` would check nothing that can fail, cast
    nothing, record nothing and name no node; the result's dtype and shape are known
    (recorded) and the kernel is MatMulExt's PyBoost function itself, without the
    zero-size guard's reads of the shapes from MindSpore (benchmarks/op_overhead.py)."""
    kernels, state, ok = _core.KA.__dict__, _core.STATE, P._F_T

    def op(a, b):
        T = _core.Tensor_
        if type(a) is T and type(b) is T:
            da = a._dt
            if type(da) in ok and b._dt is da:
                sa, sb = a._sh, b._sh
                if len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and sa[1] and not _autocast_local.stack \
                        and not (state.enabled and (a._grad_fn is not None or a._req_grad or b._grad_fn is not None
                                                    or b._req_grad)):
                    return adopt(kernels["matmul_nonempty"](a, b), da, (sa[0], sb[1]))
        return rest(a, b)
    op.__name__ = "__matmul__"
    return op
