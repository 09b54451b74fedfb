"""nn.LSTM through MindSpore's fused LSTM kernel (issue #21): a float32 LSTM on
CPU runs each layer and direction as one kernel call and its backward as one
call of the kernel's gradient, instead of ~20 small kernels per time step.

It must still be PyTorch's LSTM: outputs, final states and every gradient
equal real torch's for each layout the fused path takes (batch_first,
bidirectional, two layers, given h0/c0, projections, no bias, unbatched),
double backward must be differentiable, and what the kernel cannot compute
as PyTorch does (float64, packed sequences, autocast) must take the step loop
and still match.  Graph mode records the fused kernel into its graphs: the
whole-step graph must train as PyNative does."""

from __future__ import annotations

import numpy as np
import pytest

from msnb.adapter.torch.nn.modules import rnn as rnn_mod

from ._modtools import check_module, mt, np_of, real

rng = np.random.default_rng(7)
TOL = dict(rtol=1e-5, atol=1e-6)


def R(*shape, scale=1.0, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


SEQ = R(6, 3, 4)
BSEQ = R(3, 6, 4)
H1, C1 = R(1, 3, 5, scale=0.5), R(1, 3, 5, scale=0.5)
H4, C4 = R(4, 3, 5, scale=0.5), R(4, 3, 5, scale=0.5)
HP, CP = R(2, 3, 2, scale=0.5), R(2, 3, 5, scale=0.5)


def _with_states(m, x, h, c):
    return m(x, (h, c))


CASES = [
    ("plain", lambda t: t.nn.LSTM(4, 5), (SEQ,), None, 1),
    ("batch_first", lambda t: t.nn.LSTM(4, 5, batch_first=True), (BSEQ,), None, 1),
    ("h0_c0", lambda t: t.nn.LSTM(4, 5), (SEQ, H1, C1), _with_states, 1),
    ("bidirectional", lambda t: t.nn.LSTM(4, 5, bidirectional=True), (SEQ,), None, 2),
    ("two_layers_bi_states_batch_first", lambda t: t.nn.LSTM(4, 5, 2, batch_first=True, bidirectional=True),
     (BSEQ, H4, C4), _with_states, 4),
    ("no_bias", lambda t: t.nn.LSTM(4, 5, bias=False), (SEQ,), None, 1),
    ("projection_two_layers", lambda t: t.nn.LSTM(4, 5, 2, proj_size=2), (SEQ, HP, CP), _with_states, 2),
    ("unbatched", lambda t: t.nn.LSTM(4, 5, bidirectional=True), (SEQ[:, 0],), None, 2),
    ("dropout_eval", lambda t: t.nn.LSTM(4, 5, 2, dropout=0.5), (SEQ,), None, 2),
]


@pytest.fixture
def fused_calls(monkeypatch):
    """Counts layer-directions that took the fused kernel."""
    calls = []
    inner = rnn_mod._lstm_fused

    def spy(*args):
        calls.append(args[-1])
        return inner(*args)
    monkeypatch.setattr(rnn_mod, "_lstm_fused", spy)
    return calls


@pytest.mark.parametrize("make,inputs,call,n", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_fused_lstm_matches_torch(make, inputs, call, n, fused_calls):
    """Values and gradients (inputs, states, every parameter) equal real torch's."""
    check_module(make, *inputs, call=call, names=("torch.nn.LSTM",), **TOL)
    assert len(fused_calls) == n


def test_output_node_is_torchs_and_states_stack():
    """PyTorch's CPU LSTM output comes from MkldnnRnnLayerBackward0; h_n/c_n are stacked."""
    m = mt.nn.LSTM(4, 5)
    out, (h, c) = m(mt.tensor(SEQ))
    assert out.grad_fn.name() == "MkldnnRnnLayerBackward0"
    assert h.grad_fn.name() == c.grad_fn.name() == "StackBackward0"


def test_fused_and_step_loop_agree(monkeypatch):
    """MSNB_FUSED_LSTM=0 (the step loop) gives the same numbers as the fused kernel."""
    def run():
        mt.manual_seed(3)
        m = mt.nn.LSTM(4, 5, 2, bidirectional=True)
        x = mt.tensor(SEQ, requires_grad=True)
        out, (h, c) = m(x)
        (out.pow(2).sum() + h.sum() + c.sum()).backward()
        return [np_of(v) for v in (out, h, c, x.grad, *(p.grad for p in m.parameters()))]
    fused = run()
    monkeypatch.setattr(rnn_mod, "FUSED_LSTM", False)
    loop = run()
    for a, b in zip(fused, loop):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_only_some_outputs_used():
    """A backward from h_n alone (output unused) gets zeros for the missing gradients."""
    rm, mm = real.nn.LSTM(4, 5), mt.nn.LSTM(4, 5)
    mm.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in rm.state_dict().items()})
    rx, mx = real.tensor(SEQ, requires_grad=True), mt.tensor(SEQ, requires_grad=True)
    rm(rx)[1][0].sum().backward()
    mm(mx)[1][0].sum().backward()
    np.testing.assert_allclose(np_of(mx.grad), np_of(rx.grad), **TOL)
    for (k, rp), mp in zip(rm.named_parameters(), mm.parameters()):
        np.testing.assert_allclose(np_of(mp.grad), np_of(rp.grad), err_msg=k, **TOL)
    assert mm.bias_ih_l0.grad is not mm.bias_hh_l0.grad  # two tensors: each bias owns its .grad


