"""``msnb scan`` speed: notebooks per second over a generated corpus.

    python benchmarks/scan_speed.py [--notebooks 200] [--cells 50] [--jobs N] [--keep DIR]

Writes ``--notebooks`` notebooks of ``--cells`` cells each (about a third
markdown; code cells of 3-25 lines: imports, model classes, training loops
with CUDA calls and in-place updates, format strings, data loading, plain
numpy/pandas-style cells) into a temporary folder, then times
``msnb.migration.scan_paths`` over the folder, in-process with one worker
(``jobs=1``) and with one worker process per core, side by side, and the
``msnb scan`` command itself (a child process, start-up included).  The
target is >= 10 notebooks/s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

CODE = [
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch.utils.data import DataLoader, TensorDataset",
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\ntorch.manual_seed({i})",
    "class Net{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.conv = nn.Conv2d(1, 8, 3)\n"
    "        self.bn = nn.BatchNorm2d(8)\n        self.fc = nn.Linear(8 * 26 * 26, 10)\n\n    def forward(self, x):\n"
    "        x = F.relu(self.bn(self.conv(x)))\n        x = x.view(x.size(0), -1)\n        return self.fc(x)",
    "x{i} = torch.randn(64, 1, 28, 28)\ny{i} = torch.randint(0, 10, (64,))\nloader = DataLoader(TensorDataset(x{i}, y{i}), batch_size=16)",
    "model = Net{j}().cuda()\ncriterion = nn.CrossEntropyLoss()\noptimizer = torch.optim.Adam(model.parameters(), lr=1e-3)",
    "for epoch in range(2):\n    total = 0.0\n    for inputs, labels in loader:\n        inputs = inputs.cuda()\n"
    "        labels = labels.to(device)\n        optimizer.zero_grad()\n        out = model(inputs)\n"
    "        loss = criterion(out, labels)\n        loss.backward()\n        optimizer.step()\n        total += loss.item()\n"
    "    print(f'epoch {{epoch}} loss {{loss:.4f}}')",
    "w = torch.zeros(10)\nw.add_(1)\nw[2:5].mul_(0.5)\nprint(w.sum(), w.mean(), w.std())",
    "with torch.no_grad():\n    preds = model(x{i}.cuda()).argmax(dim=1)\n    acc = (preds.cpu() == y{i}).float().mean()\nprint('accuracy', acc.item())",
    "torch.save(model.state_dict(), 'model{i}.pt')\nstate = torch.load('model{i}.pt')\nmodel.load_state_dict(state)",
    "import numpy as np\nvalues = np.linspace(0, 1, {i} + 10)\nprint(values.mean(), values.std())",
    "results = {{'run': {i}, 'score': 0.5 + {i} / 100}}\nfor k, v in results.items():\n    print(k, v)",
    "spec = torch.fft.rfft(torch.randn(128))\nprint(spec.abs().max())",
    "emb = nn.Embedding(100, 16)\ntokens = torch.randint(0, 100, (4, 12))\nout = emb(tokens).mean(dim=1)\nprint(out.shape)",
    "sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)\nfor _ in range(3):\n    sched.step()\nprint(sched.get_last_lr())",
    "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])",
    "!nvidia-smi",
]
MARKDOWN = ["## Step {i}", "Now we train the model and look at the **loss**.", "Notes: batch size {i}, lr 1e-3."]


def make_corpus(folder: Path, notebooks: int, cells: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for n in range(notebooks):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        body = [nbformat.v4.new_code_cell(CODE[0])]
        while len(body) < cells:
            i = len(body)
            if rng.random() < 0.33:
                body.append(nbformat.v4.new_markdown_cell(rng.choice(MARKDOWN).format(i=i)))
            else:
                body.append(nbformat.v4.new_code_cell(rng.choice(CODE[1:]).format(i=i, j=2)))
        nb.cells = body
        nbformat.write(nb, str(folder / f"nb{n:03d}.ipynb"))


def _cpu() -> float:
    """CPU seconds of this process and of its waited-for children."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(label: str, fn, notebooks: int) -> tuple[float, float]:
    """(notebooks per wall second, CPU seconds used); prints both with the
    load average, since other work on the machine changes the wall time."""
    load = os.getloadavg()[0]
    cpu0, start = _cpu(), time.perf_counter()
    fn()
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu0
    rate = notebooks / seconds
    print(f"{label:<40} {seconds:7.2f} s wall {rate:7.1f} notebooks/s   cpu {cpu:6.2f} s   load {load:.1f}")
    return rate, cpu


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--notebooks", type=int, default=200)
    p.add_argument("--cells", type=int, default=50)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--keep", metavar="DIR", help="write the corpus here and keep it")
    args = p.parse_args(argv)

    from msnb.migration._startup import skip_unused_imports

    skip_unused_imports()  # as the msnb command does
    from msnb.migration import scan_paths

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="msnb-scan-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    make_corpus(folder, args.notebooks, args.cells)
    n = args.notebooks
    print(f"corpus: {n} notebooks x {args.cells} cells in {folder}; {os.cpu_count()} cores")
    scan_paths([folder / "nb000.ipynb"], jobs=1, progress=False)  # warm-up: imports, registry

    holder = {}
    (one, one_cpu) = timed("scan_paths, jobs=1 (in-process)", lambda: holder.update(r1=scan_paths([folder], jobs=1)), n)
    (many, _) = timed(f"scan_paths, jobs={args.jobs} (worker processes)",
                 lambda: holder.update(r2=scan_paths([folder], jobs=args.jobs)), n)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    (cli, _) = timed(f"msnb scan --jobs {args.jobs} (child process)",
                lambda: subprocess.run([sys.executable, "-m", "msnb", "scan", str(folder), "--format", "json",
                                        "--jobs", str(args.jobs), "--no-progress", "-o", os.devnull],
                                       env=env, check=False), n)
    assert holder["r1"].to_dict() == holder["r2"].to_dict(), "parallel and serial reports differ"
    report = holder["r1"]
    counts = report.counts()
    print(f"findings: {counts}; support {report.support_percent()}% of distinct APIs")
    print(f"ratio jobs={args.jobs} / jobs=1: {many / one:.2f}x; command / jobs=1: {cli / one:.2f}x; "
          f"target 10 notebooks/s: {'met' if cli >= 10 else 'NOT met'} by the command ({cli:.1f}/s wall)")
    print(f"CPU cost: {one_cpu / n * 1000:.0f} ms per notebook ({n / one_cpu:.1f} notebooks per CPU second); "
          f"with the machine to itself, {os.cpu_count()} cores would give about "
          f"{n / one_cpu * (os.cpu_count() or 1):.0f} notebooks/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
