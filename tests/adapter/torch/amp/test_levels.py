"""MindSpore's AMP levels on msnb modules, and training under AMP.

The op hooks (``autocast_op`` on ``F.linear`` ...) and the ``Module.__call__``
hook are installed by the ``hooked`` fixture when the adapter does not carry
them yet, exactly as the lines documented in ``msnb.adapter.torch.amp.policy``
would; once the adapter has them the fixture changes nothing.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import msnb.adapter.torch as mt
from msnb.adapter.torch.amp import autocast_mode as A
from msnb.adapter.torch.amp import policy
from msnb.adapter.torch.nn import functional as F
from msnb.adapter.torch.nn.modules.module import Module

HOOKED_OPS = ("linear", "relu", "mse_loss", "cross_entropy")


@pytest.fixture
def hooked(monkeypatch):
    for name in HOOKED_OPS:
        fn = getattr(F, name)
        if not hasattr(fn, "__msnb_autocast__"):
            monkeypatch.setattr(F, name, A.autocast_op(name)(fn))
    if "call_module" not in inspect.getsource(Module.__call__):
        plain = Module.__call__

        def __call__(self, *args, **kwargs):
            if policy.engaged():
                return policy.call_module(self, lambda *a, **k: plain(self, *a, **k), args, kwargs)
            return plain(self, *args, **kwargs)

        monkeypatch.setattr(Module, "__call__", __call__)


class Net(mt.nn.Module):
    """Linear + BatchNorm1d + ReLU + Linear; records what each layer hands on."""

    def __init__(self):
        super().__init__()
        self.fc1, self.bn, self.act, self.fc2 = (mt.nn.Linear(3, 8), mt.nn.BatchNorm1d(8), mt.nn.ReLU(),
                                                 mt.nn.Linear(8, 2))

    def forward(self, x):
        seen = self.__dict__["seen"] = {}
        for name in ("fc1", "bn", "act", "fc2"):
            x = getattr(self, name)(x)
            seen[name] = str(x.dtype).split(".")[1]
        return x


X = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
F32, F16 = "float32", "float16"
EXPECTED = {  # layer outputs as the enclosing network sees them, then the network's output
    "O0": ({"fc1": F32, "bn": F32, "act": F32, "fc2": F32}, F32),
    "O1": ({"fc1": F32, "bn": F32, "act": F32, "fc2": F32}, F32),  # white-list ops cast back to float32
    "O2": ({"fc1": F16, "bn": F16, "act": F16, "fc2": F16}, F32),  # BN computes in float32, hands on float16
    "O3": ({"fc1": F16, "bn": F16, "act": F16, "fc2": F16}, F32),
}


def _net():
    mt.manual_seed(0)
    return Net()


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3"])
def test_layer_output_dtypes_at_each_level(hooked, level):
    net, ref = _net(), _net()
    with policy.level_scope(level):
        out = net(mt.tensor(X))
        loss = mt.nn.MSELoss()(out, mt.zeros(6, 2))
    assert (net.seen, str(out.dtype).split(".")[1]) == EXPECTED[level]
    assert loss.dtype is mt.float32
    loss.backward()
    assert all(p.dtype is mt.float32 and p.grad.dtype is mt.float32 for p in net.parameters())
    ref_out = ref(mt.tensor(X))
    diff = np.abs(out.detach().numpy() - ref_out.detach().numpy()).max()
    if level == "O0":
        assert diff == 0
    else:  # computed in float16 somewhere: close to float32, but not the same bits
        assert 0 < diff < 2e-2


def test_o2_batchnorm_computes_in_float32(hooked, monkeypatch):
    seen = []
    batch_norm = F.batch_norm
    monkeypatch.setattr(F, "batch_norm", lambda x, *a, **k: (seen.append(x.dtype), batch_norm(x, *a, **k))[1])
    net = _net()
    for level in ("O2", "O3"):
        with policy.level_scope(level):
            net(mt.tensor(X))
    assert seen == [mt.float32, mt.float16]
    assert policy.module_dtype_for(net.bn, "O2") is mt.float32
    assert policy.module_dtype_for(net.bn, "O3") is mt.float16
    assert policy.module_dtype_for(mt.nn.MSELoss(), "O3") is mt.float32


def test_apply_level_marks_a_module_whatever_the_cell_level(hooked):
    net = policy.apply_level(_net(), "O3")
    out = net(mt.tensor(X))  # no cell level at all
    assert net.seen["fc1"] == F16 and out.dtype is mt.float32
    inner = _net()
    policy.apply_level(inner.bn, "O0")
    with policy.level_scope("O3"):
        inner(mt.tensor(X))
    assert inner.seen["bn"] == F16  # handed on in the network's dtype ...
    assert policy.module_level(inner.bn) == "O0"  # ... but computed in float32
    with pytest.raises(ValueError, match="amp level must be one of O0|O1|O2|O3"):
        policy.apply_level(net, "O4")


def test_explicit_torch_autocast_wins_over_the_level(hooked):
    net = _net()
    with policy.level_scope("O1"), mt.amp.autocast("cuda"):
        out = net(mt.tensor(X))
    assert net.seen["fc1"] == F16 and out.dtype is mt.float16  # torch.autocast semantics, not O1's


def test_levels_leave_no_state_behind(hooked):
    net = _net()
    with pytest.raises(ZeroDivisionError):
        with policy.level_scope("O2"):
            net.fc1.register_forward_hook(lambda *a: 1 / 0)
            net(mt.tensor(X))
    assert A.current_frames() == () and policy.active_level() == "O0" and not policy._local.modules


def test_engaged_only_when_a_level_can_apply():
    import gc

    gc.collect()
    assert not policy.engaged()
    with policy.level_scope("O0"):
        assert not policy.engaged()
    with policy.level_scope("O1"):
        assert policy.engaged()
    net = policy.apply_level(_net(), "O2")
    assert policy.engaged()
    policy.apply_level(net, "O0")
    assert not policy.engaged()


def _train(level=None, autocast=False, steps=30):
    mt.manual_seed(0)
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((64, 4)).astype(np.float32)
    x, y = mt.tensor(xn), mt.tensor(np.tanh(xn @ np.array([[1.0], [-2.0], [0.5], [1.5]], np.float32)))
    model = mt.nn.Sequential(mt.nn.Linear(4, 16), mt.nn.ReLU(), mt.nn.Linear(16, 1))
    opt = mt.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = mt.amp.GradScaler("cuda")
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        if autocast:
            with mt.amp.autocast("cpu", dtype=mt.float16):
                xs = A.autocast_inputs("linear", x)[0]
                out = model(xs)
                loss = F.mse_loss(*A.autocast_inputs("mse_loss", out, y))
        else:
            with policy.level_scope(level):
                loss = mt.nn.MSELoss()(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return losses, scaler


def test_training_converges_under_autocast_float16_with_grad_scaler(hooked):
    losses, scaler = _train(autocast=True)
    assert losses[-1] < 0.5 * losses[0], losses
    assert np.isfinite(losses).all() and 1.0 <= scaler.get_scale() <= 65536.0


def test_training_converges_at_level_o2_with_grad_scaler(hooked):
    losses, _ = _train(level="O2", steps=12)  # fp32 halves the loss by step 3
    assert losses[-1] < 0.5 * losses[0], losses


def test_active_level_follows_the_running_cell(run, ip):
    run("%%torch_on_ascend --amp O2 --no-analyze\n"
        "from msnb.adapter.torch.amp import policy as _p\n"
        "amp_seen = (_p.active_level(), _p.engaged())")
    assert ip.user_ns["amp_seen"] == ("O2", True)
    run("%%torch_on_ascend --no-analyze\nfrom msnb.adapter.torch.amp import policy as _p\n"
        "amp_seen = _p.active_level()")
    assert ip.user_ns["amp_seen"] == "O0"
    assert policy.active_level() == "O0"
