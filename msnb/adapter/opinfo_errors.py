"""Replay PyTorch's bad-input database (OpInfo ``error_inputs``) through msnb.

Each OpInfo may carry an ``error_inputs_func``: ``op.error_inputs(device)``
yields ``ErrorInput`` objects, a ``SampleInput`` on which the op must raise
``error_type`` with a message matching ``error_regex`` (PyTorch's own
``TestCommon.test_errors`` checks exactly that).  This module replays those
inputs through msnb: where PyTorch raises, msnb must raise the same
exception type (and, ideally, a message about the same problem).

A *case* is one (OpInfo, index in its error inputs); its key is
``"<op name>[.<variant>]:error:<index>"``.  The callable is the op's function
form where it has one (as ``test_errors`` calls ``op``), else its method.
Sparse error inputs (``error_inputs_sparse``) are not replayed: msnb's sparse
layouts are a separate area.  The conversion of inputs, the resolution of
names and the set of evaluated ops are :mod:`msnb.adapter.opinfo`'s.

``tests/adapter/opinfo/test_error_inputs.py`` replays every case against
``tests/adapter/opinfo/expected_error_mismatches.py``;
``tools/opinfo_report.py --errors-only`` prints the figures.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, field

from msnb.adapter import _ms
from msnb.adapter import opinfo as _O

__all__ = ["ErrorCase", "ErrorOutcome", "error_cases", "run_error_case", "STATUSES", "mismatch_reason"]

#: what replaying one error input can give
STATUSES = ("same", "returned", "other", "not_replayable")


@dataclass(frozen=True)
class ErrorCase:
    """One of an OpInfo's error inputs, with the msnb name it is replayed through."""

    key: str
    op: str  # the OpInfo key (``op_key``)
    name: str  # public torch name, e.g. torch.arange or torch.Tensor.renorm
    form: str  # function | method | lambda
    index: int
    info: object = field(compare=False, repr=False)
    error: object = field(compare=False, repr=False)  # the ErrorInput, or None when it could not be drawn
    problem: str = ""  # why the error input could not be drawn (then error is None)

    @property
    def error_type(self):
        return getattr(self.error, "error_type", None)


@dataclass
class ErrorOutcome:
    """What msnb did on one error input.

    ``status``: ``same`` (raised PyTorch's exception type or a subclass of it; where the database
    only says ``Exception``, the type real torch raises), ``returned``
    (returned a value where PyTorch raises), ``other`` (raised another type: ``raised``) or
    ``not_replayable`` (``reason`` says why). ``regex`` tells whether PyTorch's
    ``error_regex`` matches msnb's message (for ``same`` and ``other``); ``matches``:
    both the type and the message."""

    case: ErrorCase
    status: str
    raised: str = ""  # msnb's exception type name
    message: str = ""  # msnb's message (first line, shortened)
    regex: bool = False
    reason: str = ""
    torch_raised: str = ""  # the type real torch raised on the same input

    @property
    def ok(self):
        return self.status == "same"

    @property
    def matches(self):
        """PyTorch's exception type and, where its database gives one, a message its regex matches."""
        return self.status == "same" and self.regex

    def as_dict(self):
        return {"key": self.case.key, "op": self.case.op, "status": self.status, "raised": self.raised,
                "message": self.message, "regex": self.regex, "reason": self.reason,
                "torch_raised": self.torch_raised}


def _callable_of(op):
    """``(name, form)``: the function form where PyTorch has one, else the method, else the
    OpInfo's own callable (a lambda of the test database, rebound to msnb)."""
    fname = _O._function_name(op)
    if fname is not None:
        return fname, "function"
    mname = _O._method_name(op)
    if mname is not None:
        return f"torch.Tensor.{mname}", "method"
    return f"<OpInfo {_O.op_key(op)}>", "lambda"


def _error_ops(op_db):
    """The ops replayed: those the sample replay evaluates that carry error inputs."""
    return [op for op in op_db if op.error_inputs_func is not None and _O._evaluated(op)]


def error_cases(op_db):
    """Every (op, error input) case, in op_db order; inputs are drawn on device ``cpu``."""
    out = []
    for op in _error_ops(op_db):
        key = _O.op_key(op)
        name, form = _callable_of(op)
        i = 0
        try:
            for e in op.error_inputs("cpu"):
                out.append(ErrorCase(f"{key}:error:{i}", key, name, form, i, op, e))
                i += 1
        except Exception as exc:  # noqa: BLE001 - a generator that fails midway is one unreplayable case
            out.append(ErrorCase(f"{key}:error:{i}", key, name, form, i, op, None,
                                 f"drawing the error input failed: {_O.reason_of(exc)}"))
    return out


def _resolve(case):
    op = case.info
    if case.form == "function":
        return _O._resolve_function(_O.Case(case.key, case.name, "function", "float32", op))
    if case.form == "method":
        meth = case.name.rsplit(".", 1)[1]
        return lambda x, *a, **k: getattr(x, meth)(*a, **k)
    fn = _O._rebind(op.op) if isinstance(op.op, types.FunctionType) else None
    if fn is None:
        raise TypeError(f"{case.op} has neither a torch function nor a method msnb can call")
    return fn


def _short(exc):
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    msg = lines[0] if lines else ""
    return msg if len(msg) <= 200 else msg[:197] + "..."


