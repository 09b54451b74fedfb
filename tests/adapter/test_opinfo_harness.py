"""The OpInfo replay's own plumbing (``msnb/adapter/opinfo.py``): PyTorch's
lazily conjugated results (``fft.ifft`` / ``fft.ihfft`` of real input carry
the conjugate bit, and ``numpy()`` refuses them) are read through
``resolve_conj``.  (Module cases move both modules to the case's dtype as
PyTorch's module tests do; the replay suite's FractionalMaxPool cases show
it, and tests/adapter/torch/nn/test_diff_fractional_samples.py the module's
own ``.to``.)"""

from __future__ import annotations

import numpy as np
import torch

from msnb.adapter import opinfo


def test_conjugate_bit_results_are_read():
    y = torch.fft.ihfft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    assert y.is_conj()
    np.testing.assert_allclose(opinfo._np(y), np.conj(np.fft.rfft([1.0, 2.0, 3.0, 4.0])) / 4, rtol=1e-6)


def _fake_case(name, real_fn):
    """A case for ``_replay_op_sample`` with only what it reads of an OpInfo."""
    import types
    info = types.SimpleNamespace(name=name, op=real_fn, method_variant=None, decorators=())
    return opinfo.Case(f"{name}:function:float32", f"torch.{name}", "function", "float32", info)


def _lu_sample():
    from torch.testing._internal.opinfo.core import SampleInput
    a = torch.tensor([[1.0, 2.0, 0.5], [4.0, 1.0, 3.0], [2.0, 7.0, 1.0]], requires_grad=True)
    return SampleInput(a, output_process_fn_grad=lambda out: out[0])


def test_raw_outputs_are_compared_in_values_beside_the_processed_ones():
    """A sample whose ``output_process_fn_grad`` keeps only part of the outputs (lu_factor's LU,
    not its pivots) still has every raw output compared in values, as PyTorch's own tests do:
    wrong pivots are a mismatch, right ones pass."""
    import pytest
    import msnb.adapter.torch as mt
    case = _fake_case("linalg.lu_factor", torch.linalg.lu_factor)
    opinfo._replay_op_sample(case, _lu_sample(), mt.linalg.lu_factor)

    def wrong_pivots(a):
        lu, piv = mt.linalg.lu_factor(a)
        return lu, mt.ones_like(piv)

    with pytest.raises(opinfo.Mismatch, match="output 1: values differ"):
        opinfo._replay_op_sample(case, _lu_sample(), wrong_pivots)


def test_outputs_known_only_up_to_sign_are_compared_processed():
    """For ops with non-unique outputs (singular vectors up to sign) the raw outputs are compared
    in shape and dtype only, their processed form (here U S V^H) in values."""
    from torch.testing._internal.opinfo.core import SampleInput
    import msnb.adapter.torch as mt
    assert "linalg.svd" in opinfo.NONUNIQUE_OPS and "linalg.eigvalsh" not in opinfo.NONUNIQUE_OPS
    a = torch.tensor([[3.0, 1.0], [1.0, 2.0], [0.5, -1.0]], requires_grad=True)
    sample = SampleInput(a, kwargs={"full_matrices": False},
                         output_process_fn_grad=lambda usv: usv[0] * usv[1].unsqueeze(-2) @ usv[2])

    def flipped(x, full_matrices):
        u, s, vh = mt.linalg.svd(x, full_matrices=full_matrices)
        return -u, s, -vh

    opinfo._replay_op_sample(_fake_case("linalg.svd", torch.linalg.svd), sample, flipped)


def test_sparse_results_are_compared_densified():
    """``to_sparse``: msnb's sparse COO result is compared with PyTorch's in layout, then densified,
    in values (a wrong stored value is a mismatch)."""
    import pytest
    import msnb.adapter.torch as mt
    r = torch.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse()
    opinfo._compare(r, mt.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse(), "output 0")
    with pytest.raises(opinfo.Mismatch, match="densified"):
        opinfo._compare(r, mt.tensor([[0.0, 1.5], [2.5, 0.0]]).to_sparse(), "output 0")
    with pytest.raises(opinfo.Mismatch, match="layout"):
        opinfo._compare(r, mt.tensor([[0.0, 1.5], [2.0, 0.0]]), "output 0")


