"""Differential tests of sparse COO tensors against real PyTorch: each case
builds the same sparse tensors in both libraries and compares what a person
sees -- ``print`` of every result (indices, values, size, nnz, dtype, layout,
grad_fn), and the gradients that reach the dense operand and the values --
plus PyTorch's exception types for bad input.  Sparse layouts msnb lacks
(CSR, CSC, ...) raise msnb's unsupported error."""

from __future__ import annotations

import re
import warnings

import pytest

from ..harness import case, mt, real, registered, run_case

warnings.filterwarnings("ignore", message="Sparse invariant checks")

IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) twice: uncoalesced
VAL = [3.0, 4.0, 5.0, -1.5]
DENSE = [[0.5, -1.0], [2.0, 1.0], [0.25, 3.0]]


def _shown(objs):
    """What printing shows, with object addresses taken out."""
    return [re.sub(r" at 0x[0-9a-f]+", "", repr(o)) for o in objs]


def same_print(fn):
    """``fn(lib)`` returns objects; both libraries must print them identically."""
    def check(r, m):
        assert _shown(fn(m)) == _shown(fn(r))
    return check


def same_error(fn):
    def check(r, m):
        with pytest.raises(Exception) as ref:
            fn(r)
        with pytest.raises(type(ref.value)):
            fn(m)
    return check


def coo(t, idx=IDX, val=VAL, size=(2, 3), **kw):
    return t.sparse_coo_tensor(t.tensor(idx), t.tensor(val), size, **kw)


def _product_grads(t, product):
    v = t.tensor(VAL, requires_grad=True)
    d = t.tensor(DENSE, requires_grad=True)
    out = product(t, t.sparse_coo_tensor(t.tensor(IDX), v, (2, 3)), d)
    (out * out).sum().backward()
    return [out, v.grad, d.grad]


def _dense_left_grads(t):
    v = t.tensor(VAL, requires_grad=True)
    d = t.tensor([[1.0, 2.0], [3.0, -4.0], [0.5, 6.0]], requires_grad=True)
    out = d @ t.sparse_coo_tensor(t.tensor(IDX), v, (2, 3))
    (out ** 2).sum().backward()
    return [out, v.grad, d.grad]


def _leaf_sparse_grad(t):
    s = coo(t, requires_grad=True)
    d = t.tensor(DENSE)
    t.sparse.mm(s, d).sum().backward()
    return [s, s.grad, s.is_leaf, s.requires_grad]


