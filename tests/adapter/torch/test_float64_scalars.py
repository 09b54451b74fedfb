"""A Python float against a float64 tensor keeps float64 precision, as in
PyTorch (MindSpore alone rounds the scalar to float32 first: 1 - 0.999**3
would be off by 1e-5 relative -- enough to change Adam's bias correction)."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

CASES = {
    "rpow": lambda t, x: 0.999 ** x,
    "one_minus_rpow": lambda t, x: 1 - 0.999 ** x,
    "mul": lambda t, x: x * 0.1,
    "rsub": lambda t, x: 0.3 - x,
    "div": lambda t, x: x / 0.7,
    "add_": lambda t, x: x.clone().add_(0.1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_python_float_with_float64_tensor(name):
    fn = CASES[name]
    data = np.array([1.0, 3.0, 1000.0])
    want = fn(real, real.tensor(data, dtype=real.float64)).numpy()
    got = fn(mt, mt.tensor(data, dtype=mt.float64))
    assert got.dtype == mt.float64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
