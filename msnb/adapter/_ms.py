"""The one module that touches MindSpore internals.

Everything else in the adapter uses public MindSpore API.  What lives here
(and why) is kept small so a MindSpore upgrade has one place to check:

* re-classing a fresh MindSpore op output as an adapter tensor without a copy;
* replacing a tensor's data in place (``assign_value_cpp``), the primitive
  behind every PyTorch in-place op and alias update;
* reading the active device target;
* making a tensor's data a host buffer without a copy (:func:`alias_host`,
  shared memory for ``torch.multiprocessing``) and waiting for every queued
  kernel (:func:`wait_all`);
* MindSpore's trace recorder, which graph mode compiles regions with;
* handing kernels adapter tensors as plain ``mindspore.Tensor`` objects
  (:func:`plain_args`), and the PyBoost function and primitive behind such a kernel
  with MindSpore's jit-context flag (:func:`direct_target`, ``JIT``) for the
  one-step elementwise ops, which call it in their own frame.

Pinned to MindSpore 2.10 (see ``pyproject.toml``).
"""

from __future__ import annotations

import os

os.environ.setdefault("GLOG_v", "3")

import mindspore as ms  # noqa: E402
import mindspore.graph.jit_context as _jc  # noqa: E402
from mindspore._c_expression import TensorPy as _TensorPy  # noqa: E402

__all__ = ["ms", "TensorPy", "set_data", "device_target", "MS_VERSION", "conv2d_prims", "trace_begin",
           "trace_end", "trace_run", "lstm_prims", "trace_pass", "trace_abandon", "trace_open", "trace_reset",
           "untraced", "plain_args", "adapted", "direct_target", "JIT", "primitive_kernel", "set_adapter_class",
           "alias_host", "wait_all", "SHARED", "refill_parameter"]

TensorPy = _TensorPy
MS_VERSION = ms.__version__

_update = _TensorPy._update_data


_Parameter = ms.Parameter
#: writes ``src`` into ``dst``'s own memory.  ``ops.assign`` takes MindSpore's older primitive
#: path (~3x the CPU time of the PyBoost ``InplaceCopy``, ``Tensor.copy_``), but InplaceCopy keeps
#: ~1 KB of device memory per call on MindSpore 2.10's CPU backend (issue #13's PyBoost leak): with
#: it, graph-mode training grew 3.4 KB/step (tests/adapter/torch/test_memory_growth.py)
_assign = ms.ops.assign


_MS_TENSOR = ms.Tensor
_ADAPTER = None  # the adapter's Tensor class, once it exists (set_adapter_class)


def set_adapter_class(cls) -> None:
    """Tell :func:`plain_args` wrappers which class to hand over as plain."""
    global _ADAPTER
    _ADAPTER = cls


def _refuse_sparse(args, name):
    """A dense kernel handed a sparse COO tensor (an op msnb has no sparse version of): msnb's unsupported error."""
    for a in args:
        if getattr(type(a), "is_sparse", False) is True and not isinstance(a, _MS_TENSOR):
            from .torch._missing import NotSupportedError, not_supported_message
            raise NotSupportedError(not_supported_message(f"the op '{name}' on a sparse COO tensor")) from None