def _to_sparse_grad(t):
    x = t.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]], requires_grad=True)
    s = x.to_sparse()
    (s.to_dense() * t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    return [s, x.grad]


def _coalesce_grad(t):
    v = t.tensor(VAL, requires_grad=True)
    c = t.sparse_coo_tensor(t.tensor(IDX), v, (2, 3)).coalesce()
    (c.values() * t.tensor([1.0, 2.0, 3.0])).sum().backward()
    return [c.indices(), v.grad]


def _meta(t):
    s = coo(t)
    return [s.layout, s.is_sparse, s.is_coalesced(), s.sparse_dim(), s.dense_dim(), s._nnz(), s.shape, s.dtype,
            s.numel(), s.is_leaf, s.requires_grad, t.is_tensor(s), s.type(), t.ones(2).layout, t.strided,
            t.sparse_coo, type(t.strided).__name__]


CASES = [
    case("print", registered("torch.sparse_coo_tensor"), same_print(lambda t: [
        coo(t), coo(t, val=[1, 2, 3, 4]), coo(t, dtype=t.float64), coo(t, requires_grad=True),
        coo(t, idx=[[0, 1]], val=[[1.0, 2.0], [3.0, 4.0]], size=(2, 2)),
        t.sparse_coo_tensor(t.zeros(2, 0, dtype=t.int64), t.zeros(0), (2, 3)),
        t.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0]),  # size inferred from the indices
        t.sparse_coo_tensor(t.tensor([[0.0, 1.0]]), t.ones(2)),  # float indices are cast
        t.sparse_coo_tensor(t.tensor([[0, 1], [1, 2]]), t.ones(2), (3, 3), dtype=t.int64),
        t.sparse_coo_tensor(t.tensor(IDX), t.tensor(VAL, requires_grad=True), (2, 3))]), kind="custom"),
    case("metadata", registered("torch.layout", "torch.Tensor.is_coalesced", "torch.Tensor.sparse_dim",
                                "torch.Tensor.dense_dim"), same_print(_meta), kind="custom"),
    case("coalesce/indices/values", registered("torch.Tensor.coalesce", "torch.Tensor.indices",
                                               "torch.Tensor.values", "torch.Tensor.is_coalesced"),
         same_print(lambda t: [coo(t).coalesce(), coo(t).coalesce().indices(), coo(t).coalesce().values(),
                               coo(t).coalesce().is_coalesced(), coo(t)._indices(), coo(t)._values(),
                               coo(t, idx=[[1, 0, 1]], val=[1.0, 2.0, 3.0], size=(3,)).coalesce()]), kind="custom"),
    case("coalesce grad", registered("torch.Tensor.coalesce"), same_print(_coalesce_grad), kind="custom"),
    case("indices of uncoalesced", registered("torch.Tensor.indices"), same_error(lambda t: coo(t).indices()),
         kind="custom"),
    case("values of uncoalesced", registered("torch.Tensor.values"), same_error(lambda t: coo(t).values()),
         kind="custom"),
    case("to_dense", registered("torch.Tensor.to_dense"),
         same_print(lambda t: [coo(t).to_dense(), coo(t, idx=[[1, 0, 1]], val=[[1.0, 2], [3, 4], [5, 6]],
                                                         size=(2, 2)).to_dense(),
                               t.ones(2, 2).to_dense(), coo(t).to_dense().dtype]), kind="custom"),
    case("to_sparse", registered("torch.Tensor.to_sparse", "torch.Tensor.to_sparse_coo"),
         same_print(lambda t: [t.diag(t.tensor([1.0, 0.0, 2.0])).to_sparse(),
                               t.tensor([[0, 1.0], [2, 0]]).to_sparse(1), t.zeros(2, 2).to_sparse(),
                               t.tensor([[0, 3], [4, 0]]).to_sparse_coo(), coo(t).to_sparse()]), kind="custom"),
    case("to_sparse grad", registered("torch.Tensor.to_sparse", "torch.Tensor.to_dense"),
         same_print(_to_sparse_grad), kind="custom"),
    case("sparse @ dense grads", registered("torch.sparse_coo_tensor"),
         same_print(lambda t: _product_grads(t, lambda t, s, d: s @ d)), kind="custom"),
    case("torch.sparse.mm grads", registered("torch.sparse.mm"),
         same_print(lambda t: _product_grads(t, lambda t, s, d: t.sparse.mm(s, d))), kind="custom"),
    case("torch.spmm grads", registered("torch.spmm"),
         same_print(lambda t: _product_grads(t, lambda t, s, d: t.spmm(s, d))), kind="custom"),
    case("torch.mm / matmul grads", registered("torch.mm", "torch.matmul"),
         same_print(lambda t: _product_grads(t, lambda t, s, d: t.mm(s, d) + t.matmul(s, d))), kind="custom"),
    case("dense @ sparse grads", registered("torch.sparse_coo_tensor"), same_print(_dense_left_grads),
         kind="custom"),
    case("sparse @ vector", registered("torch.sparse_coo_tensor"),
         same_print(lambda t: [coo(t) @ t.tensor([1.0, -2.0, 0.5])]), kind="custom"),
    case("sparse leaf grad", registered("torch.sparse.mm"), same_print(_leaf_sparse_grad), kind="custom"),
    case("sum", registered("torch.sparse.sum"),
         same_print(lambda t: [t.sparse.sum(coo(t)), t.sparse.sum(coo(t), 1), t.sparse.sum(coo(t), 0),
                               t.sparse.sum(coo(t), (0, 1)), coo(t).sum(), coo(t).sum(1),
                               t.sparse.sum(coo(t, idx=[[1, 0, 1]], val=[[1.0, 2], [3, 4], [5, 6]], size=(2, 2)),
                                            1)]), kind="custom"),
    case("arithmetic", registered("torch.sparse_coo_tensor"),
         same_print(lambda t: [coo(t) * 2.5, coo(t) / 2, -coo(t), coo(t) + coo(t), coo(t) - coo(t),
                               coo(t).coalesce() * coo(t, idx=[[0, 1], [2, 1]], val=[2.0, 9.0]).coalesce(),
                               t.ones(2, 3) + coo(t), t.ones(2, 3) - coo(t),
                               t.ones(2, 3) * coo(t), t.eye(3) + coo(t, idx=[[0, 1], [1, 2]], val=[1, 1],
                                                                    size=(3, 3)),
                               coo(t).t(), coo(t).transpose(0, 1), coo(t).t().is_coalesced(),
                               coo(t).to(t.float64), coo(t).double(), coo(t).long()]), kind="custom"),
    case("sparse + sparse (merge order)", registered("torch.sparse_coo_tensor"),
         same_print(lambda t: [coo(t) + coo(t, idx=[[1, 0], [1, 0]], val=[1.0, 2.0]),
                               coo(t, idx=[[1, 0], [1, 0]], val=[1.0, 2.0]) + coo(t, idx=[[0, 1], [0, 1]], val=[1.0, 2.0]),
                               coo(t).coalesce() + coo(t, idx=[[0, 1], [0, 1]], val=[1.0, 2.0]).coalesce(),
                               coo(t).coalesce().add(coo(t, idx=[[0], [2]], val=[7.0]), alpha=2)]), kind="custom"),
    case("sparse + dense", registered("torch.sparse_coo_tensor"), same_error(lambda t: coo(t) + t.ones(2, 3)),
         kind="custom"),
    case("dtype mismatch in mm", registered("torch.sparse.mm"),
         same_error(lambda t: t.sparse.mm(coo(t).double(), t.ones(3, 2))), kind="custom"),
    case("shape mismatch", registered("torch.sparse_coo_tensor"), same_error(lambda t: coo(t) @ t.ones(2, 2)),
         kind="custom"),
    case("nnz mismatch", registered("torch.sparse_coo_tensor"),
         same_error(lambda t: t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(3))), kind="custom"),
    case("index out of range", registered("torch.sparse_coo_tensor"),
         same_error(lambda t: t.sparse_coo_tensor(t.tensor([[0, 5]]), t.ones(2), (3,), check_invariants=True)),
         kind="custom"),
    case("negative index", registered("torch.sparse_coo_tensor"),
         same_error(lambda t: t.sparse_coo_tensor(t.tensor([[0, -1]]), t.ones(2), (3,), check_invariants=True)),
         kind="custom"),
    case("dense coalesce", registered("torch.Tensor.coalesce"), same_error(lambda t: t.ones(2).coalesce()),
         kind="custom"),
    case("dense indices", registered("torch.Tensor.indices"), same_error(lambda t: t.ones(2).indices()),
         kind="custom"),
    case("dense values", registered("torch.Tensor.values"), same_error(lambda t: t.ones(2).values()),
         kind="custom"),
    case("dense sparse.mm / spmm", registered("torch.sparse.mm", "torch.spmm"),
         same_print(lambda t: [t.sparse.mm(t.ones(2, 3), t.ones(3, 1)), t.spmm(t.ones(2, 3), t.ones(3, 1))]),
         kind="custom"),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_sparse_coo(c):
    run_case(c)


