"""Modules exported by the torch.export tests, written once against either
library (real torch or msnb's adapter): the programs of PyTorch's export
tutorial, in their semantics (a linear layer over a sum, shape-dependent
Python, data-dependent branching, ``item()``, a module with convolution and
batch norm, keyword inputs)."""

from __future__ import annotations

import numpy as np

from ..fx._models import same_weights


def linear_relu(lib):
    """A linear layer over ``x + y`` with a buffer added: parameters, a buffer and two user inputs."""
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 3)
            self.register_buffer("b", lib.ones(3))

        def forward(self, x, y):
            return lib.nn.functional.relu(self.lin(x + y), inplace=True) + self.b
    return M()


def branch_on_data(lib):
    class M(lib.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return lib.sin(x)
            return lib.cos(x)
    return M()


def shape_checks(lib):
    """Python on shapes (asserts, ``dim()``, a reshape by a read size), two outputs."""
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l = lib.nn.Linear(5, 3)

        def forward(self, w, x):
            assert w.dim() == 2 and w.shape[1] == 5
            n = w.shape[0]
            return self.l(w).reshape(n, 3, 1), (x * 2).flatten()
    return M()


def scalar_from_tensor(lib):
    class M(lib.nn.Module):
        def forward(self, x, y):
            return y * x.item()
    return M()


def conv_bn(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(1, 3, 1, 1)
            self.bn = lib.nn.BatchNorm2d(3)

        def forward(self, x):
            return (self.bn(self.conv(x)),)
    return M()


def keyword_inputs(lib):
    class M(lib.nn.Module):
        def forward(self, x, *, scale=1.0, bias=None):
            return x * scale + bias
    return M()


def pair(r, m, build):
    """The same module in both libraries, with torch's weights."""
    rm = build(r)
    return rm, same_weights(rm, build(m), m)


def inputs(r, m, *shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    return tuple(r.tensor(a) for a in arrays), tuple(m.tensor(a) for a in arrays)
