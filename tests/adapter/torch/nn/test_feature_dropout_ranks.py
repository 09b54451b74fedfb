"""dropout2d / dropout3d on inputs of other ranks behave as PyTorch 2.13's
deprecated paths (a warning, then the same masks, bit for bit, from the same
seed); dropout1d refuses them, as PyTorch does.  mnist_rnn applies Dropout2d
to 2-D activations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


@pytest.mark.parametrize("name", ["dropout2d", "dropout3d"])
@pytest.mark.parametrize("shape", [(6, 5), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 2)])
def test_feature_dropout_any_rank_matches_torch(name, shape):
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    outs = []
    for lib in (real, mt):
        lib.manual_seed(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs.append(getattr(lib.nn.functional, name)(lib.tensor(a), 0.5, True).numpy())
    np.testing.assert_array_equal(outs[1], outs[0])


def test_dropout2d_on_2d_input_warns_like_torch():
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input"):
        mt.nn.Dropout2d()(mt.ones(4, 3))


@pytest.mark.parametrize("shape", [(4,), (2, 3, 4, 5)])
def test_dropout1d_refuses_other_ranks(shape):
    for lib in (real, mt):
        with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
            lib.nn.functional.dropout1d(lib.zeros(shape))
