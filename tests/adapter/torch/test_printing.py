"""``print(tensor)`` is PyTorch's, character for character: notation choice
(integer, fixed, scientific), widths, wrapping, summarisation, suffixes, and
``set_printoptions``."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

rng = np.random.default_rng(7)

ARRAYS = {
    "small_floats": rng.standard_normal((3, 4)).astype(np.float32),
    "scalar": np.float32(3.25),
    "int_valued_floats": np.arange(6, dtype=np.float32).reshape(2, 3),
    "wide_range": np.array([1e-5, 1.0, 1234.5], np.float32),
    "huge": np.array([1e9, 2.0], np.float32),
    "tiny": np.array([1e-6, 3e-6], np.float32),
    "big_ints_as_float": np.array([1.0, 5000.0], np.float32),
    "nonfinite": np.array([np.nan, np.inf, -np.inf, 1.5], np.float32),
    "all_zero": np.zeros(4, np.float32),
    "long_row": rng.standard_normal(30).astype(np.float32),
    "summarized": rng.standard_normal((40, 40)).astype(np.float32),
    "summarized_1d": np.arange(2000, dtype=np.float32),
    "three_d": rng.standard_normal((2, 3, 4)).astype(np.float32),
    "ints": np.array([[1, -20], [300, 4]], np.int64),
    "int32": np.array([1, 2], np.int32),
    "uint8": np.array([0, 255], np.uint8),
    "bools": np.array([True, False, True]),
    "float64": rng.standard_normal(3),
    "float16": np.array([0.5, 1.25], np.float16),
    "empty": np.zeros((0,), np.float32),
    "empty_2d": np.zeros((2, 0), np.float32),
    "empty_long": np.zeros((0,), np.int64),
}


@pytest.mark.parametrize("name", list(ARRAYS))
def test_repr_matches_torch(name):
    a = ARRAYS[name]
    assert repr(mt.tensor(a)) == repr(real.tensor(a))


def test_autograd_suffixes_match_torch():
    a = ARRAYS["small_floats"]
    outs = []
    for lib in (mt, real):
        x = lib.tensor(a, requires_grad=True)
        outs.append([repr(x), repr(x + 1), repr(x * 2), repr(x.sum()), repr(x.mean()), repr(x @ x.T)])
    assert outs[0] == outs[1]


def test_parameter_repr_matches_torch():
    a = ARRAYS["small_floats"][:2]
    assert repr(mt.nn.Parameter(mt.tensor(a))) == repr(real.nn.Parameter(real.tensor(a)))


@pytest.mark.parametrize("opts", [dict(precision=2), dict(sci_mode=True), dict(threshold=5, edgeitems=1),
                                  dict(linewidth=30), dict(profile="short"), dict(profile="full")])
def test_set_printoptions_matches_torch(opts):
    a = ARRAYS["long_row"]
    try:
        mt.set_printoptions(**opts)
        real.set_printoptions(**opts)
        assert repr(mt.tensor(a)) == repr(real.tensor(a))
    finally:
        mt.set_printoptions(profile="default")
        real.set_printoptions(profile="default")


@pytest.mark.parametrize("a", [np.array([1 + 2j, -0.5 - 1.25j, 3j], np.complex64),
                               (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(np.complex64),
                               np.array([1e-6 + 1j], np.complex128)], ids=["small", "2d", "sci_complex128"])
def test_complex_repr_matches_torch(a):
    assert repr(mt.tensor(a)) == repr(real.tensor(a))
