"""Quantization against real PyTorch (x86 / FBGEMM CPU engine): ``torch.quantize_per_tensor``
and the quantized tensor's integers, scale, zero point, dequantized values and printing;
``torch.ao.quantization.quantize_dynamic`` (and its ``torch.quantization`` alias) on
``nn.Linear`` models: printed model, quantized weights and outputs equal bit for bit."""

import warnings

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
RNG = np.random.default_rng(3)
X = np.concatenate([RNG.standard_normal(3000).astype(np.float32) * 3,
                    (np.arange(-300, 300) * 0.05).astype(np.float32),  # halfway values (ties)
                    (np.arange(-300, 300) * 0.05 + 0.025).astype(np.float32),
                    np.array([1e6, -1e6, 0.0], np.float32)])


def beh(id, names, fn, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def _quantized(t, scale, zp, qdt):
    q = t.quantize_per_tensor(t.tensor(X), scale, zp, getattr(t, qdt))
    return q.int_repr(), q.dequantize(), q.q_scale(), q.q_zero_point(), str(q.dtype), str(q.qscheme()), \
        tuple(q.shape), q.is_quantized


for _args in ((0.1, 10, "quint8"), (0.3, 128, "quint8"), (0.05, 0, "qint8"), (0.037, -3, "qint8"),
              (0.013, -5, "qint32"), (1.7, 0, "qint32")):
    beh(f"quantize_per_tensor {_args}", ("torch.quantize_per_tensor", "torch.Tensor.dequantize", f"torch.{_args[2]}"),
        lambda t, a=_args: _quantized(t, *a))

beh("quantized printing", ("torch.quantize_per_tensor", "torch.qscheme"),
    lambda t: [repr(t.quantize_per_tensor(t.tensor(X[:n]), s, z, getattr(t, d)))
               for n, s, z, d in ((5, 0.1, 10, "quint8"), (3, 0.05, 0, "qint8"), (12, 0.013, -5, "qint32"),
                                  (1, 0.5, 1, "qint8"))])


def _err(call):
    try:
        call()
    except RuntimeError as e:
        return str(e)


beh("quantize_per_tensor refuses", ("torch.quantize_per_tensor",),
    lambda t: [_err(lambda: t.quantize_per_tensor(t.tensor(X[:4]), 0.1, 0, t.float32)),
               _err(lambda: t.quantize_per_tensor(t.tensor([1, 2]), 0.1, 0, t.qint8)),
               _err(lambda: t.quantize_per_tensor(t.tensor(X[:4]), 0.1, 300, t.quint8)),
               _err(lambda: t.quantize_per_tensor(t.tensor(X[:4]), 0.1, -1, t.quint8))])
beh("quantized dtypes", ("torch.qint8", "torch.quint8", "torch.qint32"),
    lambda t: [(str(d), repr(d), d.is_floating_point, d.itemsize, d.is_complex, isinstance(d, t.dtype),
                _err(lambda: d.is_signed)) for d in (t.qint8, t.quint8, t.qint32)])
beh("dequantize of a float tensor is the tensor", ("torch.Tensor.dequantize",),
    lambda t: (lambda x: (x.dequantize() is x, x.dequantize()))(t.tensor(X[:6])))


# --- dynamic quantization of Linear layers --------------------------------------------------------
def _model(t, kind):
    t.manual_seed(0)
    nn = t.nn
    if kind == "mlp":
        return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
    if kind == "nested":
        return nn.Sequential(nn.Sequential(nn.Linear(7, 5, bias=False), nn.Tanh()), nn.Linear(5, 3))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(10, 4)
            self.scale = nn.Parameter(t.ones(4))

        def forward(self, x):
            return self.fc(x) * self.scale

    return Net()


INPUT = {"mlp": (5, 16), "nested": (2, 3, 7), "custom": (4, 10)}


def _dynamic(t, kind, alias=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's migration notice
        model = _model(t, kind)
        before = [p.detach().clone() for p in model.parameters()]
        ns = t.quantization if alias else t.ao.quantization
        qm = ns.quantize_dynamic(model, {t.nn.Linear}, dtype=t.qint8)
    x = t.tensor((np.random.default_rng(5).standard_normal(INPUT[kind]) * 2 + 0.3).astype(np.float32))
    lins = [m for m in qm.modules() if hasattr(m, "weight") and callable(m.weight)]
    with t.no_grad():
        y = qm(x)
    return (repr(qm), y, [m.weight().int_repr() for m in lins], [m.weight().q_scale() for m in lins],
            [m.bias() for m in lins], [p.equal(b) for p, b in zip(model.parameters(), before)])


for _kind in INPUT:
    beh(f"quantize_dynamic {_kind}", ("torch.ao.quantization.quantize_dynamic",),
        lambda t, k=_kind: _dynamic(t, k), rtol=0, atol=0)
beh("torch.quantization.quantize_dynamic", ("torch.quantization.quantize_dynamic",),
    lambda t: _dynamic(t, "mlp", alias=True), rtol=0, atol=0)


def _edges(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        root = t.ao.quantization.quantize_dynamic(t.nn.Linear(3, 2))  # the root module is not swapped
        qm = t.ao.quantization.quantize_dynamic(t.nn.Sequential(t.nn.Linear(3, 2)))
        same = t.ao.quantization.quantize_dynamic(qm, inplace=True) is qm
    return type(root).__name__, _err(lambda: qm(t.ones(3))), same, tuple(qm(t.zeros(0, 3)).shape)


beh("root module, 1-D input, inplace, empty batch", ("torch.ao.quantization.quantize_dynamic",), _edges)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_quantization_matches_pytorch(c):
    run_case(c)


def test_modules_msnb_cannot_quantize_are_refused_by_name():
    import msnb.adapter.torch as mt
    from msnb.adapter.torch._missing import NotSupportedError

    with pytest.raises(NotSupportedError, match="quantize_dynamic of LSTM is not supported by msnb yet"):
        mt.ao.quantization.quantize_dynamic(mt.nn.Sequential(mt.nn.LSTM(4, 3)))
    with pytest.raises(NotSupportedError, match="float16"):
        mt.ao.quantization.quantize_dynamic(mt.nn.Sequential(mt.nn.Linear(4, 3)), dtype=mt.float16)
