"""Differential tests: shape and view ops, indexing (``__getitem__``,
``__setitem__``, gather/scatter ...) and matrix products against real
PyTorch (values, dtypes, shapes, gradients, error types)."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(3)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
A3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
C1 = rng.standard_normal((1, 3, 1)).astype(np.float32)
V3 = rng.standard_normal((3,)).astype(np.float32)
V4 = rng.standard_normal((4,)).astype(np.float32)
M45 = rng.standard_normal((4, 5)).astype(np.float32)
M33 = rng.standard_normal((3, 3)).astype(np.float32)
BA = rng.standard_normal((2, 3, 4)).astype(np.float32)
BB = rng.standard_normal((2, 4, 5)).astype(np.float32)
BC = rng.standard_normal((2, 3, 5)).astype(np.float32)
C3 = rng.standard_normal((2, 3)).astype(np.float32)
D3 = rng.standard_normal((2, 3)).astype(np.float32)
I = rng.integers(-5, 6, (3, 4)).astype(np.int64)
IDX = np.array([2, 0, 2], np.int64)
GIDX = rng.integers(0, 3, (3, 4)).astype(np.int64)
SIDX = np.array([[0, 1, 2, 0], [1, 2, 0, 1], [2, 0, 1, 2]], np.int64)  # a permutation per column
MASK = rng.random((3, 4)) > 0.5

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def both(name):
    return registered(f"torch.{name}", f"torch.Tensor.{name}")


# --- reshaping and views -------------------------------------------------------------------------
add("view", registered("torch.Tensor.view"), lambda t, x: (x.view(4, 6), x.view(-1), x.view((2, -1)), x.view(t.Size([24]))),
    A3)
add("view_as", both("view_as"), lambda t, x, y: x.view_as(y), A3, np.zeros((4, 6), np.float32))
add("reshape", both("reshape"), lambda t, x: (t.reshape(x, (4, 6)), x.reshape(-1, 2), x.reshape(24), x.reshape([2, 12])),
    A3)
add("reshape[noncontig]", both("reshape"), lambda t, x: (x.t().reshape(-1), t.reshape(x.T, (2, 6))), A)
add("reshape_as", both("reshape_as"), lambda t, x, y: x.reshape_as(y), A3, np.zeros((4, 6), np.float32))
add("flatten", both("flatten"), lambda t, x: (t.flatten(x), x.flatten(1), x.flatten(0, 1), x.flatten(-2, -1),
                                              t.flatten(x.sum())), A3)
add("unflatten", both("unflatten"), lambda t, x: (t.unflatten(x, 2, (2, 2)), x.unflatten(-1, (2, -1))), A3)
add("squeeze", both("squeeze"), lambda t, x: (t.squeeze(x), x.squeeze(0), x.squeeze(-1), t.squeeze(x, 1),
                                              t.squeeze(x, (0, 2))), C1)
add("unsqueeze", both("unsqueeze"), lambda t, x: (t.unsqueeze(x, 0), x.unsqueeze(-1), x.unsqueeze(1), x.unsqueeze(-3)), A)
add("squeeze_", registered("torch.Tensor.squeeze_"), ("squeeze_", lambda t: ()), C1, kind="inplace")
add("unsqueeze_", registered("torch.Tensor.unsqueeze_"), ("unsqueeze_", lambda t: (1,)), A, kind="inplace")
add("permute", both("permute"), lambda t, x: (t.permute(x, (2, 0, 1)), x.permute(1, 2, 0), x.permute(-1, 0, 1)), A3)
add("transpose", both("transpose"), lambda t, x: (t.transpose(x, 0, 2), x.transpose(-1, 1)), A3)
add("swapaxes", both("swapaxes") + both("swapdims"), lambda t, x: (t.swapaxes(x, 0, 1), x.swapdims(2, 0), t.swapdims(x, 1, 2),
                                                                   x.swapaxes(-1, -2)), A3)
add("transpose_", registered("torch.Tensor.transpose_"), ("transpose_", lambda t: (0, 1)), A, kind="inplace")
add("t", both("t"), lambda t, x, v: (t.t(x), x.t(), v.t()), A, V4)
add("t_", registered("torch.Tensor.t_"), ("t_", lambda t: ()), A, kind="inplace")
add("T/mT", registered("torch.Tensor.T", "torch.Tensor.mT"), lambda t, x: (x.T, x.mT, x[0].mT), A3)
add("movedim", both("movedim"), lambda t, x: (t.movedim(x, 0, 2), x.movedim(-1, 0), t.movedim(x, (0, 1), (2, 0))), A3)
add("expand", registered("torch.Tensor.expand"), lambda t, x: (x.expand(2, 3, 4), x.expand(-1, 3, 5), x.expand(2, 2, -1, 3, 7)),
    C1)
add("expand_as", registered("torch.Tensor.expand_as"), lambda t, x, y: x.expand_as(y), C1, BC[:, :, :1].repeat(3, 2))
add("broadcast_to", both("broadcast_to"), lambda t, x: (t.broadcast_to(x, (2, 3, 4)), x.broadcast_to((5, 1, 3, 2))), C1)
add("broadcast_tensors", registered("torch.broadcast_tensors"), lambda t, x, y: t.broadcast_tensors(x, y), C1, V4)
add("repeat", registered("torch.Tensor.repeat"), lambda t, x: (x.repeat(2, 1), x.repeat(1, 2, 3), x.repeat((2, 2))), A)
add("tile", both("tile"), lambda t, x: (t.tile(x, (2,)), x.tile((2, 1, 2)), x.tile(2, 2)), A)
add("repeat_interleave", both("repeat_interleave"),
    lambda t, x: (t.repeat_interleave(x, 2), x.repeat_interleave(2, dim=0), x.repeat_interleave(t.tensor([1, 2, 0]), dim=0),
                  x.repeat_interleave(3, 1)), A)
add("contiguous", registered("torch.Tensor.contiguous", "torch.Tensor.is_contiguous"),
    lambda t, x: (x.t().contiguous(), x.t().is_contiguous(), x.t().contiguous().is_contiguous(), x.contiguous()), A)
add("atleast", registered("torch.atleast_1d", "torch.atleast_2d"),
    lambda t, x: (t.atleast_1d(x.sum()), t.atleast_1d(x), t.atleast_2d(x[0]), t.atleast_2d(x), t.atleast_2d(x.sum())), A)

# --- joining and splitting ---------------------------------------------------------------------------
add("cat", registered("torch.cat", "torch.concat", "torch.concatenate"),
    lambda t, x, y: (t.cat([x, y]), t.cat((x, y), 1), t.concat([x, y], dim=-1), t.concatenate([x, y, x], 0)), A, B)
add("cat[promote]", registered("torch.cat"), lambda t, x, y: (t.cat([x, y]), t.cat([y, x.double()], 1)), A, I)
add("cat[empty-legacy]", registered("torch.cat"), lambda t, x: t.cat([x, t.tensor([])]), A)
add("cat[out]", registered("torch.cat"), lambda t, x, y: (lambda o: (t.cat([x, y], out=o), o)[1])(t.empty(6, 4)), A, B,
    grad=False)
add("stack", registered("torch.stack"), lambda t, x, y: (t.stack([x, y]), t.stack((x, y), 1), t.stack([x, y], -1)), A, B)
add("hstack/vstack", registered("torch.hstack", "torch.vstack"),
    lambda t, x, y, v: (t.hstack([x, y]), t.vstack([x, y]), t.hstack([v, v]), t.vstack([v, v])), A, B, V4)
add("split", both("split"), lambda t, x: (t.split(x, 2), x.split(1, dim=1), t.split(x, [1, 3], 1), x.split((2, 1))), A)
add("chunk", both("chunk"), lambda t, x: (t.chunk(x, 2), x.chunk(3, 1), x.chunk(4, -1), t.chunk(x, 5, 0)), A)
add("unbind", both("unbind"), lambda t, x: (t.unbind(x), x.unbind(1), x.unbind(-1)), A3)
add("narrow", both("narrow"), lambda t, x: (t.narrow(x, 1, 1, 2), x.narrow(0, 2, 1), x.narrow(-1, 0, 3)), A)
add("select", both("select"), lambda t, x: (t.select(x, 1, 2), x.select(0, -1), x.select(-1, 0)), A3)
add("flip", both("flip"), lambda t, x: (t.flip(x, (0,)), x.flip(1, 2), x.flip([-1]), x.flip(0, 1, 2)), A3)
add("roll", both("roll"), lambda t, x: (t.roll(x, 1), x.roll(2, 1), t.roll(x, (1, -1), (0, 2)), x.roll(-5, -1)), A3)
add("tril/triu", both("tril") + both("triu"),
    lambda t, x: (t.tril(x), x.tril(1), t.triu(x), x.triu(-1), t.tril(x, -2)), A)
add("tril_", registered("torch.Tensor.tril_"), ("tril_", lambda t: (0,)), A, kind="inplace")
add("triu_", registered("torch.Tensor.triu_"), ("triu_", lambda t: (1,)), A, kind="inplace")
add("diag", both("diag"), lambda t, x, v: (t.diag(x), x.diag(), t.diag(v), v.diag()), A, V3)
add("diag[offset]", both("diag"), lambda t, x, v: (t.diag(x, 1), t.diag(v, -1), t.diag(x, -1)), A, V3)
add("trace", both("trace"), lambda t, x: (t.trace(x), x.trace(), t.trace(x[:, :3])), A)
add("meshgrid", registered("torch.meshgrid"),
    lambda t, x, y: (t.meshgrid(x, y, indexing="ij"), t.meshgrid([x, y], indexing="xy"), t.meshgrid(x, y, x, indexing="ij")),
    V3, V4)
add("clone/detach", both("clone") + both("detach") + registered("torch.Tensor.detach_"),
    lambda t, x: (t.clone(x), x.clone(), t.detach(x) * 2, x.detach(), x.clone().detach_().requires_grad), A)

# --- indexing --------------------------------------------------------------------------------------------
add("getitem[basic]", registered("torch.Tensor.__getitem__"),
    lambda t, x: (x[0], x[:, 1], x[..., -1], x[None, 1:, ::2], x[1, 2, 3], x[-1:, :-1], x[:, None, ...],
                  x[t.tensor(1)], x[1][2]), A3)
add("getitem[advanced]", registered("torch.Tensor.__getitem__"),
    lambda t, x, i, m: (x[i], x[:, i[:2]], x[[0, 2]], x[m], x[i, 1:], x[[0, 1], [2, 3]], x[x > 0], x[..., [1, 0]]),
    A, IDX, MASK)
add("getitem[grad-repeated]", registered("torch.Tensor.__getitem__"), lambda t, x, i: x[i] * 2, A, IDX)
add("setitem", registered("torch.Tensor.__setitem__"),
    lambda t, x, y: [(lambda z: (z.__setitem__(k, v), z)[1])(x.clone()) for k, v in
                     [((0,), 1.5), ((slice(None), 1), y[0, :3]), ((Ellipsis, -1), y[:, 0]), (1, y[1]),
                      ((0, 2), y[0, 0]), ((slice(1, None), slice(None, 2)), 0.0)]], A, B)
add("setitem[advanced]", registered("torch.Tensor.__setitem__"),
    lambda t, x, y, i, m: [(lambda z: (z.__setitem__(k, v), z)[1])(x.clone()) for k, v in
                           [(i, y[:2]), (m, 0.5), ((i[:2], 0), 7.0), ((slice(None), [0, 3]), y[:, :2])]], A, B,
    np.array([0, 2], np.int64), MASK)
add("setitem[view-base]", registered("torch.Tensor.__setitem__"),
    lambda t, x: (lambda z: (z[0].__setitem__(1, 9.0), z[:, 2].mul_(2), z)[2])(x.clone()), A)
add("index_put", registered("torch.Tensor.index_put", "torch.Tensor.index_put_"),
    lambda t, x, v, i: (x.index_put((i[:2],), v[:2]), x.index_put((i,), v[:3], accumulate=True),
                        x.clone().index_put_((i, i), v[0, :3], accumulate=True)), A, B, IDX)
add("gather", both("gather"), lambda t, x, i: (t.gather(x, 0, i), x.gather(1, i), t.gather(x, -1, i[:, :2])), A, GIDX)
add("take_along_dim", both("take_along_dim"),
    lambda t, x, i: (t.take_along_dim(x, i, 0), x.take_along_dim(i, dim=1), t.take_along_dim(x, i.flatten()[:5])), A, GIDX)
add("take", both("take"), lambda t, x, i: (t.take(x, i), x.take(i.reshape(3, 1))), A, IDX)
add("index_select", both("index_select"),
    lambda t, x, i: (t.index_select(x, 0, i), x.index_select(1, i), x.index_select(-1, i[:1])), A, IDX)
add("scatter", both("scatter"),
    lambda t, x, i, s: (t.scatter(x, 0, i, s), x.scatter(1, i, s), t.scatter(x, 0, i, 2.5), x.scatter(0, i, value=-1.0)),
    A, SIDX, B)
add("scatter[reduce]", both("scatter"), lambda t, x, i, s: t.scatter(x, 0, i, s, reduce="add"), A, SIDX, B, grad=False)
add("scatter_", registered("torch.Tensor.scatter_"), ("scatter_", lambda t, i, s: (0, i, s)), A, SIDX, B, kind="inplace")
add("scatter_add", both("scatter_add"), lambda t, x, i, s: (t.scatter_add(x, 0, i, s), x.scatter_add(1, i, s)), A, GIDX, B)
add("scatter_add_", registered("torch.Tensor.scatter_add_"), ("scatter_add_", lambda t, i, s: (0, i, s)), A, GIDX, B,
    kind="inplace")
add("index_add", both("index_add"),
    lambda t, x, i, s: (t.index_add(x, 0, i, s[:3]), x.index_add(1, i, s[:, :3], alpha=2.0)), A, IDX, B)
add("index_add_", registered("torch.Tensor.index_add_"), ("index_add_", lambda t, i, s: (0, i, s[:3])), A, IDX, B,
    kind="inplace")
add("masked_fill", both("masked_fill"),
    lambda t, x, m: (t.masked_fill(x, m, 0.5), x.masked_fill(m, t.tensor(-1.0)), x.masked_fill(m[0], 2)), A, MASK)
add("masked_fill[int]", both("masked_fill"), lambda t, x, m: (x.masked_fill(m, 3), x.masked_fill(m, t.tensor(2))), I, MASK)
add("masked_fill_", registered("torch.Tensor.masked_fill_"), ("masked_fill_", lambda t, m: (m, 1.25)), A, MASK,
    kind="inplace")
add("masked_select", both("masked_select"), lambda t, x, m: (t.masked_select(x, m), x.masked_select(m[0])), A, MASK)
add("nonzero", both("nonzero"), lambda t, x: (t.nonzero(x), x.nonzero(), t.nonzero(x, as_tuple=True)), I)
add("fill_diagonal_", registered("torch.Tensor.fill_diagonal_"), ("fill_diagonal_", lambda t: (2.0,)), A, kind="inplace",
    grad=False)
add("fill_diagonal_[tall]", registered("torch.Tensor.fill_diagonal_"), ("fill_diagonal_", lambda t: (2.0,)),
    M45.T.copy(), kind="inplace", grad=False)

# --- matrix products ------------------------------------------------------------------------------------------
add("matmul", both("matmul"),
    lambda t, a, b, v, w: (t.matmul(a, b), a.matmul(b), t.matmul(v, a), t.matmul(a, w), t.matmul(v, v), a @ b), A, M45, V3, V4)
add("matmul[batched]", both("matmul"), lambda t, a, b, m: (t.matmul(a, b), t.matmul(a, m), t.matmul(m.T, b)), BA, BB, M45)
add("mm", both("mm"), lambda t, a, b: (t.mm(a, b), a.mm(b)), A, M45)
add("bmm", both("bmm"), lambda t, a, b: (t.bmm(a, b), a.bmm(b)), BA, BB)
add("mv", both("mv"), lambda t, a, v: (t.mv(a, v), a.mv(v)), A, V4)
add("dot/vdot/inner", both("dot") + registered("torch.vdot") + both("inner"),
    lambda t, v, w: (t.dot(v, w), v.dot(w), t.vdot(v, w), t.inner(v, w), v.inner(w)), V4, V4[::-1].copy())
add("inner[matrix]", both("inner"), lambda t, a, b: t.inner(a, b), A, B)
add("outer/ger", both("outer") + both("ger"), lambda t, v, w: (t.outer(v, w), v.outer(w), t.ger(v, w), v.ger(w)), V3, V4)
add("addmm", both("addmm"),
    lambda t, c, a, b: (t.addmm(c, a, b), c.addmm(a, b, beta=0.5, alpha=2.0), t.addmm(c[0], a, b)), BC[0, :2], C3, M45[:3].copy())
add("addmm_", registered("torch.Tensor.addmm_"), ("addmm_", lambda t, a, b: (a, b)), M33, M33.T.copy(), M33 * 2,
    kind="inplace")
add("baddbmm", both("baddbmm"),
    lambda t, c, a, b: (t.baddbmm(c, a, b), c.baddbmm(a, b, beta=0.5, alpha=2.0)), BC, BA, BB)
add("baddbmm_", registered("torch.Tensor.baddbmm_"), ("baddbmm_", lambda t, a, b: (a, b)), BC, BA, BB, kind="inplace")
add("einsum", registered("torch.einsum"),
    lambda t, a, b, x: (t.einsum("ij,jk->ik", a, b), t.einsum("bij,bjk->bik", x, t.ones(2, 4, 2)), t.einsum("ij->ji", a),
                        t.einsum("ij->", a), t.einsum("ij,ij->i", a, a), t.einsum("i,j->ij", a[0], b[0]),
                        t.einsum("ij,jk", [a, b])), A, M45, BA)
add("tensordot", registered("torch.tensordot"),
    lambda t, a, b, m: (t.tensordot(a, b, 1), t.tensordot(a, m.T, dims=([1, 2], [1, 0])), t.tensordot(a[0], a[0], 2)),
    BA, M45, A)
add("cross", both("cross"), lambda t, a, b: (t.cross(a, b, dim=1), a.cross(b, dim=-1), t.cross(a.T, b.T, dim=0)), C3, D3)
add("kron", both("kron"), lambda t, a, b: (t.kron(a, b), a.kron(b)), C3, D3)

# --- dtypes, 0-d and empty inputs -------------------------------------------------------------------------
add("int[shape-ops]", both("reshape") + both("permute") + both("cat") + both("flip") + both("roll") + both("gather"),
    lambda t, x, i: (x.reshape(4, 3), x.permute(1, 0), t.cat([x, x], 1), x.flip(0), x.roll(1, 1), x.gather(1, i), x[i[0]],
                     x.t().contiguous(), t.stack([x, x]), x.unsqueeze(0).squeeze(0), x.tril(), x.repeat(2, 1), x.diag()),
    I, GIDX)
add("bool[shape-ops]", both("reshape") + both("cat"),
    lambda t, m: (m.reshape(-1), t.cat([m, m]), m.t(), m[0], m[:, 1:], m.flip(1), m.unsqueeze(1).expand(3, 2, 4)), MASK)
add("f64[matmul]", both("matmul") + both("bmm"), lambda t, a, b: (a @ b, t.bmm(a.unsqueeze(0), b.unsqueeze(0))),
    A.astype(np.float64), M45.astype(np.float64))
add("f16[matmul]", both("matmul"), lambda t, a, b: a @ b, A.astype(np.float16), M45.astype(np.float16), grad=False,
    rtol=2e-3, atol=2e-3)
add("matmul[promote-error]", both("matmul"), lambda t, a, b: a @ b, A, M45.astype(np.float64), kind="raises")
add("matmul[out]", both("matmul"), lambda t, a, b: (lambda o: (t.matmul(a, b, out=o), o)[1])(t.empty(3, 5)), A, M45,
    grad=False)
add("0d[shape-ops]", both("reshape") + both("unsqueeze") + both("flatten") + both("expand"),
    lambda t, x: (x.reshape(1, 1), x.unsqueeze(0), x.flatten(), x.expand(2, 3), x.view(()), x.clone(), x[None], x[...]),
    np.array(1.5, np.float32))
add("empty[shape-ops]", both("reshape") + both("cat") + both("permute"),
    lambda t, x, y: (x.reshape(3, 0), t.cat([x, x]), x.permute(1, 0), t.cat([x, y]), x.sum(0), x.transpose(0, 1)),
    np.zeros((0, 3), np.float32), np.ones((2, 3), np.float32))

# --- errors --------------------------------------------------------------------------------------------------
add("err[matmul-shape]", both("matmul"), lambda t, a, b: t.matmul(a, b), A, B, kind="raises")
add("err[mm-1d]", both("mm"), lambda t, a, b: t.mm(a, b), V4, M45, kind="raises")
add("err[view-noncontig]", registered("torch.Tensor.view"), lambda t, x: x.t().view(-1), A, kind="raises")
add("err[view-size]", registered("torch.Tensor.view"), lambda t, x: x.view(5, -1), A, kind="raises")
add("err[reshape-two-minus-one]", both("reshape"), lambda t, x: x.reshape(-1, -1), A, kind="raises")
add("err[permute-len]", both("permute"), lambda t, x: x.permute(1, 0), A3, kind="raises")
add("err[transpose-dim]", both("transpose"), lambda t, x: x.transpose(0, 3), A, kind="raises")
add("err[unsqueeze-dim]", both("unsqueeze"), lambda t, x: x.unsqueeze(4), A, kind="raises")
add("err[cat-shape]", registered("torch.cat"), lambda t, x, y: t.cat([x, y], 1), A, A3, kind="raises")
add("err[cat-dim]", registered("torch.cat"), lambda t, x, y: t.cat([x, y], 2), A, B, kind="raises")
add("err[stack-shape]", registered("torch.stack"), lambda t, x, y: t.stack([x, y]), A, V4, kind="raises")
add("err[expand]", registered("torch.Tensor.expand"), lambda t, x: x.expand(3, 5), A, kind="raises")
add("err[getitem-range]", registered("torch.Tensor.__getitem__"), lambda t, x: x[3], A, kind="raises")
add("err[getitem-too-many]", registered("torch.Tensor.__getitem__"), lambda t, x: x[0, 0, 0], A, kind="raises")
add("err[gather-dim]", both("gather"), lambda t, x, i: t.gather(x, 2, i), A, GIDX, kind="raises")
add("err[take-float]", both("take"), lambda t, x: t.take(x, x[0]), A, kind="raises")
add("err[index_select-float]", both("index_select"), lambda t, x: t.index_select(x, 0, x[0]), A, kind="raises")
add("err[split-sizes]", both("split"), lambda t, x: t.split(x, [1, 1], 0), A, kind="raises")
add("err[dot-2d]", both("dot"), lambda t, x: t.dot(x, x), A, kind="raises")
add("err[bmm-2d]", both("bmm"), lambda t, x: t.bmm(x, x), A, kind="raises")


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_shape(c):
    run_case(c)