def test_double_backward_through_fused_lstm():
    """create_graph=True: the gradient is itself differentiable (a gradient penalty on the input)."""
    grads = []
    for lib in (real, mt):
        lib.manual_seed(0)
        m = real.nn.LSTM(4, 5) if lib is real else mt.nn.LSTM(4, 5)
        if lib is mt:
            m.load_state_dict({k: mt.tensor(v) for k, v in state.items()})
        else:
            state = {k: v.detach().numpy() for k, v in m.state_dict().items()}
        x = lib.tensor(SEQ, requires_grad=True)
        out, _ = m(x)
        (gx,) = lib.autograd.grad(out.tanh().sum(), x, create_graph=True)
        gx.pow(2).sum().backward()
        grads.append([np_of(p.grad) for p in m.parameters()])
    for r, g in zip(*grads):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-6)


def test_float64_takes_the_step_loop(fused_calls):
    """The kernel computes float64 in float32 (and its float64 gradient is wrong): not fused."""
    check_module(lambda t: t.nn.LSTM(4, 5).double(), SEQ.astype(np.float64), rtol=1e-7, atol=1e-9)
    assert fused_calls == []


def test_packed_sequence_takes_the_step_loop(fused_calls):
    """Packed sequences freeze each sequence's state past its end: the step loop does that."""
    lengths = [6, 4, 2]
    outs = []
    for lib in (real, mt):
        lib.manual_seed(0)
        m = lib.nn.LSTM(4, 5, bidirectional=True)
        if lib is mt:
            m.load_state_dict({k: mt.tensor(v) for k, v in state.items()})
        else:
            state = {k: v.detach().numpy() for k, v in m.state_dict().items()}
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(SEQ), lengths)
        out, (h, c) = m(packed)
        outs.append([np_of(out.data), np_of(h), np_of(c)])
    for r, g in zip(*outs):
        np.testing.assert_allclose(g, r, **TOL)
    assert fused_calls == []


def test_autocast_takes_the_step_loop(fused_calls):
    """Under autocast PyTorch computes the LSTM in the lower precision: not the float32 kernel."""
    m = mt.nn.LSTM(4, 5)
    with mt.autocast("cpu", dtype=mt.float16):
        out, _ = m(mt.tensor(SEQ))
    assert fused_calls == []
    assert np.isfinite(np_of(out).astype(np.float64)).all()


def _train(graph_on, steps=8):
    """A small LSTM language model step (embedding, LSTM, linear, clip, SGD), as the suite's lstm_lm."""
    from msnb.adapter import graph
    from msnb.adapter.graph import step as whole
    graph.reset()
    whole.reset()
    graph.set_enabled(graph_on)
    mt.manual_seed(0)
    nn = mt.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(30, 8)
            self.lstm = nn.LSTM(8, 12, batch_first=True)
            self.out = nn.Linear(12, 30)

        def forward(self, x):
            h, _ = self.lstm(self.emb(x))
            return self.out(h)

    data = np.random.default_rng(0).integers(0, 30, (steps, 4, 7))
    batches = [(mt.tensor(d), mt.tensor(d)) for d in data]  # (a frame list of bare tensors would change the
    # step's signature every step: graph/step.py takes a calling frame's short tensor lists as inputs)
    model, crit = LM(), nn.CrossEntropyLoss()
    opt = mt.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for x, y in batches:
        out = model(x)
        loss = crit(out.reshape(-1, 30), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        mt.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
        losses.append(loss.item())
    stats = dict(whole.stats())
    graph.set_enabled(False)
    graph.reset()
    whole.reset()
    return losses, [np_of(p) for p in model.parameters()], stats


def test_whole_step_graph_trains_as_pynative(fused_calls):
    """The fused kernel and its gradient inside the compiled whole-step graph: same losses and weights."""
    eager_losses, eager_params, _ = _train(False)
    graph_losses, graph_params, stats = _train(True)
    assert fused_calls  # the fused path ran (eagerly and while the step was recorded)
    assert stats.get("replayed", 0) >= 1, stats
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    for g, e in zip(graph_params, eager_params):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-6)