def run_error_case(case) -> ErrorOutcome:
    """Replay one error input through msnb on CPU and classify what happened."""
    from msnb.adapter.torch._missing import NotSupportedError
    if case.error is None:
        return ErrorOutcome(case, "not_replayable", reason=case.problem)
    si = case.error.sample_input
    torch_raised, why, want = _torch_raises(case)
    if why:
        return ErrorOutcome(case, "not_replayable", reason=why, torch_raised=torch_raised)
    try:
        fn = _resolve(case)
    except NotSupportedError as e:
        return ErrorOutcome(case, "other", type(e).__name__, _short(e), reason=_O.reason_of(e),
                            torch_raised=torch_raised)
    except Exception as e:  # noqa: BLE001
        return ErrorOutcome(case, "not_replayable", reason=f"no msnb callable: {_O.reason_of(e)}",
                            torch_raised=torch_raised)
    shared = _shared_memory(si)
    if shared:
        return ErrorOutcome(case, "not_replayable", reason=shared, torch_raised=torch_raised)
    leaves = []
    try:
        args = (to_msnb_input(si.input, leaves), to_msnb_input(list(si.args), leaves),
                to_msnb_input(dict(si.kwargs), leaves))
    except Exception as e:  # noqa: BLE001 - e.g. a dtype or layout msnb has no tensor for
        return ErrorOutcome(case, "not_replayable", reason=f"input not convertible: {_O.reason_of(e)}",
                            torch_raised=torch_raised)
    minput, margs, mkw = args
    try:
        # the queue drained before and after: an asynchronously launched kernel's error is
        # this call's, not the next case's
        _sync_quietly()
        fn(minput, *margs, **mkw)
        _ms.sync()
    except Exception as e:  # noqa: BLE001 - classifying the exception is the point
        etype = want
        msg = str(e)
        regex = bool(re.search(case.error.error_regex, msg)) if case.error.error_regex else True
        if isinstance(e, etype) and not isinstance(e, NotSupportedError):
            return ErrorOutcome(case, "same", type(e).__name__, _short(e), regex, torch_raised=torch_raised)
        return ErrorOutcome(case, "other", type(e).__name__, _short(e), regex, _O.reason_of(e), torch_raised)
    return ErrorOutcome(case, "returned", reason="returned a value", torch_raised=torch_raised)


def _sync_quietly():
    """Wait for queued kernels, dropping an error a previous call left behind."""
    try:
        _ms.sync()
    except Exception:  # noqa: BLE001 - it belonged to an earlier call
        pass


def _torch_raises(case):
    """``(type name, why, wanted type)``: what real torch raises on this error input, why it is no
    oracle for it (it returns, or raises another type: PyTorch's own test marks such an input as
    an expected failure) or ``""``, and the exception type msnb has to raise."""
    si = case.error.sample_input
    try:
        case.info.op(si.input, *si.args, **si.kwargs)
    except Exception as e:  # noqa: BLE001
        if isinstance(e, case.error_type):
            # where PyTorch's database only says ``Exception``, msnb must raise what torch raises
            want = type(e) if case.error_type in (Exception, BaseException) else case.error_type
            return type(e).__name__, "", want
        return type(e).__name__, f"real torch raises {type(e).__name__}, not {case.error_type.__name__}", None
    return "", f"real torch returns a value (PyTorch expects {case.error_type.__name__})", None


def to_msnb_input(x, leaves):
    """``opinfo.to_msnb``, refusing what it would pass through unconverted (a real torch
    tensor inside an unknown container, a torch Generator): handing msnb a real torch object
    would test torch, not msnb."""
    import torch
    out = _O.to_msnb(x, leaves)
    for v in _leaves_of(out):
        if isinstance(v, (torch.Tensor, torch.Generator)):
            raise TypeError(f"a real torch {type(v).__name__} in the sample has no msnb counterpart")
    return out


def _shared_memory(si):
    """Why the sample's ``out=`` depends on memory it shares (a view or the very tensor of an
    input, an expanded ``out``): PyTorch refuses such writes, and the replay cannot pose them,
    since it gives msnb a separate copy of every tensor. ``""`` when nothing is shared."""
    import torch
    if "out" not in si.kwargs:
        return ""
    outs = [v for v in _leaves_of(si.kwargs["out"]) if isinstance(v, torch.Tensor)]
    rest = [v for v in _leaves_of([si.input, list(si.args), {k: v for k, v in si.kwargs.items() if k != "out"}])
            if isinstance(v, torch.Tensor)]

    def ptr(t):
        return t.untyped_storage().data_ptr() if t.layout == torch.strided and t.device.type != "meta" else None

    for o in outs:
        if o.numel() > 1 and 0 in o.stride():
            return "not posable: out= is an expanded tensor (elements sharing memory); msnb is given copies"
        p = ptr(o)
        if p is not None and o.numel() and any(ptr(t) == p and t.numel() for t in rest):
            return "not posable: out= shares memory with an input; msnb is given separate copies"
    return ""


def _leaves_of(x):
    if isinstance(x, (list, tuple)):
        for v in x:
            yield from _leaves_of(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _leaves_of(v)
    else:
        yield x


def mismatch_reason(out: ErrorOutcome) -> str:
    """The expected-mismatches entry for a non-matching outcome, PyTorch's expectation first."""
    want = out.torch_raised or getattr(out.case.error_type, "__name__", "?")
    if out.status == "returned":
        return f"torch raises {want}; msnb returned a value"
    if out.status == "other":
        return f"torch raises {want}; msnb raised {out.raised}: {out.message}"[:240]
    if out.status == "same":
        return (f"torch raises {want} matching /{out.case.error.error_regex}/; msnb's message: "
                f"{out.message}")[:240]
    return f"not replayable: {out.reason}"[:240]
