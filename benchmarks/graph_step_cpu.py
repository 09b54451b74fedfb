"""Where a whole-step graph's time goes, in one process (issue #21 point 2).

Trains the suite's LSTM language model (batch 20 x 35 tokens, SGD, clipping,
``loss.item()`` each step) through msnb's adapter, alternating PyNative and
graph mode (``--rounds`` times), and prints per step the CPU milliseconds
(``time.process_time``: all threads) of both, and for graph mode the CPU and
wall milliseconds of each compiled call (``trace_run`` + sync: the whole-step graph
once it replays, region graphs before), so
the step's cost can be split into "the graph runs" and "msnb's Python around
it".  Both sides run in the same process at the same load, so their ratio is
steadier than separate runs on a shared host.  Kernels launch as under
``msnb exec`` on this host (synchronous below a few cores; ``MSNB_LAUNCH=async``
for MindSpore's default).  Not a test: nothing asserts.

    PYTHONPATH=. python benchmarks/graph_step_cpu.py --steps 10 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

__all__ = ["main"]


def _model(torch):
    nn = torch.nn

    class LSTMLM(nn.Module):
        def __init__(self, vocab=1000, emb=64, hidden=128):
            super().__init__()
            self.embed = nn.Embedding(vocab, emb)
            self.lstm = nn.LSTM(emb, hidden, batch_first=True)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, x):
            h, _ = self.lstm(self.embed(x))
            return self.out(h)

    return LSTMLM()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=10, help="steps per mode and round (the first 4 are warm-up)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--jit-level", default="", help="MSNB_JIT_LEVEL for the recorded graphs (O0, O1; default: "
                   "MindSpore's)")
    a = p.parse_args(argv)
    os.environ.setdefault("GLOG_v", "3")
    os.environ["MSNB_GRAPH_CHOICE"] = "graph"  # the compiled step is what is timed, not the faster form
    if a.jit_level:
        os.environ["MSNB_JIT_LEVEL"] = a.jit_level
    import mindspore

    from msnb.runtime.context import set_launch
    launch = set_launch(mindspore, "CPU")  # what msnb exec does when it binds the CPU
    import msnb.adapter.torch as torch
    from msnb.adapter import _ms, graph
    from msnb.adapter.graph import step as whole

    rng = np.random.default_rng(0)
    x = torch.tensor(rng.integers(0, 1000, (20, 35)))
    y = torch.tensor(rng.integers(0, 1000, (20, 35)))
    runs = {"cpu": [], "wall": []}
    plain_run = _ms.trace_run

    def timed_run(phase, inputs):
        c, w = time.process_time(), time.perf_counter()
        out = plain_run(phase, inputs)
        _ms.sync()
        runs["cpu"].append((time.process_time() - c) * 1e3)
        runs["wall"].append((time.perf_counter() - w) * 1e3)
        return out

    def train(enabled):
        graph.reset()
        whole.reset()
        graph.set_enabled(enabled)
        torch.manual_seed(0)
        model = _model(torch)
        criterion = torch.nn.CrossEntropyLoss()
        opt = torch.optim.SGD(model.parameters(), lr=1.0)
        cpu, losses = [], []
        for _ in range(a.steps):
            c = time.process_time()
            out = model(x)
            loss = criterion(out.reshape(-1, out.shape[-1]), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            opt.step()
            losses.append(loss.item())
            cpu.append((time.process_time() - c) * 1e3)
        return cpu[4:], losses[-1]

    _ms.trace_run = timed_run
    try:
        for r in range(a.rounds):
            runs["cpu"].clear()
            runs["wall"].clear()
            pyn, lp = train(False)
            grf, lg = train(True)
            load = os.getloadavg()[0]
            run_cpu = statistics.median(runs["cpu"]) if runs["cpu"] else float("nan")
            run_wall = statistics.median(runs["wall"]) if runs["wall"] else float("nan")
            print(f"round {r}: CPU ms/step (median of {len(pyn)}) PyNative {statistics.median(pyn):.0f}, "
                  f"graph {statistics.median(grf):.0f} (graph/PyNative {statistics.median(grf) / statistics.median(pyn):.2f}); "
                  f"one compiled call (median): CPU {run_cpu:.0f} ms, wall {run_wall:.0f} ms over {len(runs['cpu'])} calls; "
                  f"final loss {lp:.7f} / {lg:.7f}; {launch} launch; jit_level {a.jit_level or 'default'}; "
                  f"load {load:.1f}", flush=True)
    finally:
        _ms.trace_run = plain_run
        graph.reset()
        whole.reset()


if __name__ == "__main__":
    main()
