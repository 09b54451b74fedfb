"""torch.masked.MaskedTensor against real PyTorch: each case runs the same program on
both and compares PyTorch's printed form (which shows every masked-in value and the
mask), so a wrong value, a wrong mask or a wrong layout of the text all fail."""

import warnings

import numpy as np
import pytest

from ..harness import case, mt, real, registered, run_case

warnings.filterwarnings("ignore", message=".*MaskedTensor.*")  # PyTorch's prototype warning
D = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1.5
M = (np.arange(24).reshape(2, 3, 4) % 3 != 1)


@pytest.fixture(autouse=True, scope="module")
def _hook_put_back():
    """``torch.masked`` puts msnb's torch-function wrappers in place when imported; later test modules
    expect them idle, so they are put back after this module (and in place again if it resumes)."""
    from msnb.adapter.torch.masked import maskedtensor
    maskedtensor._hook_once()
    yield
    maskedtensor._unhook()


def run(program):
    """``program(torch, masked_tensor)`` on msnb and on PyTorch: their printed results."""
    out = []
    for t in (mt, real):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = program(t, lambda d, m, **kw: t.masked.masked_tensor(t.tensor(d), t.tensor(m), **kw))
        out.append([repr(x) if isinstance(x, t.masked.MaskedTensor) else np.asarray(x.detach().numpy())
                    for x in (r if isinstance(r, tuple) else (r,))])
    return out


