"""``torch.optim.Optimizer``: param groups, state, ``zero_grad``, state dicts.

The update rules of the concrete optimizers follow PyTorch's single-tensor
(``foreach=False``) implementations operation by operation, so parameters
match PyTorch's to float32 rounding.  They run on MindSpore kernels directly
(``K``) under ``no_grad``: an optimizer step is the hot loop of training and
every adapter-level nicety (promotion, autograd recording, ``out=``) would
cost time there for nothing.  The helpers below are the handful of
primitives they share; each states the PyTorch expression it reproduces and
how many kernels it launches.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from ... import graph as _graph
from ...graph import capture as _graph_capture
from ...graph import step as _graph_step
from .. import _core
from .._core import K, wrap
from ..._ms import ms, set_data
from ..autograd.grad_mode import enable_grad, no_grad

__all__ = ["Optimizer", "required"]

_F64 = ms.float64
_F32 = _core.D.float32
_Tensor64 = ms.Tensor


class _RequiredParameter:
    """Singleton marking a hyper-parameter a param group must set (``torch.optim.optimizer.required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


# --- update primitives (MindSpore kernels on adapter tensors, no autograd) --------------

def sc(x, a):
    """The scalar operand ``a`` for a kernel on ``x``.

    MindSpore rounds a Python float operand to float32 even against a float64
    tensor; PyTorch keeps float64 math in float64.  Float64 tensors therefore
    get a float64 0-d tensor; float32 ones keep the cheap Python scalar.  A
    0-d tensor ``a`` (a step-dependent number while graph mode records) is
    cast to ``x``'s dtype."""
    if isinstance(a, ms.Tensor):
        return a if a.dtype == x.dtype else K.cast(a, x.dtype)
    if x.dtype == _F64:
        return _Tensor64(np.float64(a))
    return a


def scaled(x, a):
    """``a * x`` (torch's ``alpha=``/``value=`` scaling); no kernel when ``a == 1``."""
    if isinstance(a, ms.Tensor):
        return K.mul(x, sc(x, a))
    return x if a == 1 else K.mul(x, sc(x, a))


def axpy(x, y, a=1):
    """``x.add(y, alpha=a)``: 1 kernel, 2 with a scale other than float32's.

    Float32 with a Python number ``a`` is MindSpore's add with ``alpha`` (one kernel, rounded
    once, as PyTorch's CPU kernel rounds it); other dtypes and a tensor ``a`` multiply first."""
    if isinstance(a, ms.Tensor):
        return K.add(x, scaled(y, a))
    if a == 1:
        return K.add(x, y)
    if type(a) is float and y.dtype is _F32 and x.dtype is _F32:
        return K.add_alpha(x, y, alpha=a)
    return K.add(x, scaled(y, a))


def addcmul(x, t1, t2, value=1):
    """``x.addcmul(t1, t2, value=value)`` in PyTorch's CPU order ``x + (value*t1)*t2``."""
    return K.add(x, K.mul(scaled(t1, value), t2))


def addcdiv(x, t1, t2, value=1):
    """``x.addcdiv(t1, t2, value=value)`` in PyTorch's CPU order ``x + (value*t1)/t2``."""
    return K.add(x, K.div(scaled(t1, value), t2))


def lerp(x, end, w):
    """``x.lerp(end, w)`` with PyTorch's two-branch formula (exact at ``w`` = 0 and 1)."""
    if w < 0.5:
        return K.add(x, K.mul(K.sub(end, x), sc(x, w)))
    return K.sub(end, K.mul(K.sub(end, x), sc(x, 1 - w)))


def assign(t, new):
    """Write ``new`` (a fresh kernel output) into ``t`` in place, through every alias of ``t``."""
    _core.inplace(t, wrap(new))


def grad_of(p, maximize):
    """The gradient an update uses: ``-p.grad`` when maximizing."""
    g = p.grad
    return wrap(K.neg(g)) if maximize else g


def bump_step(step_t) -> float:
    """``step_t += 1`` on a state ``step`` tensor; returns the new value as a float.

    PyTorch keeps ``step`` as a 0-d float32 tensor (so it round-trips through
    state dicts); msnb keeps that tensor but also remembers its value on the
    object, so a step needs neither a kernel nor a device->host read.

    While graph mode records the step, the count is a graph value: the
    increment is a kernel and the count comes back as a float64 0-d tensor,
    so the numbers derived from it (Adam's bias corrections) are computed in
    the graph -- in float64, as PyNative computes them in Python -- rather
    than baked in as the recorded step's constants."""
    if _graph_capture.current() is not None:
        step_t.__dict__.pop("_msnb_step", None)
        set_data(step_t, wrap(K.add(step_t, sc(step_t, 1.0))))
        return wrap(K.cast(step_t, _F64))
    v = step_t.__dict__.get("_msnb_step")
    if v is None:
        v = float(step_t.item())
    v += 1.0
    set_data(step_t, wrap(_step_data(v, step_t.dtype.numpy)))
    step_t._msnb_step = v
    return v


def step_tensor(value=0.0):
    """A fresh ``step`` state entry: a 0-d float32 tensor, as PyTorch stores it."""
    t = wrap(_step_data(value, np.float32))
    t._msnb_step = float(value)
    return t


def _step_data(v, np_dtype):
    from .._ops.creation import tensor
    return tensor(np.asarray(v, dtype=np_dtype))


class Optimizer:
    """msnb implementation of ``torch.optim.Optimizer``.

    Subclasses implement ``_step_group(group)`` (PyTorch's per-group body of
    ``step``); :meth:`step` runs it for every group under ``no_grad`` after
    evaluating the optional closure with grad enabled."""

    def __init__(self, params, defaults):
        from .._tensor import Tensor
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(dict(param_group))

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # --- param groups -------------------------------------------------------------
    def add_param_group(self, param_group):
        """msnb implementation of ``Optimizer.add_param_group`` (PyTorch's checks and messages)."""
        from .._tensor import Tensor
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        names, tensors = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # --- gradients and steps ------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """msnb implementation of ``Optimizer.zero_grad``: drop grads, or zero them in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad = p.grad.detach()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (grad enabled)."""
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, (), {"closure": closure} if closure is not None else {})
            if result is not None:
                raise RuntimeError("msnb: optimizer step pre-hooks that rewrite arguments are not supported")
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            if _graph.STATE.enabled and closure is None:
                _graph_step.optimizer_step(self, self._step_groups)
            else:
                self._step_groups()
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, (), {})
        return loss

    def _step_groups(self):
        for group in self.param_groups:
            self._step_group(group)

    def _step_group(self, group):
        raise NotImplementedError(f"{type(self).__name__} does not implement step")

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before every ``step``; returns a handle with ``remove()``."""
        return _Handle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after every ``step``; returns a handle with ``remove()``."""
        return _Handle(self._optimizer_step_post_hooks, hook)

    # --- state dicts ----------------------------------------------------------------
    def state_dict(self):
        """PyTorch's format: ``state`` keyed by parameter index, ``param_groups`` with index lists.

        Like PyTorch, the per-parameter state dicts are the live ones (deep-copy to snapshot)."""
        mapping = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack(g) for g in self.param_groups]
        from .._tensor import Tensor
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        """Load a state dict from :meth:`state_dict` (or from PyTorch, tensors converted).

        State tensors are copied and cast to their parameter's dtype, except
        ``step``, which keeps its own dtype (PyTorch's policy)."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v)
            else:
                state[k] = v
        for g, ng in zip(groups, saved_groups):
            ng["params"] = g["params"]
            if "param_names" in g and "param_names" not in ng:
                ng["param_names"] = g["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _cast(param, value, key=None):
    """Deep-copy ``value``, making each tensor an msnb tensor of ``param``'s float dtype."""
    from ..._ms import TensorPy
    from .._ops.creation import tensor
    if isinstance(value, TensorPy) or (hasattr(value, "numpy") and hasattr(value, "dtype")
                                       and not isinstance(value, np.ndarray)):
        arr = value.numpy() if not isinstance(value, TensorPy) else np.asarray(value.asnumpy())
        if key != "step" and param.is_floating_point():
            arr = arr.astype(param.dtype.numpy)
        out = tensor(np.array(arr, copy=True))
        return out
    if isinstance(value, np.ndarray):
        if key != "step" and param.is_floating_point():
            value = value.astype(param.dtype.numpy)
        return tensor(np.array(value, copy=True))
    if isinstance(value, dict):
        return {k: _cast(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


class _Handle:
    """What ``register_*_hook`` returns: ``remove()`` unregisters the hook."""

    _next_id = 0

    def __init__(self, table, hook):
        self._table = table
        self.id = _Handle._next_id
        _Handle._next_id += 1
        table[self.id] = hook

    def remove(self):
        self._table.pop(self.id, None)


def _typename(obj):
    from .._tensor import Tensor
    if isinstance(obj, Tensor):
        return "torch.FloatTensor" if obj.is_floating_point() else type(obj).__name__
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"