def plain_args(kernel):
    """``kernel`` called with every positional adapter tensor re-classed as a
    plain ``mindspore.Tensor`` for the duration of the call.

    MindSpore takes a slower argument path for any ``Tensor`` subclass
    (attribute probes for its ``__fallback__``/``__ms_dispatch__`` protocols
    and more): measured +8.6 us on a 2-argument add of 1k floats, a quarter
    of the whole op on this CPU; re-classing costs ~0.1 us per argument.
    Inside the call MindSpore's own Python code also sees MindSpore's
    methods, not the adapter's torch-style ones.  The class is restored in
    ``finally``, so an error or KeyboardInterrupt cannot leave a tensor
    re-classed.  Only exact adapter tensors are re-classed (a Parameter keeps
    its class).  Not for tensors shared with another Python thread while a
    kernel runs: that thread would see the plain class meanwhile."""
    own = getattr(kernel, "adapted", None)
    if own is not None and getattr(own, "_of", None) is kernel:
        return kernel  # already one (``primitive_kernel``): a second wrapper would only add a Python call
    plain = _MS_TENSOR

    def call(*args, **kwargs):
        cls = _ADAPTER
        swapped = None
        try:
            for a in args:
                if type(a) is cls:
                    # listed before it is re-classed: an interrupt between the two
                    # statements leaves nothing to restore wrongly
                    if swapped is None:
                        swapped = [a]
                    else:
                        swapped.append(a)
                    a.__class__ = plain
            return kernel(*args, **kwargs)
        except TypeError:
            _refuse_sparse(args, call.__name__)
            raise
        finally:
            if swapped is not None:
                for a in swapped:
                    a.__class__ = cls

    call.__wrapped__ = kernel
    call.__name__ = getattr(kernel, "__name__", "kernel")
    direct = _pyboost_target(kernel)
    if direct is None:
        def run(*args):
            # call() with the result re-classed (see adapted()); one operand without call()'s frame and loop
            cls = _ADAPTER
            if len(args) != 1:
                r = call(*args)
            else:
                a, = args
                if type(a) is cls:
                    try:
                        a.__class__ = plain
                        r = kernel(a)
                    finally:
                        a.__class__ = cls
                else:
                    try:
                        r = kernel(a)
                    except TypeError:
                        _refuse_sparse(args, call.__name__)
                        raise
            if type(r) is plain:
                r.__class__ = cls
            return r
        run.__name__ = call.__name__
        call.adapted, run._of = run, call
        return call
    fast = _direct_call(call, *direct)
    fast.__wrapped__ = kernel
    fast.__name__ = call.__name__
    return fast


def adapted(kernel):
    """``kernel`` (a :func:`plain_args` kernel, or one a profiler hook wraps) whose plain
    ``mindspore.Tensor`` result comes back re-classed as an adapter tensor (any other
    result as it is: the caller's ``wrap`` handles it).  The direct PyBoost kernels carry a
    faster one of their own as ``kernel.adapted`` (positional operands only, no Python
    frame between the op and the kernel); this is what the others get."""
    own = getattr(kernel, "adapted", None)
    if own is not None and getattr(own, "_of", None) is kernel:  # (not one a functools.wraps copied)
        return own
    plain = _MS_TENSOR

    def run(*args):
        r = kernel(*args)
        if type(r) is plain:
            r.__class__ = _ADAPTER
        return r
    run.__name__ = getattr(kernel, "__name__", "kernel")
    run.__wrapped__ = run._of = kernel
    return run


def primitive_kernel(name: str):
    """MindSpore's generated primitive instance ``name`` (``"relu_op"``, ``"div_op"`` ...) as
    a :func:`plain_args` kernel: outside a trace it calls its PyBoost function directly."""
    from mindspore.ops.auto_generate import gen_ops_prim
    return plain_args(getattr(gen_ops_prim, name))


def _code_is(code, ops) -> bool:
    """Whether ``code``'s instructions (RESUME/PRECALL/CACHE left out) are ``ops``, a list of
    ``(opname, argval)`` where an argval of ``...`` matches anything."""
    import dis
    got = [(i.opname, i.argval) for i in dis.get_instructions(code)
           if i.opname not in ("RESUME", "PRECALL", "CACHE", "PUSH_NULL")]
    return len(got) >= len(ops) and all(o == g[0] and (v is ... or v == g[1]) for (o, v), g in zip(ops, got))


