"""What graph mode cannot compile runs in PyNative -- same results, one line
naming the construct and its source line, listed by ``explain()``."""

import numpy as np
import pytest

import msnb.adapter.torch as torch
from msnb.adapter import graph

nn, F = torch.nn, torch.nn.functional


class Branchy(nn.Module):
    """Data-dependent Python control flow on a tensor value (a host read)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 3)

    def forward(self, x):
        h = self.a(x)
        if h.sum().item() > 0:
            h = h * 2
        return self.b(h)


class Talky(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 3)

    def forward(self, x):
        y = self.a(x)
        print(f"mean {y.mean():.3f}")
        return y


class Dropper(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.d = nn.Dropout(0.5)
        self.b = nn.Linear(6, 3)

    def forward(self, x):
        return self.b(self.d(self.a(x)))


class Noisy(nn.Module):
    """An in-place sampler: its draw cannot be fed to a graph."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 3)

    def forward(self, x):
        h = self.a(x)
        return h + torch.empty_like(h).uniform_(-0.1, 0.1)


class Checked(nn.Module):
    """Ops whose eager form checks values on the host (binary_cross_entropy's [0, 1] range)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 3)

    def forward(self, x):
        p = torch.sigmoid(self.a(x))
        return F.binary_cross_entropy(p, torch.full_like(p, 0.25), reduction="none")


def _run(cls, n=5, seed=0):
    torch.manual_seed(seed)
    net = cls()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    losses = []
    for _ in range(n):
        x = torch.tensor(rng.standard_normal((4, 6)).astype(np.float32))
        loss = net(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _compare(cls, capsys):
    graph.set_enabled(False)
    expected = _run(cls)
    graph.set_enabled(True)
    got = _run(cls)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    return capsys.readouterr().out


@pytest.mark.parametrize("cls, reason, text", [
    (Branchy, "item() reads a tensor value on the host", "if h.sum().item() > 0:"),
    (Talky, "a format string on a tensor reads a tensor value on the host", 'print(f"mean {y.mean():.3f}")'),
    (Noisy, "draws random numbers on the host", "return h + torch.empty_like(h).uniform_(-0.1, 0.1)"),
], ids=["item", "print", "uniform_"])
def test_falls_back_with_same_numbers_and_says_where(graph_mode, capsys, cls, reason, text):
    out = _compare(cls, capsys)
    fbs = [f for f in graph.fallbacks() if f.region == f"{cls.__name__}.forward"]
    assert len(fbs) == 1, graph.fallbacks()
    fb = fbs[0]
    assert reason in fb.reason
    assert fb.text == text
    assert fb.where.startswith("test_fallbacks.py:")
    said = [ln for ln in out.splitlines() if ln.startswith("msnb graph:") and "PyNative" in ln]
    assert len(said) == 1 and text in said[0]  # one short line, once (not once per step)
    full = graph.explain()
    assert f"{cls.__name__}.forward" in full and text in full


def test_dropout_masks_are_fed_to_the_graph_with_pynative_numbers(graph_mode, capsys):
    """Dropout draws on the host; graph mode draws the same masks (same
    generator, same order) into graph inputs before each replay."""
    _compare(Dropper, capsys)
    assert graph.fallbacks() == []
    assert graph.stats()["replays"] >= 3


def test_value_checks_stay_out_of_the_graph(graph_mode, capsys):
    """A check that reads values on the host (PyTorch checks them inside its kernel) is left out
    while a step records: it would make every step fall back to PyNative."""
    _compare(Checked, capsys)
    assert graph.fallbacks() == []
    assert graph.stats()["replays"] >= 3


def test_submodules_of_a_fallen_back_module_still_compile(graph_mode, capsys):
    """Like a graph break: the parent runs in PyNative, its layers as graphs."""
    _compare(Branchy, capsys)
    assert graph.stats()["replays"] > 0


def test_hooks_and_unsupported_arguments_fall_back(graph_mode, capsys):
    net = nn.Linear(3, 2)
    seen = []
    net.register_forward_hook(lambda m, i, o: seen.append(o.shape))
    x = torch.ones(2, 3)
    for _ in range(3):
        net(x)
    assert len(seen) == 3  # the hook ran every call
    assert any("has hooks registered" in f.reason for f in graph.fallbacks())

    class TakesArray(nn.Module):
        def forward(self, x, a):
            return x * float(a.sum())
    m = TakesArray()
    for _ in range(3):
        out = m(x, np.ones(2))
    np.testing.assert_allclose(out.numpy(), 2 * np.ones((2, 3)))
    assert any("argument of type ndarray" in f.reason for f in graph.fallbacks())
