"""The generator itself: seeds, ``initial_seed``, the state tensor in PyTorch's
byte layout (exchangeable with real PyTorch), ``fork_rng`` and ``Generator``
objects independent of the global one."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


@pytest.mark.parametrize("seed", [0, 1, 42, 2 ** 32 + 5, 2 ** 63 + 11, -1])
def test_state_bytes_equal_after_seed_and_draws(seed):
    real.manual_seed(seed)
    mt.manual_seed(seed)
    assert mt.initial_seed() == real.initial_seed()
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), real.get_rng_state().numpy())
    mt.rand(700), real.rand(700)  # past one 624-word block
    mt.randn(3), real.randn(3)  # leaves a cached normal in the state
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), real.get_rng_state().numpy())


def test_state_from_real_torch_continues_its_stream():
    real.manual_seed(7)
    real.rand(100)
    real.randn(1)  # cached second sample travels with the state
    mt.set_rng_state(mt.tensor(real.get_rng_state().numpy()))
    np.testing.assert_array_equal(mt.randn(5).numpy(), real.randn(5).numpy())
    np.testing.assert_array_equal(mt.rand(9).numpy(), real.rand(9).numpy())


def test_state_round_trip_and_bad_size():
    mt.manual_seed(3)
    s = mt.get_rng_state()
    a = mt.rand(4).numpy()
    mt.set_rng_state(s)
    np.testing.assert_array_equal(mt.rand(4).numpy(), a)
    assert tuple(s.shape) == (5056,)
    with pytest.raises(RuntimeError, match="RNG state size"):
        mt.set_rng_state(mt.zeros(10, dtype=mt.uint8))


def test_fork_rng_restores_the_global_stream():
    mt.manual_seed(5)
    real.manual_seed(5)
    with mt.random.fork_rng():
        mt.rand(50)
    with real.random.fork_rng():
        real.rand(50)
    np.testing.assert_array_equal(mt.rand(6).numpy(), real.rand(6).numpy())


def test_generator_objects_match_and_leave_the_global_stream_alone():
    g, rg = mt.Generator().manual_seed(99), real.Generator().manual_seed(99)
    mt.manual_seed(1)
    real.manual_seed(1)
    np.testing.assert_array_equal(mt.randn(20, generator=g).numpy(), real.randn(20, generator=rg).numpy())
    np.testing.assert_array_equal(mt.rand(3).numpy(), real.rand(3).numpy())
    assert mt.Generator().initial_seed() == real.Generator().initial_seed()
    np.testing.assert_array_equal(g.get_state().numpy(), rg.get_state().numpy())


def test_seed_is_random_and_reported():
    s = mt.seed()
    assert mt.initial_seed() == s and 0 <= s < 2 ** 64
    mt.manual_seed(s)
    real.manual_seed(s)
    np.testing.assert_array_equal(mt.rand(3).numpy(), real.rand(3).numpy())