def _pyboost_target(kernel):
    """``(pyboost_function, primitive, n)`` when ``kernel`` is a PyBoost primitive instance, or
    one of MindSpore's generated functional wrappers ``def f(a, b): return f_op(a, b)`` over
    one, whose ``__call__`` starts ``res = pyboost_f(self, [a, b])`` and returns ``res`` when
    no jit context is open (MindSpore 2.10's generated code, checked instruction by
    instruction here, so code generated differently just keeps the ordinary call); else None.

    Calling ``pyboost_f(prim, [a, b])`` directly is exactly what those Python frames do
    outside a trace; with a trace open the call goes the ordinary way (the primitive's
    ``__call__`` records the op)."""
    code = getattr(kernel, "__code__", None)
    if code is None:
        prim = kernel
    else:
        if getattr(kernel, "__module__", "") != "mindspore.ops.auto_generate.gen_ops_def" or \
                kernel.__defaults__ or kernel.__kwdefaults__ or code.co_kwonlyargcount or \
                code.co_flags & 0x0C or len(code.co_names) != 1:
            return None
        params = code.co_varnames[:code.co_argcount]
        if not _code_is(code, [("LOAD_GLOBAL", code.co_names[0]), *(("LOAD_FAST", v) for v in params),
                               ("CALL", len(params)), ("RETURN_VALUE", None)]):
            return None
        prim = kernel.__globals__.get(code.co_names[0])
    pcall = getattr(type(prim), "__call__", None)
    pcode = getattr(pcall, "__code__", None)
    # (defaults of the primitive's own parameters are fine: the direct call takes exactly n arguments)
    if pcode is None or not pcode.co_names or not pcode.co_names[0].startswith("pyboost_") or \
            pcode.co_flags & 0x0C or pcode.co_kwonlyargcount:
        return None
    n = pcode.co_argcount - 1
    if n not in (1, 2, 3) or (code is not None and code.co_argcount != n):
        return None
    if not _code_is(pcode, [("LOAD_GLOBAL", pcode.co_names[0]),
                            *(("LOAD_FAST", v) for v in pcode.co_varnames[:n + 1]),
                            ("BUILD_LIST", n), ("CALL", 2), ("STORE_FAST", "res"),
                            ("LOAD_GLOBAL", "jit_context"), ("CALL", 0), ("POP_JUMP_FORWARD_IF_TRUE", ...),
                            ("LOAD_FAST", "res"), ("RETURN_VALUE", None)]):
        return None
    return pcall.__globals__[pcode.co_names[0]], prim, n


def _direct_call(slow, pyboost, prim, n):
    """A plain-args kernel for an ``n``-argument (1 or 2) PyBoost primitive that calls it
    directly while no jit context is open (see :func:`_pyboost_target`); ``slow`` otherwise."""
    import mindspore.graph.jit_context as jc
    plain = _MS_TENSOR

    if n == 1:
        def fast(*args, **kwargs):
            if kwargs or len(args) != 1 or jc._jit_context is not None:
                return slow(*args, **kwargs)
            a, = args
            cls = _ADAPTER
            if type(a) is not cls:
                try:
                    return pyboost(prim, [a])
                except TypeError:
                    _refuse_sparse(args, slow.__name__)
                    raise
            try:
                a.__class__ = plain
                return pyboost(prim, [a])
            finally:
                a.__class__ = cls

        def run(a):
            # fast() for exactly one positional operand, the result re-classed (see adapted())
            cls = _ADAPTER
            if jc._jit_context is not None:
                r = slow(a)
            elif type(a) is cls:
                try:
                    a.__class__ = plain
                    r = pyboost(prim, [a])
                finally:
                    a.__class__ = cls
            else:
                try:
                    r = pyboost(prim, [a])
                except TypeError:
                    _refuse_sparse((a,), slow.__name__)
                    raise
            if type(r) is plain:
                r.__class__ = cls
            return r
        fast.adapted, run._of = run, fast
        fast.direct = (pyboost, prim, fast)
        return fast

    if n == 3:
        def fast(*args, **kwargs):
            if kwargs or len(args) != 3 or jc._jit_context is not None:
                return slow(*args, **kwargs)
            cls = _ADAPTER
            if cls not in (type(args[0]), type(args[1]), type(args[2])):
                try:
                    return pyboost(prim, list(args))
                except TypeError:
                    _refuse_sparse(args, slow.__name__)
                    raise
            return slow(*args)
        fast.adapted = adapted(fast)
        return fast

    def fast(*args, **kwargs):
        if kwargs or len(args) != 2 or jc._jit_context is not None:
            return slow(*args, **kwargs)
        a, b = args
        cls = _ADAPTER
        # each flag is set before its tensor is re-classed: an interrupt in between restores
        # a class that was never changed, which is harmless
        sa = type(a) is cls
        sb = type(b) is cls and b is not a
        try:
            if sa:
                a.__class__ = plain
            if sb:
                b.__class__ = plain
            return pyboost(prim, [a, b])
        except TypeError:
            _refuse_sparse(args, slow.__name__)
            raise
        finally:
            if sa:
                a.__class__ = cls
            if sb:
                b.__class__ = cls

    def run(a, b):
        # fast() for exactly two positional operands, the result re-classed (see adapted())
        cls = _ADAPTER
        if jc._jit_context is not None:
            r = slow(a, b)
        else:
            sa = type(a) is cls
            sb = type(b) is cls and b is not a
            try:
                if sa:
                    a.__class__ = plain
                if sb:
                    b.__class__ = plain
                r = pyboost(prim, [a, b])
            except TypeError:
                _refuse_sparse((a, b), slow.__name__)
                raise
            finally:
                if sa:
                    a.__class__ = cls
                if sb:
                    b.__class__ = cls
        if type(r) is plain:
            r.__class__ = cls
        return r
    fast.adapted, run._of = run, fast
    fast.direct = (pyboost, prim, fast)
    return fast


