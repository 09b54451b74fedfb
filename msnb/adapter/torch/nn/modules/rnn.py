"""Recurrent layers (as in PyTorch's ``torch/nn/modules/rnn.py``): ``RNN``,
``LSTM``, ``GRU`` and their cells, with PyTorch's parameter names
(``weight_ih_l0``, ``weight_hh_l0_reverse``, ...), gate order (LSTM ``i, f, g,
o``; GRU ``r, z, n``) and initialisation.

Per layer, the input projection of every time step is one matmul; each step
then costs one matmul against ``weight_hh`` plus a few pointwise kernels on
whole gate blocks.

An ``LSTM`` layer in float32 on a device with MindSpore's fused LSTM kernel
(``_dispatch.FUSED_LSTM_TARGETS``: CPU) runs each direction as one call of
that kernel instead, and its backward as one call of the kernel's gradient
(:func:`_lstm_fused`); ``MSNB_FUSED_LSTM=0`` turns that off.  Packed sequences,
other dtypes and autocast take the step loop."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np

from .... import _dispatch
from ... import _dtype as D
from ..._core import K, STATE, needs_grad, record, wrap
from ...amp import autocast_mode as _amp
from ..._ops import pointwise as P, shape as S
from ..._ops.creation import empty, tensor, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}

#: ``MSNB_FUSED_LSTM=0``: every LSTM runs the step loop (for comparisons and benchmarks)
FUSED_LSTM = os.environ.get("MSNB_FUSED_LSTM", "1") != "0"


def _rnn_step(xg, h, w_hh, b_hh, relu):
    pre = P.add(xg, F.linear(h, w_hh, b_hh))
    return P.relu(pre) if relu else P.tanh(pre)


def _lstm_step(xg, h, c, w_hh, b_hh, w_hr):
    H = c.shape[-1]
    i, f, g, o = F._split(P.add(xg, F.linear(h, w_hh, b_hh)), (H, H, H, H), -1)
    c = P.add(P.mul(P.sigmoid(f), c), P.mul(P.sigmoid(i), P.tanh(g)))
    h = P.mul(P.sigmoid(o), P.tanh(c))
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(xg, h, w_hh, b_hh):
    H = h.shape[-1]
    x_rz, x_n = F._split(xg, (2 * H, H), -1)
    h_rz, h_n = F._split(F.linear(h, w_hh, b_hh), (2 * H, H), -1)
    r, z = F._split(P.sigmoid(P.add(x_rz, h_rz)), (H, H), -1)
    n = P.tanh(P.add(x_n, P.mul(r, h_n)))
    return P.add(n, P.mul(z, P.sub(h, n)))


def _fused_lstm_usable(x, h, c, weights) -> bool:
    """Whether one LSTM layer-direction can run as MindSpore's fused kernel and give
    PyTorch's values: float32 everywhere (the kernel's float64 is float32 inside), no
    autocast (PyTorch would compute it in the lower precision), a device that has the
    kernel, a non-empty input."""
    if not FUSED_LSTM or K.device not in _dispatch.FUSED_LSTM_TARGETS or _amp.top() is not None:
        return False
    f32 = D.float32
    if x.dtype is not f32 or h.dtype is not f32 or c.dtype is not f32 or 0 in x.shape:
        return False
    return all(w is None or w.dtype is f32 for w in weights)


def _lstm_fused(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    """One LSTM layer in one direction over ``x`` (T, B, I) from ``h`` (B, R) and ``c`` (B, H),
    as one MindSpore fused-LSTM kernel call: ``(output (T, B, R), h_n (B, R), c_n (B, H))``.

    The kernel takes one flat weight (``_ms.lstm_prims``), built here from the parameters
    (the two biases summed, as they only ever enter as a sum).  Backward is one call of the
    kernel's gradient, from the ``reserve`` the forward saved, and its flat weight gradient is
    cut back into the parameters' shapes (both biases get the summed bias's gradient).  With
    ``create_graph=True`` the gradient must itself be differentiable: the layer is then re-run
    as the step loop and differentiated by msnb's autograd (same values, one extra forward)."""
    H = c.shape[-1]
    I = x.shape[-1]
    proj = w_hr.shape[0] if w_hr is not None else 0
    has_bias = b_ih is not None
    parts = [w_ih, w_hh] + ([w_hr] if w_hr is not None else [])
    flat = [K.reshape(p, (-1,)) for p in parts]
    if has_bias:
        flat.append(K.reshape(K.add(b_ih, b_hh), (-1,)))
    w = K.reshape(K.concat(flat, 0), (-1, 1, 1))
    xs = K.flip(x, (0,)) if reverse else x
    h0, c0 = K.expand_dims(h, 0), K.expand_dims(c, 0)
    cfg = (I, H, has_bias, proj)
    y, hy, cy, reserve = K.lstm(xs, h0, c0, w, *cfg)
    out = wrap(K.flip(y, (0,)) if reverse else y)
    h_n, c_n = wrap(K.squeeze(hy, 0)), wrap(K.squeeze(cy, 0))
    inputs = (x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr)
    if needs_grad(*inputs):
        def bw(g_out, g_h, g_c):
            if STATE.enabled:  # create_graph: a differentiable gradient
                return _lstm_loop_vjp(inputs, reverse, (g_out, g_h, g_c))
            dy = K.zeros_like(y) if g_out is None else (K.flip(g_out, (0,)) if reverse else g_out)
            dh = K.zeros_like(hy) if g_h is None else K.expand_dims(g_h, 0)
            dc = K.zeros_like(cy) if g_c is None else K.expand_dims(g_c, 0)
            dx, dh0, dc0, dw = K.lstm_grad(xs, h0, c0, w, y, hy, cy, dy, dh, dc, reserve, *cfg)
            if reverse:
                dx = K.flip(dx, (0,))
            shapes = [tuple(p.shape) for p in parts] + ([tuple(b_ih.shape)] if has_bias else [])
            pieces = K.split(K.reshape(dw, (-1,)), [math.prod(s) for s in shapes], 0)
            g = [wrap(K.reshape(piece, s)) for piece, s in zip(pieces, shapes)]
            if has_bias:  # the summed bias's gradient for each bias, as two tensors (each becomes a .grad)
                g.append(wrap(K.identity(g[-1])))
            g_hr = g[2] if w_hr is not None else None
            g_b = (g[-2], g[-1]) if has_bias else (None, None)
            return (wrap(dx), wrap(K.squeeze(dh0, 0)), wrap(K.squeeze(dc0, 0)), g[0], g[1], *g_b, g_hr)
        record("MkldnnRnnLayerBackward0", (out, h_n, c_n), inputs, bw, saved=tuple(t for t in inputs if t is not None))
    return out, h_n, c_n


