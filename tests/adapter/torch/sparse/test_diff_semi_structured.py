"""``torch.sparse.to_sparse_semi_structured`` and the ``SparseSemiStructuredTensor``
classes against real PyTorch on CPU: every conversion is refused with the same
``RuntimeError`` and message (2:4 sparsity is a CUDA feature), the abstract
base and bad arguments fail alike."""

import warnings

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
SP = "torch.sparse."
W = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)


def beh(id, names, fn):
    CASES.append(case(id, tuple(SP + n for n in names), fn, kind="behaviour"))


def outcome(call):
    """The exception type and message of ``call()`` (or its result), so messages are compared too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's prototype-stage warning
        try:
            return "returned", repr(call())
        except Exception as e:  # noqa: BLE001 - the outcome being compared
            return type(e).__name__, str(e)


beh("to_sparse_semi_structured on CPU", ("to_sparse_semi_structured",),
    lambda t: [outcome(lambda: t.sparse.to_sparse_semi_structured(t.tensor(W))),
               outcome(lambda: t.sparse.to_sparse_semi_structured(t.tensor(W).half(), transposed=True)),
               outcome(lambda: t.sparse.to_sparse_semi_structured(t.tensor(W[:3, :3])))])
beh("from_dense of each layout", ("SparseSemiStructuredTensorCUTLASS", "SparseSemiStructuredTensorCUSPARSELT"),
    lambda t: [outcome(lambda: cls.from_dense(t.tensor(W))) for cls in (
        t.sparse.SparseSemiStructuredTensorCUTLASS, t.sparse.SparseSemiStructuredTensorCUSPARSELT)])
beh("the base class", ("SparseSemiStructuredTensor",),
    lambda t: (outcome(lambda: t.sparse.SparseSemiStructuredTensor.from_dense(t.tensor(W))),
               issubclass(t.sparse.SparseSemiStructuredTensorCUTLASS, t.sparse.SparseSemiStructuredTensor),
               t.sparse.SparseSemiStructuredTensor._FORCE_CUTLASS))
beh("a list is not a tensor", ("to_sparse_semi_structured",),
    lambda t: outcome(lambda: t.sparse.to_sparse_semi_structured([1.0, 2.0]))[0])


def test_the_base_class_needs_packed_values():
    """PyTorch's own message (measured on 2.13; its constructor imports the dynamo stack, ~9 s, so
    it is not run here)."""
    import msnb.adapter.torch as mt
    with pytest.raises(ValueError, match="^At least one of packed or packed_t must be provided$"):
        mt.sparse.SparseSemiStructuredTensor(mt.Size([4, 4]), None, None, None, None, None)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_semi_structured_matches_pytorch(c):
    run_case(c)