def test_a_masked_tensor_made_inside_the_call_reaches_the_torch_function():
    """A fresh session: ``from torch.masked import masked_tensor``, then ``torch.sum(masked_tensor(...))``
    looks ``torch.sum`` up before the first MaskedTensor exists, so taking the name must already have
    put the wrappers in place; the masked reductions alone and autograd.grad must not (a fresh
    process: this one's wrappers are the fixture's)."""
    import os
    import subprocess
    import sys
    code = ("import msnb.adapter.torch as torch\n"
            "from msnb.adapter.torch.fx import _hook\n"
            "import msnb.adapter.torch.masked as masked\n"
            "x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)\n"
            "masked.sum(x, mask=torch.tensor([True, False, True])); torch.autograd.grad(x.sum(), x)\n"
            "print(_hook.active())\n"
            "from msnb.adapter.torch.masked import masked_tensor\n"
            "m = torch.sum(masked_tensor(torch.tensor([1.0, 2.0, 4.0]), torch.tensor([True, False, True])))\n"
            "print(m.get_data().item())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "GLOG_v": "3"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-2:] == ["False", "5.0"]


def plain(t, grad):
    """PyTorch makes a plain tensor's grad a MaskedTensor once a MaskedTensor took part; msnb keeps it plain."""
    return grad.get_data() if t.masked.is_masked_tensor(grad) else grad


def same(program):
    ours, theirs = run(program)
    for a, b in zip(ours, theirs):
        if isinstance(b, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_printing_1d_2d_3d_0d_int_and_bool():
    same(lambda t, m: (m(D, M), m(D[0], M[0]), m(D[0, 0], M[0, 0]), m(D[0, 0, 0], M[0, 0, 0]),
                       m(D[0, 0, 1], M[0, 0, 1]), m((D * 7).astype(np.int64), M), m(D > 0, M)))


def test_accessors_and_to_tensor():
    same(lambda t, m: (m(D, M).get_data(), m(D, M).get_mask(), m(D, M).to_tensor(-5.0)))


@pytest.mark.parametrize("name", ["exp", "abs", "sin", "tanh", "sigmoid", "neg", "square", "sqrt"])
def test_unary_keeps_mask(name):
    same(lambda t, m: (getattr(t, name)(m(D, M)), getattr(m(D, M), name)()))


def test_binary_ops_and_comparisons():
    same(lambda t, m: (m(D, M) + m(D * 2, M), m(D, M) * t.tensor(D), t.tensor(D) * m(D, M), m(D, M) / 2,
                       m(D, M) ** 2, m(D, M) - m(D, M), m(D, M) > 0, m(D, M) == m(D, M), -m(D, M),
                       t.maximum(m(D, M), m(-D, M)), ~(m(D, M) > 0)))


def test_binary_op_with_different_masks_raises_value_error():
    for t in (mt, real):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = t.masked.masked_tensor(t.tensor(D), t.tensor(M))
            b = t.masked.masked_tensor(t.tensor(D), t.tensor(~M))
            with pytest.raises(ValueError, match="Input masks must match"):
                a + b


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin"])
def test_reductions_full_and_along_a_dim(name):
    same(lambda t, m: (getattr(t, name)(m(D, M)), getattr(t, name)(m(D, M), 1),
                       getattr(m(D, M), name)(dim=2, keepdim=True)))


def test_all_and_fully_masked_out_rows():
    mask = M.copy()
    mask[0, 1] = False
    same(lambda t, m: (m(D > 0, M).all(), m(D > 0, M).all(1), t.sum(m(D, mask), 2), t.amax(m(D, mask), 2),
                       m(D, M).sum((0, 2)), m(D, M).prod()))


def test_softmax_and_log_softmax_are_masked():
    same(lambda t, m: (m(D, M).softmax(1), m(D, M).softmax(-1), t.softmax(m(D, M), 0)))
    ours, theirs = [t.masked.log_softmax(t.tensor(D), 2, mask=t.tensor(M)) for t in (mt, real)]
    got = mt.masked.masked_tensor(mt.tensor(D), mt.tensor(M)).log_softmax(2).to_tensor(0).numpy()
    np.testing.assert_allclose(got, np.where(M, theirs.numpy(), 0), rtol=1e-5, atol=1e-5)


def test_indexing_and_view_ops():
    same(lambda t, m: (m(D, M)[0], m(D, M)[:, :, 2:4], m(D, M)[1, 2], m(D, M).transpose(0, 2),
                       m(D, M).reshape(6, 4), m(D, M).view(-1), m(D[0], M[0]).t(), m(D, M).flatten(1),
                       m(D, M).unsqueeze(1), len(m(D, M)) * m(D, M).clone().detach()))


def test_where_picks_data_and_mask():
    cond = D > 0
    same(lambda t, m: t.where(t.tensor(cond), m(D, M), m(D * 3, ~M)))


def test_where_with_a_plain_operand_counts_it_masked_in():
    """The tutorial's where(b, a / 0, c) with a plain c: PyTorch's result is c, masked-in."""
    same(lambda t, m: (t.where(t.tensor(False), m(np.float32(2.0), np.bool_(True)) / 0, t.ones(())),
                       t.where(t.tensor(D > 0), m(D, M), t.tensor(D * 5)), t.where(t.tensor(D > 0), m(D, M), 0.0)))


def test_where_gradient_has_no_nan_where_plain_torch_has_one():
    """The tutorial's case: exp(100) overflows in the branch where() does not take."""
    x = np.array([-10., -5, 0, 5, 10, 50, 60, 70, 80, 90, 100], dtype=np.float32)

    def prog(t, m):
        mx = m(x, x < 0, requires_grad=True)
        my = m(np.ones_like(x), ~(x < 0), requires_grad=True)
        y = t.where(t.tensor(x < 0), t.exp(mx), my)
        y.sum().backward()
        return y, mx.grad, my.grad
    same(prog)


def test_masked_out_nan_does_not_reach_a_gradient():
    """The tutorial's nansum case: a NaN masked out of a product leaves b's gradient finite."""
    a = np.array([1., 2., np.nan], dtype=np.float32)

    def prog(t, m):
        b = t.tensor(1.0, requires_grad=True)
        c = t.sum(m(a, ~np.isnan(a)) * b)
        c.backward()
        return c, plain(t, b.grad)
    same(prog)


def test_autograd_grad_of_and_to_masked_tensors():
    """The tutorial's nansum case through torch.autograd.grad, and a gradient to a MaskedTensor input."""
    a = np.array([1., 2., np.nan], dtype=np.float32)

    def prog(t, m):
        b = t.tensor(1.0, requires_grad=True)
        gb, = t.autograd.grad(t.sum(m(a, ~np.isnan(a)) * b), b)
        x = m(D, M, requires_grad=True)
        gx, = t.autograd.grad(t.exp(x).sum(), x)
        return plain(t, gb), gx
    same(prog)


def test_as_masked_tensor_keeps_history():
    def prog(t, m):
        x = t.tensor([1., 1.], requires_grad=True)
        y = x / t.tensor([0., 1.])
        t.masked.as_masked_tensor(y, y.isfinite()).sum().backward()
        return plain(t, x.grad)[1:]  # element 0 only fed a masked-out value: PyTorch hides it as --
    same(prog)


def test_bad_construction_raises_like_pytorch():
    for t in (mt, real):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError):
                t.masked.masked_tensor(t.tensor(D), t.tensor(M[0]))
            with pytest.raises(TypeError):
                t.masked.masked_tensor(t.tensor(D), t.tensor(D))


def test_sparse_and_unknown_ops_refuse_by_name():
    a = mt.masked.masked_tensor(mt.tensor(D), mt.tensor(M))
    with pytest.raises(AttributeError, match="not supported by msnb yet"):
        a.cumsum(0)
    with pytest.raises(AttributeError, match="not supported by msnb yet"):
        mt.cumsum(a, 0)
    for unsupported_in_pytorch_too in (lambda: a.permute(2, 0, 1), lambda: a.squeeze(), lambda: (a > 0).any(),
                                       lambda: a.T):
        with pytest.raises(AttributeError, match="not supported by msnb yet"):
            unsupported_in_pytorch_too()
    with pytest.raises(AttributeError, match="not supported by msnb yet"):
        mt.masked.masked_tensor(mt.tensor(D[0]).to_sparse(), mt.tensor(M[0]))
    assert mt.masked.is_masked_tensor(a) and not mt.masked.is_masked_tensor(mt.tensor(D))


def _print_and_reduce(real_, mt_):
    same(lambda t, m: (m(D, M), t.sum(m(D, M), 1), m(D, M).softmax(0), m(D, M) * 2))


def _history(real_, mt_):
    test_as_masked_tensor_keeps_history()


def _is_masked(real_, mt_):
    same(lambda t, m: t.tensor([t.masked.is_masked_tensor(m(D, M)), t.masked.is_masked_tensor(t.tensor(D))]))


#: the registry names these differential programs cover (``test_diff_coverage`` reads this table;
#: ``registered`` keeps it valid before the lead regenerates support.json)
CASES = [
    case("masked_tensor_print_reduce", registered("torch.masked.masked_tensor", "torch.masked.MaskedTensor"),
         _print_and_reduce, kind="custom"),
    case("as_masked_tensor_history", registered("torch.masked.as_masked_tensor"), _history, kind="custom"),
    case("is_masked_tensor", registered("torch.masked.is_masked_tensor"), _is_masked, kind="custom"),
]


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_case(c):
    run_case(c)
