"""Differential tests of ``torch.export`` against real PyTorch 2.13: the same
module is exported in both libraries and what a user sees must agree -- the
graph signature (parameters, buffers, user inputs and outputs, printed and as
specs), the placeholders of the printed program, the state dict, the outputs
and gradients of ``ep.module()`` on new inputs, the guards ``ep.module()``
checks (exception types and messages), the ``dynamic_shapes`` forms and
PyTorch's errors for them, and data-dependent control flow.

PyTorch prints ATen operators (``torch.ops.aten.linear.default``) where msnb
prints its own torch functions (``torch.nn.functional.linear``), so the
program's body lines are not compared; everything around them is."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest

from ..harness import case, mt, real, run_case
from . import _programs as P
from msnb.adapter.torch._missing import NotSupportedError


def _ex(lib):
    return importlib.import_module(f"{lib.__name__}.export")


def _np(t):
    return t.detach().numpy()


def _sections(printed: str):
    """The forward's signature line, the graph signature and the range constraints of a printed program,
    with symbol names (s17, s0 ...) made positional."""
    lines = printed.splitlines()
    head = next(ln.strip() for ln in lines if ln.strip().startswith("def forward("))
    tail = printed[printed.index("Graph signature:"):]
    syms = {}

    def sym(m):
        return syms.setdefault(m.group(0), f"s{len(syms)}")
    return re.sub(r"\bs\d+\b", sym, head), re.sub(r"\bs\d+\b", sym, tail)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the point is to capture it
        return e
    raise AssertionError("did not raise")


def _same_error(fn_r, fn_m, *, message=True):
    er, em = _err(fn_r), _err(fn_m)
    assert type(em).__name__ == type(er).__name__, (em, er)
    for base in (RuntimeError, AssertionError, ValueError):
        assert isinstance(em, base) == isinstance(er, base), (em, er)
    if message is True:
        assert str(em) == str(er)
    elif message:
        assert str(em).startswith(message) and str(er).startswith(message), (str(em), str(er))
    return er, em


def export_linear_program(r, m):
    rm, mm = P.pair(r, m, P.linear_relu)
    (rx, ry), (mx, my) = P.inputs(r, m, (2, 4), (2, 4))
    assert m.export is _ex(m) and r.export is _ex(r)  # torch.export, as an attribute of torch
    rep, mep = _ex(r).export(rm, (rx, ry)), _ex(m).export(mm, (mx, my))
    assert type(mep).__name__ == "ExportedProgram" and isinstance(mep, _ex(m).ExportedProgram)
    assert _sections(str(mep)) == _sections(str(rep))
    assert str(mep.graph_signature) == str(rep.graph_signature)
    for rs, ms in zip(rep.graph_signature.input_specs, mep.graph_signature.input_specs, strict=True):
        assert (ms.kind.name, ms.arg.name, ms.target, ms.persistent) == \
            (rs.kind.name, rs.arg.name, rs.target, rs.persistent)
    assert [(s.kind.name, s.arg.name) for s in mep.graph_signature.output_specs] == \
        [(s.kind.name, s.arg.name) for s in rep.graph_signature.output_specs]
    sig_r, sig_m = rep.graph_signature, mep.graph_signature
    for attr in ("parameters", "buffers", "user_inputs", "user_outputs", "inputs_to_parameters",
                 "inputs_to_buffers"):
        assert getattr(sig_m, attr) == getattr(sig_r, attr), attr
    assert list(mep.state_dict) == list(rep.state_dict)
    assert [n for n, _ in mep.named_parameters()] == [n for n, _ in rep.named_parameters()]
    assert len(list(mep.parameters())) == len(list(rep.parameters()))
    assert [p.name for p in mep.graph.nodes if p.op == "placeholder"] == \
        [p.name for p in rep.graph.nodes if p.op == "placeholder"]
    # the lifted graph_module runs on (parameters, buffers, inputs) and returns a flat tuple, as PyTorch's
    lifted = [*mep.state_dict.values(), mx, my]
    np.testing.assert_allclose(_np(mep.graph_module(*lifted)[0]),
                               _np(rep.graph_module(*rep.state_dict.values(), rx, ry)[0]), rtol=1e-5, atol=1e-6)
    # module(): new inputs, same outputs and gradients as PyTorch's exported module
    rmod, mmod = rep.module(), mep.module()
    assert type(mmod).__name__ == type(rmod).__name__ == "GraphModule"
    assert isinstance(mmod, m.fx.GraphModule) and isinstance(mmod, m.nn.Module)
    (rx2, ry2), (mx2, my2) = P.inputs(r, m, (2, 4), (2, 4), seed=1)
    ro, mo = rmod(rx2, ry2), mmod(mx2, my2)
    np.testing.assert_allclose(_np(mo), _np(ro), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mo), _np(mm(mx2, my2)), rtol=1e-6, atol=1e-7)
    ro.sum().backward()
    mo.sum().backward()
    for (n, rp), (_, mp) in zip(rmod.named_parameters(), mmod.named_parameters(), strict=True):
        np.testing.assert_allclose(_np(mp.grad), _np(rp.grad), rtol=1e-5, atol=1e-6, err_msg=n)
    # guards
    (rb, _), (mb, _) = P.inputs(r, m, (3, 4), (3, 4))
    _same_error(lambda: rmod(rb, rb), lambda: mmod(mb, mb))  # Guard failed: x.size()[0] == 2
    (rw, _), (mw, _) = P.inputs(r, m, (2, 5), (2, 5))
    _same_error(lambda: rmod(rw, rw), lambda: mmod(mw, mw))
    _same_error(lambda: rmod(rx), lambda: mmod(mx), message="Trying to flatten user inputs with exported input tree")
    _same_error(lambda: rep(rx, ry), lambda: mep(mx, my))  # Unable to call ExportedProgram directly


def dims_and_hints(r, m):
    for lib in (r, m):
        ex = _ex(lib)
        assert ex.Dim is ex.dynamic_shapes.Dim
    R, M = _ex(r).Dim, _ex(m).Dim
    for args, kw in ((("b",), {"min": 2, "max": 8}), (("n",), {"min": 3, "max": 10}), (("a",), {}),
                     (("c",), {"max": 512}), (("d",), {"min": 4})):
        rd, md = R(*args, **kw), M(*args, **kw)
        assert repr(md) == repr(rd)
        assert (md.__name__, md.min) == (rd.__name__, rd.min)
    assert [repr(d) for d in _ex(m).dims("dx", "dy")] == [repr(d) for d in _ex(r).dims("dx", "dy")]
    for hint in ("AUTO", "STATIC", "DYNAMIC"):
        assert repr(getattr(M, hint)) == repr(getattr(R, hint))
        assert getattr(M, hint) == getattr(M, hint)
    assert M.AUTO != M.STATIC
    _same_error(lambda: R("x", min=5, max=2), lambda: M("x", min=5, max=2))


def shared_dim(r, m):
    rm, mm = P.pair(r, m, P.linear_relu)
    (rx, ry), (mx, my) = P.inputs(r, m, (3, 4), (3, 4))
    rd, md = _ex(r).Dim("b", min=2, max=8), _ex(m).Dim("b", min=2, max=8)
    rep = _ex(r).export(rm, (rx, ry), dynamic_shapes={"x": {0: rd}, "y": {0: rd}})
    mep = _ex(m).export(mm, (mx, my), dynamic_shapes={"x": {0: md}, "y": {0: md}})
    assert _sections(str(mep)) == _sections(str(rep))
    assert [repr(v) for v in mep.range_constraints.values()] == [repr(v) for v in rep.range_constraints.values()]
    for n in (2, 5, 8):
        (a, b), (c, d) = P.inputs(r, m, (n, 4), (n, 4), seed=n)
        np.testing.assert_allclose(_np(mep.module()(c, d)), _np(rep.module()(a, b)), rtol=1e-5, atol=1e-6)
    (a, b), (c, d) = P.inputs(r, m, (9, 4), (9, 4))
    _same_error(lambda: rep.module()(a, b), lambda: mep.module()(c, d))  # Guard failed: x.size()[0] <= 8


def dim_ranges_and_forms(r, m):
    rl, ml = P.pair(r, m, lambda lib: lib.nn.Linear(4, 3))
    (rx,), (mx,) = P.inputs(r, m, (3, 4))
    # the tuple form, a lower bound above 2 (guarded), None for a static dimension
    rep = _ex(r).export(rl, (rx,), dynamic_shapes=((_ex(r).Dim("n", min=3, max=10), None),))
    mep = _ex(m).export(ml, (mx,), dynamic_shapes=((_ex(m).Dim("n", min=3, max=10), None),))
    assert _sections(str(mep)) == _sections(str(rep))
    (a,), (b,) = P.inputs(r, m, (2, 4))
    _same_error(lambda: rep.module()(a), lambda: mep.module()(b))  # Guard failed: input.size()[0] >= 3
    (a,), (b,) = P.inputs(r, m, (10, 4))
    np.testing.assert_allclose(_np(mep.module()(b)), _np(rep.module()(a)), rtol=1e-5, atol=1e-6)
    # an example outside its range
    _same_error(lambda: _ex(r).export(rl, (rx,), dynamic_shapes=((_ex(r).Dim("n", min=4, max=10), None),)),
                lambda: _ex(m).export(ml, (mx,), dynamic_shapes=((_ex(m).Dim("n", min=4, max=10), None),)),
                message="3 not in range [4, 10]")
    # a dimension the code fixes, marked dynamic: PyTorch's "Constraints violated"
    _same_error(lambda: _ex(r).export(rl, (rx,), dynamic_shapes={"input": (_ex(r).Dim.AUTO, _ex(r).Dim.DYNAMIC)}),
                lambda: _ex(m).export(ml, (mx,), dynamic_shapes={"input": (_ex(m).Dim.AUTO, _ex(m).Dim.DYNAMIC)}),
                message="Constraints violated (L['input'].size()[1])! For more information")
    _same_error(lambda: _ex(r).export(rl, (rx,), dynamic_shapes={"input": {1: _ex(r).Dim("k")}}),
                lambda: _ex(m).export(ml, (mx,), dynamic_shapes={"input": {1: _ex(m).Dim("k")}}),
                message="Constraints violated (k)! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
                        "  - You marked k as dynamic but your code specialized it to be a constant (4).")
    # dict keys that are not the argument names
    _same_error(lambda: _ex(r).export(rl, (rx,), dynamic_shapes={"z": None}),
                lambda: _ex(m).export(ml, (mx,), dynamic_shapes={"z": None}),
                message="When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg names "
                        "['input'] of `inputs`, but here they are ['z'].")


def auto_dims(r, m):
    rl, ml = P.pair(r, m, lambda lib: lib.nn.Linear(4, 3))
    # Dim.AUTO on a size-1 example: specialised (PyTorch's 0/1 rule), guarded by module()
    (r1,), (m1,) = P.inputs(r, m, (1, 4))
    rep = _ex(r).export(rl, (r1,), dynamic_shapes={"input": (_ex(r).Dim.AUTO, _ex(r).Dim.STATIC)})
    mep = _ex(m).export(ml, (m1,), dynamic_shapes={"input": (_ex(m).Dim.AUTO, _ex(m).Dim.STATIC)})
    assert dict(mep.range_constraints) == {} == dict(rep.range_constraints)
    (a,), (b,) = P.inputs(r, m, (2, 4))
    _same_error(lambda: rep.module()(a), lambda: mep.module()(b))  # Guard failed: input.size()[0] == 1
    # Dim.AUTO on both dimensions: the batch stays dynamic, the feature size is fixed by the weight
    (r3,), (m3,) = P.inputs(r, m, (3, 4))
    rep = _ex(r).export(rl, (r3,), dynamic_shapes={"input": (_ex(r).Dim.AUTO, _ex(r).Dim.AUTO)})
    mep = _ex(m).export(ml, (m3,), dynamic_shapes={"input": (_ex(m).Dim.AUTO, _ex(m).Dim.AUTO)})
    assert _sections(str(mep)) == _sections(str(rep))
    (a,), (b,) = P.inputs(r, m, (7, 4))
    np.testing.assert_allclose(_np(mep.module()(b)), _np(rep.module()(a)), rtol=1e-5, atol=1e-6)
    (a,), (b,) = P.inputs(r, m, (7, 5))
    _same_error(lambda: rep.module()(a), lambda: mep.module()(b))  # Guard failed: input.size()[1] == 4


def data_dependent_control_flow(r, m):
    (rx,), (mx,) = P.inputs(r, m, (3, 3))
    for strict in (False, True):
        er, em = _same_error(lambda: _ex(r).export(P.branch_on_data(r), (rx,), strict=strict),
                             lambda: _ex(m).export(P.branch_on_data(m), (mx,), strict=strict), message=False)
        assert type(em).__name__ == ("Unsupported" if strict else "GuardOnDataDependentSymNode")
    # a buffer written outside torch functions (BatchNorm's num_batches_tracked in training) is refused
    with pytest.raises(NotSupportedError, match="num_batches_tracked"):
        _ex(m).export(P.conv_bn(m), (m.randn(2, 1, 3, 3),))
    # item(): a number from tensor data used as a value (not for control flow) is computed at run time
    rep = _ex(r).export(P.scalar_from_tensor(r), (r.tensor(2.0), r.ones(3)))
    mep = _ex(m).export(P.scalar_from_tensor(m), (m.tensor(2.0), m.ones(3)))
    np.testing.assert_allclose(_np(mep.module()(m.tensor(3.0), m.ones(3))),
                               _np(rep.module()(r.tensor(3.0), r.ones(3))))


def shape_reads_are_guarded(r, m):
    """Sizes read in Python become constants of msnb's graph: a dimension whose size the graph holds is
    static under Dim.AUTO, so module() refuses another size instead of computing something else."""
    rm, mm = P.pair(r, m, P.shape_checks)
    (rw, rx), (mw, mx) = P.inputs(r, m, (6, 5), (4,))
    rep = _ex(r).export(rm, (rw, rx))
    mep = _ex(m).export(mm, (mw, mx), dynamic_shapes={"w": (_ex(m).Dim.AUTO, None), "x": None})
    ro, mo = rep.module()(rw, rx), mep.module()(mw, mx)
    for a, b in zip(ro, mo, strict=True):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-5, atol=1e-6)
    assert dict(mep.range_constraints) == {}
    (a, _), (b, _) = P.inputs(r, m, (7, 5), (4,))
    with pytest.raises(AssertionError, match=r"Guard failed: w.size\(\)\[0\] == 6"):
        mep.module()(b, mx)
    with pytest.raises(_ex(m)._errors.UserError, match=r"Constraints violated \(n\)"):
        _ex(m).export(mm, (mw, mx), dynamic_shapes={"w": (_ex(m).Dim("n"), None), "x": None})


def conv_bn_eval_and_kwargs(r, m):
    rm, mm = P.pair(r, m, P.conv_bn)
    rm.eval()
    mm.eval()
    (rx,), (mx,) = P.inputs(r, m, (1, 1, 3, 3))
    rep, mep = _ex(r).export(rm, (rx,)), _ex(m).export(mm, (mx,))
    assert _sections(str(mep)) == _sections(str(rep))
    assert list(mep.state_dict) == list(rep.state_dict)
    (rx2,), (mx2,) = P.inputs(r, m, (1, 1, 3, 3), seed=3)
    np.testing.assert_allclose(_np(mep.module()(mx2)[0]), _np(rep.module()(rx2)[0]), rtol=1e-5, atol=1e-5)
    # the decomposition step: PyTorch lowers ATen ops; msnb's program is already made of its functions
    for lib, ep, x in ((r, rep, rx2), (m, mep, mx2)):
        for dec in (ep.run_decompositions(), ep.run_decompositions(_ex(lib).default_decompositions())):
            assert type(dec).__name__ == "ExportedProgram"
            if lib is m:  # PyTorch's lowering renames values (batch_norm -> getitem); msnb's graph stays as it is
                assert str(dec.graph_signature) == str(ep.graph_signature)
            np.testing.assert_allclose(_np(dec.module()(x)[0]), _np(ep.module()(x)[0]), rtol=1e-6, atol=1e-6)
    assert _ex(m).default_decompositions() == {}  # nothing to lower: msnb's graph has no ATen operators
    with pytest.raises(NotSupportedError, match="decomp_table"):
        mep.run_decompositions({"aten.conv2d": lambda *a: a})
    # keyword inputs; non-tensor inputs are constants of the program
    (rx,), (mx,) = P.inputs(r, m, (2, 3))
    rk = _ex(r).export(P.keyword_inputs(r), (rx,), {"scale": 2.0, "bias": r.ones(3)})
    mk = _ex(m).export(P.keyword_inputs(m), (mx,), {"scale": 2.0, "bias": m.ones(3)})
    assert str(mk.graph_signature) == str(rk.graph_signature)
    np.testing.assert_allclose(_np(mk.module()(mx, scale=2.0, bias=m.zeros(3))),
                               _np(rk.module()(rx, scale=2.0, bias=r.zeros(3))), rtol=1e-6)
    _same_error(lambda: rk.module()(rx, scale=3.0, bias=r.zeros(3)),
                lambda: mk.module()(mx, scale=3.0, bias=m.zeros(3)))  # Guard failed: scale == 2.0


def bad_arguments(r, m):
    (rx,), (mx,) = P.inputs(r, m, (2, 4))
    _same_error(lambda: _ex(r).export(lambda x: x, (rx,)), lambda: _ex(m).export(lambda x: x, (mx,)),
                message="Expected `mod` to be an instance of `torch.nn.Module`")
    _same_error(lambda: _ex(r).export(r.nn.Linear(4, 3), [rx]), lambda: _ex(m).export(m.nn.Linear(4, 3), [mx]),
                message="Expecting `args` to be a tuple of example positional inputs")


def auto_dims_tied_by_broadcasting(r, m):
    """``x + y`` under Dim.AUTO on both batch dimensions: one dynamic size, equal in both inputs."""
    rm, mm = P.pair(r, m, P.linear_relu)
    (rx, ry), (mx, my) = P.inputs(r, m, (3, 4), (3, 4))
    ds = {lib: {"x": (_ex(lib).Dim.AUTO, _ex(lib).Dim.STATIC), "y": (_ex(lib).Dim.AUTO, _ex(lib).Dim.STATIC)}
          for lib in (r, m)}
    rep, mep = _ex(r).export(rm, (rx, ry), dynamic_shapes=ds[r]), _ex(m).export(mm, (mx, my), dynamic_shapes=ds[m])
    assert _sections(str(mep)) == _sections(str(rep))
    (a, b), (c, d) = P.inputs(r, m, (6, 4), (6, 4), seed=6)
    np.testing.assert_allclose(_np(mep.module()(c, d)), _np(rep.module()(a, b)), rtol=1e-5, atol=1e-6)
    (a, b), (c, d) = P.inputs(r, m, (6, 4), (5, 4), seed=6)
    er, em = _err(lambda: rep.module()(a, b)), _err(lambda: mep.module()(c, d))
    assert isinstance(em, AssertionError) and str(em).startswith("Guard failed: y.size()[0] == x.size()[0]")
    assert isinstance(er, (AssertionError, RuntimeError)), er  # PyTorch: a guard or the broadcast itself


CASES = [
    case("export_linear_program", ("torch.export", "torch.export.export", "torch.export.ExportedProgram",
                                   "torch.export.ExportGraphSignature", "torch.export.exported_program.ExportedProgram",
                                   "torch.export.graph_signature.ExportGraphSignature",
                                   "torch.export.graph_signature.InputSpec", "torch.export.graph_signature.OutputSpec",
                                   "torch.export.graph_signature.InputKind", "torch.export.graph_signature.OutputKind",
                                   "torch.export.graph_signature.TensorArgument"),
         export_linear_program, kind="custom"),
    case("dims_and_hints", ("torch.export.Dim", "torch.export.dims", "torch.export.dynamic_shapes.Dim",
                            "torch.export.dynamic_shapes.dims", "torch.export.Dim.AUTO", "torch.export.Dim.STATIC",
                            "torch.export.Dim.DYNAMIC", "torch.export.dynamic_shapes.Dim.AUTO",
                            "torch.export.dynamic_shapes.Dim.STATIC", "torch.export.dynamic_shapes.Dim.DYNAMIC"),
         dims_and_hints, kind="custom"),
    case("shared_dim", ("torch.export.export", "torch.export.Dim"), shared_dim, kind="custom"),
    case("dim_ranges_and_forms", ("torch.export.export", "torch.export.Dim", "torch.export.Dim.DYNAMIC"),
         dim_ranges_and_forms, kind="custom"),
    case("auto_dims", ("torch.export.Dim.AUTO", "torch.export.Dim.STATIC"), auto_dims, kind="custom"),
    case("auto_dims_tied_by_broadcasting", ("torch.export.Dim.AUTO",), auto_dims_tied_by_broadcasting,
         kind="custom"),
    case("data_dependent_control_flow", ("torch.export.export",), data_dependent_control_flow, kind="custom"),
    case("shape_reads_are_guarded", ("torch.export.export",), shape_reads_are_guarded, kind="custom"),
    case("conv_bn_eval_and_kwargs", ("torch.export.export", "torch.export.ExportedProgram",
                                     "torch.export.graph_signature.ConstantArgument",
                                     "torch.export.default_decompositions",
                                     "torch.export.exported_program.default_decompositions"),
         conv_bn_eval_and_kwargs, kind="custom"),
    case("bad_arguments", ("torch.export.export",), bad_arguments, kind="custom"),
]


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_export_matches_pytorch(c):
    run_case(c)