def direct_target(kernel):
    """``(pyboost_function, primitive)`` when ``kernel`` is a 1- or 2-operand kernel that
    :func:`plain_args` made to call PyBoost directly (not a wrapper around one: a profiler
    hook's ``functools.wraps`` copies the attribute, hence the identity check), else None.
    Callers call ``pyboost_function(primitive, [operands])`` only while
    ``JIT._jit_context is None`` and with plain ``mindspore.Tensor`` operands, as the kernel does."""
    d = getattr(kernel, "direct", None)
    return (d[0], d[1]) if type(d) is tuple and len(d) == 3 and d[2] is kernel else None


#: MindSpore's jit-context module: ``JIT._jit_context`` is None outside a trace (the
#: one-step elementwise ops read it before calling a :func:`direct_target` themselves)
JIT = _jc


#: set by graph mode while it records a region (see ``msnb/adapter/graph/capture.py``)
write_hook = None


_shape = _TensorPy.shape.__get__

#: ``__dict__`` keys where adapter ops record a result's dtype and shape (see
#: ``msnb/adapter/torch/_tensor.py``); kept right here because this is the one
#: place a tensor's data changes under its Python identity
META = ("_dt", "_sh")


def set_data(dst, src) -> None:
    """Make ``dst`` hold ``src``'s data (shape and dtype included), keeping
    ``dst``'s Python identity.

    A plain tensor gets ``src``'s data pointer (``_update_data``, ~0.3 us;
    MindSpore's public ``assign_value`` refuses tensors that were inputs of a
    differentiated function and costs ~100x more).  A Parameter is written in
    place (``_assign``) instead, because MindSpore graphs that hold it
    (its optimizers, ``ms.jit`` functions) keep pointing at its memory.

    Guarantee: before a data pointer moves, the kernels producing ``src``
    and ``dst`` have run.  MindSpore runs PyNative kernels asynchronously and
    reading a tensor's shape with its own getter waits for the kernel behind
    it; the adapter reads dtypes and shapes from its metadata cache instead
    (which never waits), so without this wait the pointer of a still-queued
    result could be handed on.  The wait costs ~0.25 us when the kernels
    have run; when they have not, ``_update_data`` (MindSpore 2.10) waits for
    the pipeline anyway, so an in-place write costs one round trip to the
    kernel thread either way.  The in-place copy is itself a queued kernel and
    needs no wait.

    ``dst``'s recorded dtype/shape (``META``) become ``src``'s, or are
    dropped when ``src`` has none; they are dropped before the write, so a
    write that fails half-way leaves none that could be wrong.  A Parameter
    never carries them, since MindSpore's own ``Parameter.set_data`` can
    change it behind msnb's back."""
    d = dst.__dict__
    for k in META:
        d.pop(k, None)
    hook = write_hook
    # a tensor over shared memory (alias_host) is written into that memory, as a Parameter is
    param = isinstance(dst, _Parameter) or SHARED in d
    if hook is None and param and dst.shape == src.shape and dst.dtype == src.dtype:
        _assign(dst, src)
        return
    _shape(src)
    _shape(dst)
    if hook is not None:  # graph mode is recording: the write becomes a graph output
        hook(dst, src)
    else:
        _update(dst, src)
        if SHARED in d:  # a new shape or dtype: the data is no longer the shared buffer
            del d[SHARED]
    sd = getattr(src, "__dict__", None)
    if sd is not None and not param:
        for k in META:
            v = sd.get(k)
            if v is not None:
                d[k] = v


