"""``torch.export.save`` / ``torch.export.load``: msnb's ``.pt2`` archive is
a zip that loads back into a program giving the same outputs, guards and
printout, and loading never runs code: functions are looked up only among
msnb's torch namespaces, tensors go through ``weights_only`` loading, and an
archive written by real PyTorch (an ATen graph) is refused by name."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from ..harness import case, mt, real, run_case
from . import _programs as P
from msnb.adapter.torch._missing import NotSupportedError

PREFIX = "msnb_export/"


def _saved(ep) -> bytes:
    buf = io.BytesIO()
    mt.export.save(ep, buf)
    return buf.getvalue()


def _rewritten(data: bytes, name: str, content: bytes) -> io.BytesIO:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n in src.namelist():
            z.writestr(n, content if n == name else src.read(n))
    out.seek(0)
    return out


def round_trip(r, m):
    rm, mm = P.pair(r, m, P.linear_relu)
    (rx, ry), (mx, my) = P.inputs(r, m, (3, 4), (3, 4))
    d = m.export.Dim("b", max=16)
    ep = m.export.export(mm, (mx, my), dynamic_shapes={"x": {0: d}, "y": {0: d}})
    data = _saved(ep)
    assert zipfile.is_zipfile(io.BytesIO(data))
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert {PREFIX + "format", PREFIX + "program.json", PREFIX + "data.pt"} <= set(names)
    loaded = m.export.load(io.BytesIO(data))
    assert str(loaded) == str(ep)
    assert list(loaded.state_dict) == list(ep.state_dict)
    (a, b), (c, e) = P.inputs(r, m, (11, 4), (11, 4), seed=4)
    np.testing.assert_allclose(loaded.module()(c, e).detach().numpy(), mm(c, e).detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.module()(c, e).detach().numpy(), rm(a, b).detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    (_, _), (c, e) = P.inputs(r, m, (17, 4), (17, 4))
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[0\] <= 16"):
        loaded.module()(c, e)
    # a real PyTorch program saved by real PyTorch: refused by name, not parsed
    buf = io.BytesIO()
    r.export.save(r.export.export(rm, (rx, ry)), buf)
    buf.seek(0)
    with pytest.raises(NotSupportedError, match="written by PyTorch"):
        m.export.load(buf)


def loading_runs_no_code(r, m):
    ep = m.export.export(P.linear_relu(m), tuple(m.randn(2, 4) for _ in range(2)))
    data = _saved(ep)
    program = json.loads(zipfile.ZipFile(io.BytesIO(data)).read(PREFIX + "program.json"))
    for target in ("os.system", "builtins.eval", "torch.load", "torch.save", "torch.set_default_dtype",
                   "torch.nn.functional.os", "torch.__builtins__", "torch.Tensor", "torch._C"):
        evil = json.loads(json.dumps(program))
        node = next(n for n in evil["nodes"] if n["op"] == "call_function")
        node["target"] = target
        with pytest.raises(RuntimeError, match="not a torch function"):
            m.export.load(_rewritten(data, PREFIX + "program.json", json.dumps(evil).encode()))
    evil = json.loads(json.dumps(program))
    evil["nodes"].insert(-1, {"op": "call_method", "name": "boom", "target": "__reduce_ex__",
                              "args": {"tuple": [{"node": "x"}, 2]}, "kwargs": {"dict": []}})
    with pytest.raises(RuntimeError, match="not a torch.Tensor method"):
        m.export.load(_rewritten(data, PREFIX + "program.json", json.dumps(evil).encode()))
    # tensors are read with weights_only: a pickle naming another global is refused
    buf = io.BytesIO()
    real.save({"attr:lin.weight": _Exploit()}, buf)
    with pytest.raises(Exception, match="(?i)weights_only|unsupported global|not allowed"):
        m.export.load(_rewritten(data, PREFIX + "data.pt", buf.getvalue()))
    assert not _Exploit.ran
    with pytest.raises(TypeError, match="must be an instance of 'ExportedProgram'"):
        m.export.save(P.linear_relu(m), io.BytesIO())


class _Exploit:
    ran = False

    def __reduce__(self):
        return (_mark_ran, ())


def _mark_ran():
    _Exploit.ran = True
    return None


CASES = [
    case("export_save_load_round_trip", ("torch.export.save", "torch.export.load"), round_trip, kind="custom"),
    case("export_load_runs_no_code", ("torch.export.load", "torch.export.save"), loading_runs_no_code,
         kind="custom"),
]


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_export_archive(c):
    run_case(c)
