"""How often MindSpore's CPU TensorScatterElements(reduction="add") loses updates with
repeated indices, against the ScatterNd formulation msnb's CPU dispatch uses
(``_dispatch._scatter_elements_cpu``), and what each costs, measured side by side.

    python benchmarks/scatter_add_race.py [--runs 300] [--updates 100000] [--slots 5]

Each run scatters the same fresh random updates with both; a run is wrong when a slot differs
from NumPy's ``np.add.at`` (float64) by more than float32 rounding can explain.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--updates", type=int, default=100_000)
    ap.add_argument("--slots", type=int, default=5)
    a = ap.parse_args(argv)
    import mindspore as ms
    from mindspore import ops
    from tqdm import tqdm

    from msnb.adapter._dispatch import _scatter_elements_cpu

    rng = np.random.default_rng(0)
    kernels = {"TensorScatterElements add": lambda x, i, u: ops.tensor_scatter_elements(x, i, u, 1, "add"),
               "msnb (ScatterNd)": lambda x, i, u: _scatter_elements_cpu(x, i, u, 1, "add")}
    wrong = {k: 0 for k in kernels}
    spent = {k: 0.0 for k in kernels}
    tol = 1e-3 * np.sqrt(a.updates / a.slots)
    for _ in tqdm(range(a.runs), desc="runs"):
        idx = rng.integers(0, a.slots, (1, a.updates)).astype(np.int64)
        upd = rng.standard_normal((1, a.updates)).astype(np.float32)
        ref = np.zeros((1, a.slots))
        np.add.at(ref[0], idx[0], upd[0])
        args = (ms.Tensor(np.zeros((1, a.slots), np.float32)), ms.Tensor(idx), ms.Tensor(upd))
        for name, k in kernels.items():
            t = time.perf_counter()
            got = k(*args).asnumpy()
            spent[name] += time.perf_counter() - t
            wrong[name] += int(np.abs(got - ref).max() > tol)
    for name in kernels:
        print(f"{name:28s} wrong {wrong[name]:4d} / {a.runs}   {spent[name] / a.runs * 1e3:7.2f} ms a call")
    base = spent["TensorScatterElements add"]
    print(f"time ratio msnb / TensorScatterElements: {spent['msnb (ScatterNd)'] / base:.2f}x")


if __name__ == "__main__":
    main()