def refill_parameter(p, data) -> None:
    """Give the Parameter ``p`` the data ``data`` of another shape, keeping ``p``'s identity
    (PyTorch's ``UninitializedParameter.materialize``): ``_update_data`` moves the data, and
    MindSpore's Parameter part is initialised again over it.  PyNative also keeps the shape it
    inferred for the Parameter (``assign``, which writes optimizer updates into it, then refused
    the new rank) until its executor's resources are cleared, as MindSpore does itself after a
    failed op: ``clear_res`` (once per lazy parameter, at a module's first call)."""
    from mindspore.common.api import _pynative_executor
    name, requires_grad = p.name, bool(p.requires_grad)
    for k in META:
        p.__dict__.pop(k, None)
    _shape(data)
    _update(p, data)
    _Parameter.__init__(p, p, requires_grad=requires_grad)
    p.name = name
    _pynative_executor.clear_res()


#: ``__dict__`` key of a tensor whose data is a shared host buffer (see :func:`alias_host`)
SHARED = "_msnb_shared"


def alias_host(dst, array, holder) -> None:
    """Make ``dst``'s data *be* the C-contiguous numpy ``array`` (no copy).

    MindSpore's ``Tensor.from_numpy`` wraps the buffer (keeping a reference
    to ``array``); ``_update_data`` hands that data to ``dst``.  On CPU,
    kernels then read the buffer when they run, and :func:`set_data` writes
    ``dst`` in place with ``ops.assign``, which stores into the buffer: so a
    buffer in shared memory is seen and updated by every process that maps
    it.  ``holder`` (what keeps the buffer mapped) is kept on ``dst``."""
    _shape(dst)
    d = dst.__dict__
    for k in META:
        d.pop(k, None)
    _update(dst, ms.Tensor.from_numpy(array))
    d[SHARED] = holder


def wait_all() -> None:
    """Wait until every queued PyNative kernel has run (their writes are in memory)."""
    from mindspore.common.api import _pynative_executor
    _pynative_executor.sync()


def device_target() -> str:
    """``"CPU"``, ``"Ascend"`` or ``"GPU"``: where MindSpore runs kernels now."""
    return ms.get_context("device_target")


# --- gradient primitives MindSpore keeps private ---------------------------------------
# msnb's conv/pool backward calls the same kernels MindSpore's own autodiff uses,
# computing only the gradients that are needed (an input image needs none).
import functools  # noqa: E402

from mindspore.ops import operations as _P  # noqa: E402
from mindspore.ops.operations import _grad_ops as _G  # noqa: E402


@functools.lru_cache(maxsize=256)
def conv2d_prims(out_channel, kernel_size, pad_mode, pad, stride, dilation, groups):
    """``(forward, grad_input, grad_filter)`` primitives for one conv configuration."""
    fwd = _P.Conv2D(out_channel, kernel_size, mode=1, pad_mode=pad_mode, pad=pad, stride=stride,
                    dilation=dilation, group=groups)
    pad_list = tuple(pad) if pad_mode == "pad" else (0, 0, 0, 0)
    bpi = _P.Conv2DBackpropInput(out_channel, kernel_size, pad_mode=pad_mode, pad=pad, pad_list=pad_list,
                                 stride=stride, dilation=dilation, group=groups)
    bpf = _G.Conv2DBackpropFilter(out_channel, kernel_size, pad_mode=pad_mode, pad=pad, pad_list=pad_list,
                                  stride=stride, dilation=(1, 1) + tuple(dilation), group=groups)
    return fwd, bpi, bpf