@pytest.mark.parametrize("make", [
    lambda t: t.ones(2, 3).to_sparse(layout=t.sparse_csr),
    lambda t: t.ones(2, 3).to_sparse_csr(),
    lambda t: t.ones(2, 3).to_sparse_csc(),
    lambda t: t.ones(2, 2).to_sparse_bsr((1, 1)),
    lambda t: t.sparse_csr_tensor(t.tensor([0, 1]), t.tensor([0]), t.tensor([1.0])),
    lambda t: t.sparse_compressed_tensor(t.tensor([0, 1]), t.tensor([0]), t.tensor([1.0]), (1, 1),
                                         layout=t.sparse_csr),
], ids=["to_sparse(layout=csr)", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "sparse_csr_tensor",
        "sparse_compressed_tensor"])
def test_other_sparse_layouts_raise_msnb_unsupported_error(make):
    make(real)  # PyTorch has them
    with pytest.raises(Exception, match="not supported by msnb"):
        make(mt)


@pytest.mark.parametrize("use", [lambda t, s: t.relu(s), lambda t, s: t.sin(s), lambda t, s: s.abs(),
                                 lambda t, s: s[0], lambda t, s: s * s],
                         ids=["relu", "sin", "abs", "getitem", "mul uncoalesced"])
def test_ops_without_a_sparse_version_raise_msnb_unsupported_error(use):
    """PyTorch has sparse versions of these; msnb says it has not, never computes on a placeholder."""
    use(real, coo(real))
    with pytest.raises(Exception, match="not supported by msnb"):
        use(mt, coo(mt))
