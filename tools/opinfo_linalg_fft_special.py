"""Replay PyTorch's OpInfo samples of ``linalg.*``, ``fft.*`` and ``special.*``
through msnb and print, per OpInfo, how many samples match real torch 2.13
(float32 CPU: values, dtypes, shapes, and the gradient of ``(out * G).sum()``
for a fixed random ``G``; complex outputs through ``view_as_real``).  Outputs
go through the sample's ``output_process_fn_grad`` first, as PyTorch's own
gradient checks do (it makes SVD/eigenvector outputs sign-invariant).

    PYTHONPATH=. python tools/opinfo_linalg_fft_special.py [--max-samples N] [--only NAME]
"""

from __future__ import annotations

import argparse
import sys
import traceback

import numpy as np


def _to_mt(x, mt):
    import torch
    if isinstance(x, torch.Tensor):
        t = mt.tensor(x.detach().resolve_conj().numpy().copy())
        if x.requires_grad:
            t.requires_grad_(True)
        return t
    if isinstance(x, (list, tuple)):
        return type(x)(_to_mt(v, mt) for v in x) if not hasattr(x, "_fields") else type(x)(*(_to_mt(v, mt) for v in x))
    if isinstance(x, dict):
        return {k: _to_mt(v, mt) for k, v in x.items()}
    if isinstance(x, torch.dtype):
        return getattr(mt, str(x).split(".")[-1])
    return x


def _flat(x):
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(_flat(v))
        return out
    return [x]


def _leaves(x, lib):
    return [v for v in _flat(x) if isinstance(v, lib.Tensor) and v.requires_grad and v.grad_fn is None]


def _run(lib, fn, sample, mt):
    import torch
    conv = (lambda v: v) if lib is torch else (lambda v: _to_mt(v, mt))
    inp, args, kwargs = conv(sample.input), conv(sample.args), conv(sample.kwargs)
    out = fn(inp, *args, **kwargs)
    out = sample.output_process_fn_grad(out)
    leaves = _leaves([inp, list(args), list(kwargs.values())], lib)
    outs = [o for o in _flat(out) if isinstance(o, lib.Tensor)]
    vals = [o.detach().resolve_conj().numpy() if lib is torch else o.detach().numpy() for o in outs]
    grads = []
    diff = [o for o in outs if o.requires_grad and (o.dtype.is_floating_point or o.dtype.is_complex)]
    if leaves and diff:
        rng = np.random.default_rng(0)
        loss = 0
        for o in diff:
            r = lib.view_as_real(o.resolve_conj()) if o.dtype.is_complex else o
            g = rng.standard_normal(tuple(r.shape)).astype(np.float32 if r.dtype == lib.float32 else np.float64)
            loss = loss + (r * lib.tensor(g)).sum()
        gs = lib.autograd.grad(loss, leaves, allow_unused=True)
        grads = [None if g is None else g.numpy() for g in gs]
    return [str(o.dtype) for o in outs], vals, grads


def _same(a, b):
    (da, va, ga), (db, vb, gb) = a, b
    if [d.replace("torch.", "") for d in da] != [d.replace("torch.", "") for d in db]:
        return f"dtypes {db} != {da}"
    for x, y in zip(va, vb):
        if x.shape != y.shape:
            return f"shape {y.shape} != {x.shape}"
        if not np.allclose(y, x, rtol=1e-4, atol=1e-5, equal_nan=True):
            return "values differ"
    if len(ga) != len(gb):
        return "gradient count"
    for x, y in zip(ga, gb):
        if x is None or y is None:
            if not (x is None and (y is None or np.allclose(y, 0))) and not (y is None and np.allclose(x, 0)):
                return "gradient missing"
            continue
        if x.shape != y.shape or not np.allclose(y, x, rtol=1e-4, atol=1e-5, equal_nan=True):
            return "gradients differ"
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--max-samples", type=int, default=8)
    p.add_argument("--only", default=None)
    p.add_argument("-v", action="store_true", help="print why each failing sample fails")
    a = p.parse_args(argv)
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    import msnb.adapter.torch as mt
    ops = [o for o in op_db if o.name.split(".")[0] in ("linalg", "fft", "special")
           and (a.only is None or o.name == a.only)]
    full = 0
    rows = []
    for op in ops:
        if torch.float32 not in op.supported_dtypes("cpu"):
            continue
        try:
            ns, name = op.name.split(".", 1)
            fn_m = getattr(getattr(mt, ns), name)
        except AttributeError:
            rows.append((op.name, op.variant_test_name, 0, 0, "not in msnb"))
            continue
        if op.op is not getattr(getattr(torch, ns), name):
            # the OpInfo calls torch through its own lambda (other argument order or a wrapper):
            # there is no msnb function to call in its place
            rows.append((op.name, op.variant_test_name, 0, 0, "not replayable (OpInfo wraps torch in a lambda)"))
            continue
        ok = tot = 0
        why = ""
        try:
            samples = list(op.sample_inputs("cpu", torch.float32, requires_grad=op.supports_autograd))[:a.max_samples]
        except Exception as e:  # noqa: BLE001
            rows.append((op.name, op.variant_test_name, 0, 0, f"samples: {e}"))
            continue
        for s in samples:
            tot += 1
            try:
                ref = _run(torch, op.op, s, mt)
            except Exception:  # noqa: BLE001 - torch itself refuses: msnb must raise too
                try:
                    _run(mt, fn_m, s, mt)
                    why = why or "torch raises, msnb does not"
                except Exception:  # noqa: BLE001
                    ok += 1
                continue
            try:
                got = _run(mt, fn_m, s, mt)
                err = _same(ref, got)
            except Exception as e:  # noqa: BLE001
                err = f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
                if a.v:
                    traceback.print_exc()
            if err is None:
                ok += 1
            else:
                why = why or err
        full += ok == tot
        rows.append((op.name, op.variant_test_name, ok, tot, why))
    skipped = 0
    for name, var, ok, tot, why in rows:
        tag = "SKIP" if why.startswith("not replayable") else "PASS" if ok == tot and tot else "FAIL"
        skipped += tag == "SKIP"
        print(f"{tag} {name}{('.' + var) if var else ''}: {ok}/{tot} {why}")
    print(f"{full} of {len(rows) - skipped} replayable OpInfos pass every sample ({skipped} not replayable)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