@functools.lru_cache(maxsize=64)
def lstm_prims(input_size, hidden_size, has_bias, proj_size):
    """``(forward, grad)``: MindSpore's fused one-layer, one-direction LSTM kernel and the
    gradient kernel its own autodiff uses (``LSTMGrad`` is private).

    The weight is one flat ``(n, 1, 1)`` tensor: ``weight_ih``, ``weight_hh``, then
    ``weight_hr`` (projection) and the summed biases, each row-major; the gate order is
    PyTorch's (i, f, g, o).  Forward ``(x, h0, c0, w) -> (y, h_n, c_n, reserve, state)``;
    grad ``(x, h0, c0, w, y, h_n, c_n, dy, dh_n, dc_n, reserve) -> (dx, dh0, dc0, dw)``.
    Float32 only: measured here, its float64 forward is ~5e-8 off PyTorch's (float32 inside)
    and its float64 gradients are wrong by O(1)."""
    return (_P.LSTM(input_size, hidden_size, 1, has_bias, False, 0.0, proj_size),
            _G.LSTMGrad(input_size, hidden_size, 1, has_bias, False, 0.0, proj_size))


# --- MindSpore's trace recorder: how graph mode builds graphs ---------------------------
# While a trace is open, every MindSpore primitive the adapter runs executes
# eagerly *and* is recorded; ``trace_end`` turns the record into a compiled
# graph whose inputs are the tensors given to ``trace_begin`` (any other
# tensor it read is a constant) and whose outputs are the tensors given to
# ``trace_end``.  ``trace_run`` replays it on new inputs.
import contextlib  # noqa: E402

from mindspore.graph import jit_trace as _jt  # noqa: E402
from mindspore.graph.api import _convert_python_data  # noqa: E402
from mindspore.graph.jit_context import jit_context as _jit_context  # noqa: E402
from mindspore.graph.jit_context import set_jit_context as _set_jit_context  # noqa: E402


class _TraceContext(_jt.TraceJitContext):
    """MindSpore's trace context, minus its per-op ``inspect.stack()`` walk
    (~1 ms per recorded op); graph nodes are tagged with the region's line."""

    where = ([""], [0])

    def args_preprocess(self, prim_name, prim_res, *args):
        args = tuple(_jt._convert_arg_for_operators(a, prim_name) for a in args)
        return prim_res, self.where[0], self.where[1], args

    def run_op(self, prim, prim_res, *args):
        # MindSpore's version formats every argument for a debug log first,
        # which prints (and so syncs) each tensor
        prim_res, files, lines, args = self.args_preprocess(prim.name, prim_res, *args)
        _jt.tr.get_instance().new_node(prim, (prim_res, files, lines, False), *args)
        return prim_res

    def prepare_op(self, prim_name, prim_res, *args):
        return self.args_preprocess(prim_name, prim_res, *args)

    def run_graph(self, phase, prim_res, *args):
        _jt.tr.get_instance().new_fg_node((prim_res, *self.where, phase, self._is_nested), *args)
        return prim_res


_TRACE = _TraceContext()
_RECORDER = _jt.tr.get_instance()
_JIT_CONFIGS: dict = {}


def _jit_config() -> dict:
    """The jit options msnb's recorded graphs compile and run with: MindSpore's defaults, or
    ``MSNB_JIT_LEVEL`` (``O0`` / ``O1``) to compare levels (benchmarks/graph_step_cpu.py)."""
    level = os.environ.get("MSNB_JIT_LEVEL", "")
    if not level:
        return _jt._DEFAULT_JIT_CONFIG
    cfg = _JIT_CONFIGS.get(level)
    if cfg is None:
        from mindspore.graph.jit_config import JitConfig
        cfg = _JIT_CONFIGS[level] = JitConfig(jit_level=level).jit_config_dict
    return cfg


def trace_open() -> bool:
    """Whether any MindSpore trace or jit context is active (nesting is not allowed)."""
    return _jit_context() is not None or _jt._using_trace


def trace_begin(phase: str, inputs, where=("", 0)) -> None:
    """Start recording a graph named ``phase`` (must contain a ``.``) over ``inputs``."""
    _TRACE.where = ([where[0]], [where[1]])
    _TRACE.set_is_nested(False)
    _set_jit_context(_TRACE)
    try:
        _RECORDER.begin_graph(phase.split(".")[0], phase, [where[0]], [where[1]], *inputs)
    except BaseException:
        _set_jit_context(None)
        _recorder_clean(inputs[0] if inputs else None)
        raise


