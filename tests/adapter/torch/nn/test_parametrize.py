"""torch.nn.utils.parametrize against real PyTorch: stacked parametrizations, the
state_dict keys, gradients reaching ``original``, assignment through
``right_inverse`` (and PyTorch's error without one), ``cached()`` and removal."""

import numpy as np
import pytest

from ..harness import mt, real

NAMES = tuple(f"torch.nn.utils.parametrize.{n}" for n in (
    "register_parametrization", "is_parametrized", "remove_parametrizations", "cached", "ParametrizationList",
    "type_before_parametrizations", "transfer_parametrizations_and_params"))


def _run(lib):
    P = lib.nn.utils.parametrize

    class Sym(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, X):
            return X.triu()

    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, X):
            return X / 2

    m = lib.nn.Linear(3, 3)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(np.arange(9, dtype=np.float32).reshape(3, 3)))
        m.bias.zero_()
    P.register_parametrization(m, "weight", Sym())
    P.register_parametrization(m, "weight", Scale())
    y = m(lib.tensor(np.ones((2, 3), np.float32)))
    y.sum().backward()
    out = [list(m.state_dict()), y.detach().numpy(), m.parametrizations.weight.original.grad.numpy(),
           P.is_parametrized(m), P.is_parametrized(m, "bias"), P.type_before_parametrizations(m).__name__]
    with P.cached():
        assert m.weight is m.weight
    m.weight = lib.tensor(np.eye(3, dtype=np.float32) * 4)
    out.append(m.parametrizations.weight.original.detach().numpy())
    other = lib.nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(m, other)
    out.append(other.weight.detach().numpy())
    P.remove_parametrizations(m, "weight")
    out += [type(m).__name__, list(m.state_dict()), m.weight.detach().numpy()]
    return out


def test_parametrize_matches_pytorch():
    for r, m in zip(_run(real), _run(mt)):
        if isinstance(r, np.ndarray):
            np.testing.assert_allclose(m, r, rtol=1e-6)
        else:
            assert m == r


def test_assigning_without_right_inverse_raises_like_pytorch():
    for lib in (real, mt):
        class Neg(lib.nn.Module):
            def forward(self, X):
                return -X
        m = lib.nn.Linear(2, 2)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Neg())
        with pytest.raises(RuntimeError):
            m.weight = lib.zeros(2, 2)
