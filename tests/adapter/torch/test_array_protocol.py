"""``np.array(tensor, ...)`` behaves as with PyTorch under the installed NumPy.

pytorch/examples' siamese_network calls ``np.array(t, dtype=None, copy=None)``:
a NumPy 2 spelling that NumPy 1.x itself refuses before asking the tensor
(MindSpore 2.10 needs NumPy < 2, so msnb's environment has 1.26).  The check
is that msnb's tensors give what PyTorch's give there, value or exception."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import mt, real

CALLS = {
    "copy=None": lambda a: np.array(a, dtype=None, copy=None),
    "copy=False": lambda a: np.array(a, copy=False),
    "copy=True": lambda a: np.array(a, copy=True),
    "asarray float64": lambda a: np.asarray(a, dtype=np.float64),
    "array int32": lambda a: np.array(a, dtype=np.int32),
}


def _outcome(fn, tensor):
    try:
        out = fn(tensor)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    return out.dtype.str, out.tolist()


@pytest.mark.parametrize("call", list(CALLS))
def test_numpy_conversion_matches_pytorch(call):
    got = [_outcome(CALLS[call], t.tensor([[1.5, -2.0], [0.25, 3.0]])) for t in (real, mt)]
    assert got[1] == got[0]


def test_targets_clone_as_siamese_network_converts_them():
    """The program's own line: ``np.array(dataset.targets.clone(), dtype=None, copy=None)``."""
    got = [_outcome(CALLS["copy=None"], t.tensor([3, 1, 4, 1, 5]).clone()) for t in (real, mt)]
    assert got[1] == got[0]
    if np.lib.NumpyVersion(np.__version__) < "2.0.0":
        assert got[0][0] == "ValueError"  # NumPy 1.x refuses copy=None for torch's tensors too
