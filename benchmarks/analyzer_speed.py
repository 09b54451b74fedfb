"""Analyzer speed: lines/s and per-cell latency, side by side with TorchFix.

    python benchmarks/analyzer_speed.py [--files 200] [--notebooks 5] [--keep DIR]

Generates a corpus into a temporary directory: ``--files`` synthetic
PyTorch files of 100 lines each (models, training loops, CUDA calls,
in-place ops, format strings, checkpoints - the constructs the rules look
at) and ``--notebooks`` notebooks whose code cells are ~100-line chunks.
Reports, for msnb's ``analyze`` (PyNative and Graph mode):

* lines/s over all files,
* p50 / p95 latency per 100-line cell (targets: p95 < 20 ms),

and the same files through TorchFix's flake8 checker (``TorchChecker``,
all its rules, analysis only - the same work as ``analyze``) when
``torchfix`` is importable (``pip install torchfix``), with the ratios.
Each file is timed once after one warm-up pass over the corpus; notebook
cells are analyzed with the earlier cells as context, as the magic does.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from msnb.analyzer import analyze, fix  # noqa: E402

BLOCKS = [
    """class Net{i}(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.conv(x))
        if x.sum() > 0:
            x = x * 2
        x = x.view(x.size(0), -1)
        return self.fc(x)
""",
    """model{i} = Net0().cuda()
criterion{i} = nn.CrossEntropyLoss()
optimizer{i} = torch.optim.SGD(model{i}.parameters(), lr=0.01)
for inputs, labels in loader:
    inputs, labels = inputs.to("cuda"), labels.to(device)
    optimizer{i}.zero_grad()
    out = model{i}(inputs)
    loss = criterion{i}(out, labels)
    loss.backward()
    optimizer{i}.step()
    print(f"loss {{loss:.4f}}")
""",
    """boxes{i} = torch.rand(4, 3, 8)
for j in range(4):
    boxes{i}[j, :, 0::4].clamp_(0, 10)
t{i} = torch.zeros(5)
t{i}.add_(1)
t{i} += 2
print("value: %.3f" % t{i}.sum())
""",
    """torch.backends.cudnn.benchmark = True
torch.cuda.manual_seed_all({i})
state{i} = torch.load("ckpt{i}.pt")
v{i} = torch.autograd.Variable(torch.ones(3))
y{i} = F.sigmoid(v{i})
arr{i} = np.asarray(y{i})
""",
    """def helper{i}(a, b):
    c = a + b
    d = [c, a]
    return d