def _lstm_loop(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    """The step loop of one LSTM layer-direction (what :func:`_lstm_fused` computes)."""
    xg = F.linear(x, w_ih, b_ih)
    if b_hh is not None:
        xg = P.add(xg, b_hh)
    steps = F._unbind(xg, 0)
    outs = [None] * len(steps)
    for t in (range(len(steps) - 1, -1, -1) if reverse else range(len(steps))):
        h, c = _lstm_step(steps[t], h, c, w_hh, None, w_hr)
        outs[t] = h
    return F._stack(outs, 0), h, c


def _lstm_loop_vjp(inputs, reverse, grads):
    """The fused layer's gradient for ``create_graph=True``: the step loop re-run on the same
    inputs and differentiated with the graph kept, so the gradient has a backward of its own."""
    from ...autograd import grad as _grad
    wanted = [i for i, t in enumerate(inputs) if t is not None and (t.requires_grad or t._grad_fn is not None)]
    loop = _lstm_loop(*inputs, reverse)
    pairs = [(o, g) for o, g in zip(loop, grads) if g is not None]
    got = _grad([o for o, _ in pairs], [inputs[i] for i in wanted], [g for _, g in pairs], create_graph=True,
                allow_unused=True)
    result = [None] * len(inputs)
    for i, g in zip(wanted, got):
        result[i] = g
    return tuple(result)


def _check_rnn_types(**args):
    """PyTorch's type checks of a recurrent layer's arguments: ``bias`` and ``batch_first`` are
    bools, the sizes ints (``bias=0`` or ``hidden_size=5.0`` is a TypeError, not a silent cast)."""
    for name, value in args.items():
        want = bool if name in ("bias", "batch_first") else int
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise TypeError(f"{name} should be of type {want.__name__}, got: {type(value).__name__}")


class RNNBase(Module):
    """msnb implementation of ``torch.nn.RNNBase``: parameters, init, ``extra_repr``
    and the multi-layer, bidirectional time loop shared by RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        _check_rnn_types(input_size=input_size, hidden_size=hidden_size, bias=bias, batch_first=batch_first)
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        d = dtype or D.get_default_dtype()
        num_dir = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        real_h = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_dir):
                in_size = input_size if layer == 0 else real_h * num_dir
                sfx = "_reverse" if direction == 1 else ""
                shapes = [(f"weight_ih_l{layer}{sfx}", (gate, in_size)), (f"weight_hh_l{layer}{sfx}", (gate, real_h))]
                if bias:
                    shapes += [(f"bias_ih_l{layer}{sfx}", (gate,)), (f"bias_hh_l{layer}{sfx}", (gate,))]
                if proj_size > 0:
                    shapes.append((f"weight_hr_l{layer}{sfx}", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name, Parameter(empty(*shape, dtype=d)))
                self._flat_weights_names.extend(n for n, _ in shapes)
                self._all_weights.append([n for n, _ in shapes])
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """msnb implementation of ``RNNBase.flatten_parameters``: PyTorch packs the weights into one
        buffer for cuDNN only; off CUDA (as on msnb's devices) it returns without changing anything."""
        return None

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer, direction):
        sfx = "_reverse" if direction == 1 else ""
        get = self._parameters.get
        return (get(f"weight_ih_l{layer}{sfx}"), get(f"weight_hh_l{layer}{sfx}"), get(f"bias_ih_l{layer}{sfx}"),
                get(f"bias_hh_l{layer}{sfx}"), get(f"weight_hr_l{layer}{sfx}"))

    def _run_direction(self, x, h, c, layer, direction, valid=None):
        """One layer, one direction over the whole sequence ``x`` (T, B, I); with ``valid`` (per
        step, a (B, 1) bool tensor) a sequence's state only changes at its own steps."""
        w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
        mode = self.mode
        if mode == "LSTM" and valid is None and _fused_lstm_usable(x, h, c, (w_ih, w_hh, b_ih, b_hh, w_hr)):
            return _lstm_fused(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, direction == 1)
        xg = F.linear(x, w_ih, b_ih)
        if b_hh is not None and mode != "GRU":  # folded once instead of once per step
            xg = P.add(xg, b_hh)
            b_hh = None
        steps = F._unbind(xg, 0)
        T = len(steps)
        outs = [None] * T
        order = range(T - 1, -1, -1) if direction == 1 else range(T)
        for t in order:
            h_prev, c_prev = h, c
            if mode == "LSTM":
                h, c = _lstm_step(steps[t], h, c, w_hh, b_hh, w_hr)
            elif mode == "GRU":
                h = _gru_step(steps[t], h, w_hh, b_hh)
            else:
                h = _rnn_step(steps[t], h, w_hh, b_hh, mode == "RNN_RELU")
            if valid is not None:
                h = P.where(valid[t], h, h_prev)
                c = P.where(valid[t], c, c_prev) if c is not None else None
            outs[t] = h
        return F._stack(outs, 0), h, c

    def _check_input(self, input, hx):
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        w = getattr(self, self._flat_weights_names[0])
        if input.dtype != w.dtype and not _amp.is_autocast_enabled():
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({input.dtype})")

    def _forward(self, input, hx, cx):
        if hasattr(input, "batch_sizes"):  # a PackedSequence: the padded batch, states frozen past each end
            from ..utils import rnn as R
            padded, lens = R.pad_packed_sequence(input)
            ln = lens.numpy()
            valid = [tensor((ln > t)[:, None]) for t in range(padded.shape[0])]
            batch_first, self.batch_first = self.batch_first, False
            try:
                out, h_n, c_n = self._forward_padded(padded, hx, cx, valid)
            finally:
                self.batch_first = batch_first
            bs, order, _ = R._packed_layout(input)
            B = padded.shape[1]
            pos = np.concatenate([t * B + order[:n] for t, n in enumerate(bs)])
            data = out.reshape(-1, out.shape[-1]).index_select(0, tensor(pos.astype(np.int64)))
            return input._replace(data=data), h_n, c_n
        return self._forward_padded(input, hx, cx, None)

    def _forward_padded(self, input, hx, cx, valid):
        self._check_input(input, hx)
        batched = input.ndim == 3
        x = input
        if not batched:
            x = x.unsqueeze(1)
            hx = hx.unsqueeze(1) if hx is not None else None
            cx = cx.unsqueeze(1) if cx is not None else None
        elif self.batch_first:
            x = x.transpose(0, 1)
        num_dir = 2 if self.bidirectional else 1
        B = x.shape[1]
        real_h = self.proj_size if self.proj_size > 0 else self.hidden_size
        want_h = (self.num_layers * num_dir, B, real_h)
        if hx is None:
            hx = zeros(*want_h, dtype=x.dtype)
        elif tuple(hx.shape) != want_h:
            raise RuntimeError(f"Expected hidden size {want_h}, got {list(hx.shape)}")
        if self.mode == "LSTM":
            want_c = (self.num_layers * num_dir, B, self.hidden_size)
            if cx is None:
                cx = zeros(*want_c, dtype=x.dtype)
            elif tuple(cx.shape) != want_c:
                raise RuntimeError(f"Expected hidden size {want_c}, got {list(cx.shape)}")
        h0s = F._unbind(hx, 0)
        c0s = F._unbind(cx, 0) if cx is not None else None
        hs, cs = [], []
        for layer in range(self.num_layers):
            dir_outs = []
            for direction in range(num_dir):
                k = layer * num_dir + direction
                out, h, c = self._run_direction(x, h0s[k], c0s[k] if c0s is not None else None, layer, direction,
                                                valid)
                dir_outs.append(out)
                hs.append(h)
                cs.append(c)
            x = dir_outs[0] if num_dir == 1 else S.cat(dir_outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = F._stack(hs, 0)
        c_n = F._stack(cs, 0) if self.mode == "LSTM" else None
        if not batched:
            x = x.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        elif self.batch_first:
            x = x.transpose(0, 1)
        return x, h_n, c_n


class RNN(RNNBase):
    """msnb implementation of ``torch.nn.RNN`` (tanh or relu)."""

    def __init__(self, *args, **kwargs):
        args = list(args)
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:  # (input_size, hidden_size, num_layers, nonlinearity, bias, ...)
            nonlinearity = args.pop(3)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        out, h, _ = self._forward(input, hx, None)
        return out, h


class LSTM(RNNBase):
    """msnb implementation of ``torch.nn.LSTM`` (``proj_size`` supported)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        h0, c0 = hx if hx is not None else (None, None)
        if (h0 is None) != (c0 is None):
            raise RuntimeError("LSTM expects both h_0 and c_0, or neither")
        out, h, c = self._forward(input, h0, c0)
        return out, (h, c)


class GRU(RNNBase):
    """msnb implementation of ``torch.nn.GRU``."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        out, h, _ = self._forward(input, hx, None)
        return out, h


class RNNCellBase(Module):
    """msnb implementation of ``torch.nn.RNNCellBase``."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        d = dtype or D.get_default_dtype()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, dtype=d))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, dtype=d))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=d))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=d))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check_hidden(self, input, hx, name):
        """A state of the wrong width or batch is PyTorch's RuntimeError (MindSpore's would be a
        ValueError from splitting the gates)."""
        if input.ndim == 2 and input.shape[0] != hx.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match {name} batch size {hx.shape[0]}")
        if hx.shape[-1] != self.hidden_size:
            raise RuntimeError(f"{name} has inconsistent hidden_size: got {hx.shape[-1]}, expected {self.hidden_size}")

    def _prepare(self, input, hx):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is not None and hx.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected hidden to be 1D or 2D, got {hx.ndim}D instead")
        if hx is not None and hx.ndim != input.ndim:
            raise ValueError(f"{type(self).__name__}: Expected hidden to be {input.ndim}D, got {hx.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        if hx is not None:
            self._check_hidden(input, hx, "hidden0")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            hx = zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        return x, hx, batched


class RNNCell(RNNCellBase):
    """msnb implementation of ``torch.nn.RNNCell``."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, h, batched = self._prepare(input, hx)
        h = _rnn_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                      self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """msnb implementation of ``torch.nn.LSTMCell``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, h, batched = self._prepare(input, hx[0] if hx is not None else None)
        if hx is None:
            c = zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
        else:
            self._check_hidden(input, hx[1], "hidden1")
            c = hx[1] if batched else hx[1].unsqueeze(0)
        h, c = _lstm_step(F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """msnb implementation of ``torch.nn.GRUCell``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, h, batched = self._prepare(input, hx)
        h = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