def test_partial_view_inputs_keep_their_storage():
    """A sample input that views part of a bigger base becomes the same view of the same base in
    msnb (``as_strided`` of it addresses the base's storage); whole tensors stay plain copies."""
    base = torch.arange(20.0)
    leaves = []
    m = opinfo.to_msnb(base[5:15].requires_grad_(), leaves)
    assert m._vbase is not None and m.tolist() == list(range(5, 15)) and m.requires_grad
    assert torch.as_strided(base[5:15], (2, 2), (1, 2), 0).tolist() == \
        opinfo._mt().as_strided(m, (2, 2), (1, 2), 0).tolist()
    assert opinfo.to_msnb(base, [])._vbase is None
    assert opinfo.to_msnb(base.view(4, 5), [])._vbase is None


def test_float32_output_as_accurate_as_torchs_own_passes():
    """Where torch's own float32 result is off (a cancellation: ``(x * 1e8 + 1) - x * 1e8`` is 0 in
    float32, 1 in float64), msnb's result passes when it is no further from torch's float64 answer
    than torch's float32 one is; a result further off is still a mismatch."""
    import pytest
    from torch.testing._internal.opinfo.core import SampleInput
    import msnb.adapter.torch as mt

    def cancel(x):
        return (x * 1e8 + 1) - x * 1e8

    sample = SampleInput(torch.tensor([3.0, 7.0]))
    assert cancel(sample.input).tolist() != [1.0, 1.0]  # torch float32 loses the 1
    assert cancel(sample.input.double()).tolist() == [1.0, 1.0]
    case = _fake_case("cancel", cancel)
    opinfo._replay_op_sample(case, sample, lambda x: mt.ones_like(x))  # exact: passes
    with pytest.raises(opinfo.Mismatch, match="values differ"):
        opinfo._replay_op_sample(case, sample, lambda x: mt.full_like(x, 5.0))  # further off than torch
    with pytest.raises(opinfo.Mismatch, match="values differ"):  # a well-conditioned op gets no slack
        opinfo._replay_op_sample(_fake_case("exp", torch.exp), SampleInput(torch.tensor([1.0, 2.0])),
                                 lambda x: mt.exp(x) * 1.001)


def test_numeric_gradient_is_the_oracle_where_pytorchs_backward_is_known_wrong():
    """PyTorch's OpInfo marks as_strided_scatter's ``test_fn_grad`` an expected failure: its
    backward gives the input's gradient where ``src`` overwrites it and 0 where it does not
    (finite differences give the opposite).  There the replay accepts msnb's gradient when it matches the numerical one of
    torch's forward, and still refuses one that matches neither."""
    import pytest
    import msnb.adapter.torch as mt
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.opinfo.core import SampleInput
    op = next(o for o in op_db if o.name == "as_strided_scatter")
    assert opinfo._torch_grad_known_wrong(op, "float32")
    assert not opinfo._torch_grad_known_wrong(next(o for o in op_db if o.name == "add"), "float32")
    case = opinfo.Case("as_strided_scatter:function:float32", "torch.as_strided_scatter", "function", "float32", op)

    def sample():
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        return SampleInput(x, args=(torch.tensor([3.0, 4.0], requires_grad=True), (2,), (2,)))
    x = sample().input
    gx, = torch.autograd.grad(torch.as_strided_scatter(x, torch.zeros(2), (2,), (2,)).sum(), x)
    assert gx.tolist() == [1.0, 0.0, 1.0]  # PyTorch's: the overwritten elements 0 and 2 get the gradient
    opinfo._replay_op_sample(case, sample(), mt.as_strided_scatter)  # msnb's [0, 1, 0] is the right one
    m = mt.tensor([0.5, -1.0, 2.0], requires_grad=True)
    mt.as_strided_scatter(m, mt.zeros(2), (2,), (2,)).sum().backward()
    assert m.grad.tolist() == [0.0, 1.0, 0.0]

    def keeps_input_gradient(a, src, size, stride):  # the right values, a wrong gradient
        return mt.as_strided_scatter(a, src, size, stride) + a * 0 + (a - a.detach())
    with pytest.raises(opinfo.Mismatch, match="gradient of input 0"):
        opinfo._replay_op_sample(case, sample(), keeps_input_gradient)
