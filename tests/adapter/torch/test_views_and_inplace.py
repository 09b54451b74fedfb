"""Views share writes with their base, in-place ops reach every alias, and
autograd follows them -- the cases MSAdapter users had to rewrite."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


def test_slice_inplace_changes_base_like_the_seed_example():
    """``boxes[i, :, 0::4].clamp_(0, w - 1)`` must clamp inside ``boxes`` (MSAdapter guide 4.2.3)."""
    arr = np.arange(2 * 3 * 8, dtype=np.float32).reshape(2, 3, 8) - 10
    out = []
    for t in (real, mt):
        boxes = t.tensor(arr)
        im_shape = t.tensor([[5.0, 9.0], [5.0, 9.0]])
        for i in range(2):
            boxes[i, :, 0::4].clamp_(0, im_shape[i, 1] - 1)
        out.append(boxes.numpy())
    np.testing.assert_array_equal(out[0], out[1])


def test_view_and_base_see_each_others_writes():
    x = mt.zeros(2, 3)
    v = x.view(6)
    v[1] = 5.0
    assert x[0, 1].item() == 5.0
    x.add_(1)
    assert v.tolist() == [1.0, 6.0, 1.0, 1.0, 1.0, 1.0]
    row = x[1]
    row.mul_(10)
    assert x.tolist() == [[1.0, 6.0, 1.0], [10.0, 10.0, 10.0]]
    assert v.tolist()[3:] == [10.0, 10.0, 10.0]


def test_view_of_view_and_transpose_write_through():
    x = mt.arange(12.0).reshape(3, 4)
    t = x.t()
    t[0].fill_(-1)
    assert x[:, 0].tolist() == [-1.0, -1.0, -1.0]
    sub = x[1:][:, 2:]
    sub.zero_()
    assert x[1:, 2:].sum().item() == 0


def test_out_argument_and_augmented_assignment():
    a, b = mt.ones(3), mt.full((3,), 2.0)
    out = mt.empty(3)
    r = mt.add(a, b, out=out)
    assert r is out and out.tolist() == [3.0, 3.0, 3.0]
    alias = a
    a += 4
    assert alias.tolist() == [5.0, 5.0, 5.0]


def test_data_writes_reach_the_tensor_and_skip_autograd():
    w = mt.ones(3, requires_grad=True)
    w.data.mul_(3)
    assert w.tolist() == [3.0, 3.0, 3.0] and w.requires_grad and w.is_leaf


def test_inplace_on_leaf_requiring_grad_raises_like_pytorch():
    w = mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.add_(1)
    with mt.no_grad():
        w.add_(1)
    assert w.tolist() == [2.0, 2.0, 2.0]


def test_gradient_through_inplace_on_view_matches_pytorch():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    grads = []
    for t in (real, mt):
        w = t.tensor(arr, requires_grad=True)
        y = w * 2
        y[0].mul_(3)
        y[:, 1].add_(w[:, 2])
        (y * t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])


def test_modified_saved_tensor_is_detected():
    a = mt.ones(3, requires_grad=True)
    b = a * 2
    c = b * b
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_format_strings():
    loss = mt.tensor(0.123456)
    assert f"{loss:.4f}" == "0.1235"
    assert "{:.2f}".format(mt.tensor([0.5, 0.25])[1]) == "0.25"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{mt.ones(2):.2f}"


def test_print_matches_pytorch():
    for make in (lambda t: t.ones(2, 3) * 2, lambda t: t.tensor([1.5, -2.25]), lambda t: t.arange(5),
                 lambda t: t.tensor([True, False]), lambda t: t.tensor(3.5), lambda t: t.zeros(2, dtype=t.float64)):
        assert repr(make(mt)) == repr(make(real))
    a = mt.tensor([1.0], requires_grad=True)
    assert repr(a * 2) == "tensor([2.], grad_fn=<MulBackward0>)"