def trace_pass(src, dst) -> None:
    """``dst`` now holds ``src``'s value (an in-place write): later recorded reads of ``dst`` see ``src``."""
    _RECORDER.pass_node(src, dst)


def trace_end(outputs) -> None:
    """Close the open trace and compile it with ``outputs`` as the graph's outputs."""
    try:
        _RECORDER.end_graph(*_TRACE.where, _jit_config(), *outputs)
    finally:
        _set_jit_context(None)


def trace_abandon(output=None) -> None:
    """Stop recording without using the record.  MindSpore has no "discard":
    the record is closed with one trivial output and never run."""
    try:
        if output is not None and _jit_context() is _TRACE:
            _RECORDER.end_graph(*_TRACE.where, _jit_config(), output)
    except BaseException:  # e.g. KeyboardInterrupt inside MindSpore's compiler
        _set_jit_context(None)
        _recorder_clean(output)
        raise
    finally:
        _set_jit_context(None)


@contextlib.contextmanager
def untraced():
    """Run kernels without recording them, inside an open trace."""
    ctx = _jit_context()
    _set_jit_context(None)
    try:
        yield
    finally:
        _set_jit_context(ctx)


def trace_reset(output) -> None:
    """After a failed ``trace_end``: make sure no record stays open."""
    _set_jit_context(None)
    _recorder_clean(output)


def _recorder_clean(probe) -> bool:
    """Leave MindSpore's C++ trace recorder with no graph open; True when it is.

    ``end_graph`` that fails half-way (a ``KeyboardInterrupt`` raised in a
    Python callback of MindSpore's compiler, a compile error) leaves the C++
    recorder believing a trace is open: from then on every PyBoost kernel
    call hands its result to the Python trace context, which is gone
    (``'NoneType' object has no attribute 'run_op'``), so no op works in the
    kernel any more.  The recorder has no "discard"; what clears it is
    opening a graph: while one is still open, ``begin_graph`` refuses
    ("maximum nesting level ... is one") and closes it; when none is open,
    the probe graph (``probe`` in, ``probe`` out) is closed at once.  Runs
    only on these error paths (one trivial compile)."""
    if probe is None:
        import numpy as np
        probe = ms.Tensor(np.zeros((1,), np.float32))
    for _ in range(2):
        _set_jit_context(_TRACE)
        try:
            _RECORDER.begin_graph("msnb_reset", "msnb_reset.probe", [""], [0], probe)
        except RuntimeError:  # a graph was still open: refused and closed
            continue
        else:
            try:
                _RECORDER.end_graph([""], [0], _jt._DEFAULT_JIT_CONFIG, probe)
                return True
            except Exception:  # noqa: BLE001 - try once more from a clean begin
                continue
        finally:
            _set_jit_context(None)
    return False


def sync() -> None:
    """Wait until every kernel launched so far has run (``mindspore.runtime.synchronize``
    logs "CPU device is not supported" on CPU and does not wait there)."""
    from mindspore.common.api import _pynative_executor
    _pynative_executor.sync()


def trace_run(phase: str, inputs) -> tuple:
    """Run compiled graph ``phase`` on ``inputs``; always returns a tuple of MindSpore tensors."""
    out = _convert_python_data(_RECORDER.run_graph(phase, _jit_config(), tuple(inputs)))
    if _HOST_BLOCKING_ENV[0]:
        _host_blocking_env_read()
    return out if isinstance(out, tuple) else (out,)


#: ``[True]`` until the first graph run: whether ``MS_DEV_HOST_BLOCKING_RUN`` may still be msnb's
_HOST_BLOCKING_ENV = [True]


def _host_blocking_env_read() -> None:
    """After the first graph run MindSpore has read ``MS_DEV_HOST_BLOCKING_RUN`` (once, at the first
    task it queued: msnb.runtime.context sets it with synchronous launch).  When msnb set it, it
    leaves the environment now, so that programs this process starts (``!python x.py`` in a
    notebook) run MindSpore's queues as they would have."""
    _HOST_BLOCKING_ENV[0] = False
    if os.environ.pop("MSNB_HOST_BLOCKING_RUN", None) is not None:
        os.environ.pop("MS_DEV_HOST_BLOCKING_RUN", None)