data{i} = {{"a": 1, "b": [1, 2, 3]}}
total{i} = sum(x * 2 for x in range(10))
""",
]
HEADER = """import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader([], batch_size=4)
"""


def make_source(seed: int, n_lines: int = 100) -> str:
    rng = random.Random(seed)
    lines = HEADER.splitlines()
    i = 0
    while True:
        block = rng.choice(BLOCKS).format(i=i).splitlines()
        if len(lines) + len(block) > n_lines:
            break
        lines += block
        i += 1
    lines += [f"filler_{k} = {k} * 2" for k in range(n_lines - len(lines))]
    return "\n".join(lines) + "\n"


def make_corpus(root: Path, files: int, notebooks: int) -> tuple[list[Path], list[Path]]:
    import nbformat

    py = []
    for k in range(files):
        p = root / f"file_{k:03d}.py"
        p.write_text(make_source(k), encoding="utf-8")
        py.append(p)
    nbs = []
    for k in range(notebooks):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(make_source(1000 + k * 10 + c).rstrip("\n")) for c in range(6)]
        nb.cells[1].source = "%%torch_on_ascend\n" + nb.cells[1].source
        p = root / f"nb_{k}.ipynb"
        nbformat.write(nb, str(p))
        nbs.append(p)
    return py, nbs


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def time_msnb(sources: list[str], mode: str) -> list[float]:
    out = []
    for s in sources:
        t = time.perf_counter()
        analyze(s, mode=mode)
        out.append(time.perf_counter() - t)
    return out


def time_notebooks(paths: list[Path]) -> list[float]:
    import nbformat

    out = []
    for p in paths:
        nb = nbformat.read(str(p), as_version=nbformat.NO_CONVERT)
        context: list[str] = []
        for cell in nb.cells:
            t = time.perf_counter()
            analyze(cell.source, context=tuple(context))
            out.append(time.perf_counter() - t)
            context.append(cell.source)
    return out


def time_torchfix(sources: list[str]) -> list[float] | None:
    try:
        from torchfix.torchfix import TorchChecker
    except ImportError:
        return None
    out = []
    for s in sources:
        lines = s.splitlines(keepends=True)
        t = time.perf_counter()
        list(TorchChecker(None, lines).run())
        out.append(time.perf_counter() - t)
    return out


def report(name: str, times: list[float], n_lines: int) -> dict:
    total = sum(times)
    row = {"name": name, "lines_per_s": n_lines / total, "p50_ms": 1000 * statistics.median(times),
           "p95_ms": 1000 * _pct(times, 0.95), "total_s": total}
    print(f"{name:<28} {row['lines_per_s']:>12,.0f} {row['p50_ms']:>9.2f} {row['p95_ms']:>9.2f} {total:>9.2f}")
    return row


def time_parse(sources: list[str]) -> list[float]:
    """``ast.parse`` alone: the floor any analysis pays, timed in the same run
    so that a loaded machine shows as a slower floor, not as a slower analyzer."""
    import ast

    out = []
    for s in sources:
        t = time.perf_counter()
        ast.parse(s)
        out.append(time.perf_counter() - t)
    return out


def fix_scaling() -> None:
    """``fix`` on 750 / 1500 / 3000 ``x.cuda()`` lines: time per line stays flat (linear)."""
    print(f"{'fix of N x.cuda() lines':<28} {'seconds':>9} {'ms/line':>9}")
    for n in (750, 1500, 3000):
        src = "import torch\nx = torch.ones(2)\n" + "x.cuda()\n" * n
        t = time.perf_counter()
        fixed = fix(src)
        dt = time.perf_counter() - t
        assert fixed.count(".to(device)") == n
        print(f"{n:<28} {dt:>9.2f} {1000 * dt / n:>9.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--notebooks", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="write the corpus here instead of a temp dir")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        py, nbs = make_corpus(root, args.files, args.notebooks)
        sources = [p.read_text(encoding="utf-8") for p in py]
        n_lines = sum(s.count("\n") for s in sources)
        print(f"corpus: {len(py)} files x 100 lines = {n_lines} lines, {len(nbs)} notebooks x 6 cells ({root})")
        time_msnb(sources, "pynative")  # warm-up: imports, data files
        print(f"{'tool':<28} {'lines/s':>12} {'p50 ms':>9} {'p95 ms':>9} {'total s':>9}")
        rows = [report("msnb analyze (pynative)", time_msnb(sources, "pynative"), n_lines),
                report("msnb analyze (graph)", time_msnb(sources, "graph"), n_lines)]
        fix_times = []
        for src in sources[:50]:
            t = time.perf_counter()
            fix(src)
            fix_times.append(time.perf_counter() - t)
        report("msnb fix (libcst, 50 files)", fix_times, 50 * 100)
        nb_times = time_notebooks(nbs)
        report("msnb notebook cells (ctx)", nb_times, len(nb_times) * 100)
        tf = time_torchfix(sources)
        if tf is None:
            print("torchfix is not installed: `pip install torchfix` to compare side by side.")
        else:
            time_torchfix(sources[:5])  # warm-up
            tf_row = report("TorchFix (TorchChecker)", tf, n_lines)
            ours = rows[0]
            print(f"msnb/TorchFix throughput: {ours['lines_per_s'] / tf_row['lines_per_s']:.1f}x, "
                  f"p95 latency ratio {tf_row['p95_ms'] / ours['p95_ms']:.1f}x lower for msnb")
        floor = report("ast.parse alone (floor)", time_parse(sources), n_lines)
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
        print(f"load average per core during the run: {load:.1f} (1.0 = fully busy; timings scale with it)")
        print(f"msnb analyze p95 / ast.parse p95: {rows[0]['p95_ms'] / floor['p95_ms']:.1f}x (pynative), "
              f"{rows[1]['p95_ms'] / floor['p95_ms']:.1f}x (graph)")
        ok = rows[0]["p95_ms"] < 20 and rows[1]["p95_ms"] < 20
        print(f"target p95 < 20 ms per 100-line cell: {'met' if ok else 'NOT met'}"
              + ("" if ok or load < 1.5 else " (machine overloaded: rerun on an idle machine)"))
        fix_scaling()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
