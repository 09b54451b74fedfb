"""``torch.nn.Module`` with PyTorch's registration, traversal, state-dict and
hook semantics -- and also a MindSpore ``Cell``.

Being a Cell (with parameters that are ``mindspore.Parameter`` s) lets the
MindSpore-side training styles of the MSAdapter guide run on msnb models:
``nn.SGD(net.trainable_params())`` with ``value_and_grad``, ``Model.train``,
``WithLossCell`` + ``TrainOneStepCell``.  PyTorch semantics win where the two
disagree: calling a module runs PyTorch's hook protocol and ``forward``; the
Cell methods MindSpore itself calls (``trainable_params``, ``construct``,
``cells_and_names``, ``set_train``...) are answered from the PyTorch
registries.  A user attribute whose name a Cell already uses (``self.phase``,
which MSAdapter users had to rename) is stored and read back unchanged.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

import mindspore as ms

from ..._tensor import Tensor
from ..parameter import Parameter
from ...amp import policy as _amp_policy
from .... import graph as _graph
from ....graph import step as _graph_step

__all__ = ["Module"]


class _IncompatibleKeys(tuple):
    def __new__(cls, missing, unexpected):
        obj = super().__new__(cls, (missing, unexpected))
        obj.missing_keys, obj.unexpected_keys = missing, unexpected
        return obj

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"


class _Handle:
    _next = itertools.count()

    def __init__(self, d):
        self.id = next(self._next)
        self._d = d

    def remove(self):
        self._d.pop(self.id, None)


class _UserFirst:
    """Shadows one of Cell's properties: whatever was last assigned (by the
    user or by MindSpore) is what reads back, so ``self.phase = x`` works."""

    def __init__(self, name):
        self.name = name
        self.cell_prop = getattr(ms.nn.Cell, name)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        shadow = obj.__dict__.get("_msnb_shadow")
        if shadow is not None and self.name in shadow:
            return shadow[self.name]
        return self.cell_prop.__get__(obj, owner)

    def __set__(self, obj, value):
        obj.__dict__.setdefault("_msnb_shadow", {})[self.name] = value


_CELL_PROPERTIES = [n for n in dir(ms.nn.Cell)
                    if not n.startswith("_") and isinstance(getattr(ms.nn.Cell, n, None), property)]


def _adapt_inputs(args):
    """Plain MindSpore tensors (e.g. from ``mindspore.dataset``) become adapter tensors."""
    if not any(type(a) is ms.Tensor for a in args):
        return args
    from ..._interop import cast_to_adapter_tensor
    return tuple(cast_to_adapter_tensor(a) if type(a) is ms.Tensor else a for a in args)


def _refusing_meta(cls, init):
    """``init`` of one of msnb's layers, refusing ``device="meta"`` (see ``_device.refuse_meta``)."""
    import functools
    import inspect
    names = list(inspect.signature(init).parameters)
    if "device" not in names:
        return init
    pos = names.index("device") - 1  # among the arguments after self

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        d = kwargs.get("device", args[pos] if len(args) > pos else None)
        if d is not None:
            from ..._device import refuse_meta
            refuse_meta(d, f"torch.nn.{type(self).__name__}(device='meta')")
        init(self, *args, **kwargs)

    return wrapper


class Module(ms.nn.Cell):
    """msnb implementation of ``torch.nn.Module`` (also a ``mindspore.nn.Cell``)."""

    training: bool
    _version = 1

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("msnb.adapter.") and "__init__" in vars(cls):
            cls.__init__ = _refusing_meta(cls, cls.__init__)

    def __init__(self, *args, **kwargs):
        """Initialize the module's state: parameters, buffers and submodules (as
        ``torch.nn.Module.__init__``; subclasses' ``__init__`` without a docstring show this)."""
        ms.nn.Cell.__init__(self)
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = set()

    forward = None

    def construct(self, *args, **kwargs):
        """What MindSpore calls: PyTorch's ``forward``."""
        return self.forward(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        args = _adapt_inputs(args)
        if _graph.STATE.enabled:
            return _graph_step.module_call(self, args, kwargs, self._call_eager)
        return self._call_eager(args, kwargs)

    def _call_eager(self, args, kwargs):
        d = self.__dict__
        if d["_forward_pre_hooks"]:
            kw_hooks = d["_forward_hooks_with_kwargs"]
            for hid, h in list(d["_forward_pre_hooks"].items()):
                if ("pre", hid) in kw_hooks:  # with_kwargs=True: hook(module, args, kwargs) -> (args, kwargs)
                    r = h(self, args, kwargs)
                    if r is not None:
                        if not (isinstance(r, tuple) and len(r) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {r}.")
                        args, kwargs = r
                    continue
                r = h(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        if self.forward is None:
            raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')
        out = (_amp_policy.call_module(self, self.forward, args, kwargs) if _amp_policy.engaged()
               else self.forward(*args, **kwargs))
        if d["_forward_hooks"]:
            for hid, h in list(d["_forward_hooks"].items()):
                r = h(self, args, kwargs, out) if ("post", hid) in d["_forward_hooks_with_kwargs"] else \
                    h(self, args, out)
                if r is not None:
                    out = r
        return out

    # --- attribute registration -------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if params is None:
            if isinstance(value, (Parameter, Module)):
                raise AttributeError("cannot assign parameters/modules before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Parameter):
            self._drop(name)
            params[name] = value
            d["_params"][name] = value
        elif name in params:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = value
        elif isinstance(value, Module):
            if name not in d["_modules"]:  # a submodule replaced keeps its place (Sequential order), as PyTorch
                self._drop(name)
            d["_modules"][name] = value
            d["_cells"][name] = value
        elif name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = value
        elif name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            d["_buffers"][name] = value
        elif isinstance(value, Tensor) and "_buffer_persistent" in value.__dict__:
            self.register_buffer(name, value, persistent=value.__dict__.pop("_buffer_persistent"))
        else:
            object.__setattr__(self, name, value)

    def _drop(self, name):
        d = self.__dict__
        d.pop(name, None)
        for k in ("_parameters", "_buffers", "_modules", "_params", "_cells"):
            d[k].pop(name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for k in ("_parameters", "_buffers", "_modules"):
            store = d.get(k)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for k in ("_parameters", "_buffers", "_modules"):
            if name in d[k]:
                self._drop(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers) | set(self._modules))

    def register_parameter(self, name, param):
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._drop(name)
        self._parameters[name] = param
        if param is not None:
            self.__dict__["_params"][name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._drop(name)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._drop(name)
        self._modules[name] = module
        if module is not None:
            self.__dict__["_cells"][name] = module

    register_module = add_module

    def get_submodule(self, target):
        mod = self
        for item in target.split(".") if target else []:
            mod = getattr(mod, item)
        return mod

    def get_parameter(self, target):
        mod, _, name = target.rpartition(".")
        return getattr(self.get_submodule(mod), name)

    # --- traversal ---------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, attr, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mp, m in mods:
            for k, v in getattr(m, attr).items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield mp + ("." if mp else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # --- what MindSpore asks a Cell ----------------------------------------------------
    def _named_ms_parameters(self, prefix=""):
        for name, p in self.named_parameters(prefix=prefix):
            p.name = name  # MindSpore optimizers and the MSAdapter guide filter on ``param.name``
            yield name, p

    def parameters_and_names(self, name_prefix="", expand=True):
        yield from self._named_ms_parameters(name_prefix)

    def get_parameters(self, expand=True):
        for _, p in self._named_ms_parameters():
            yield p

    def trainable_params(self, recurse=True):
        return [p for _, p in self._named_ms_parameters() if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for _, p in self._named_ms_parameters() if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        return OrderedDict(self._named_ms_parameters())

    def cells_and_names(self, cells=None, name_prefix=""):
        yield from self.named_modules(prefix=name_prefix)

    def name_cells(self):
        return OrderedDict(self.named_children())

    def cells(self):
        return list(self.children())

    def set_train(self, mode=True):
        self.train(bool(mode))
        return self

    # --- modes and conversions ----------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad = p.grad.detach() * 0

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply_tensors(self, fn):
        from ..._core import K
        from ...._ms import set_data
        for m in self.modules():
            for k, p in m._parameters.items():
                if p is not None:
                    new = fn(p)
                    if new is not p:
                        set_data(p, K.identity(new.detach()))
                        if p.grad is not None:
                            p.grad = fn(p.grad)
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        from ... import _dtype as D
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, D.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")
        return self._apply_tensors(lambda t: t.to(dtype) if t.dtype.is_floating_point else t)

    def float(self):
        from ... import _dtype as D
        return self._apply_tensors(lambda t: t.float() if t.dtype.is_floating_point else t)

    def double(self):
        return self._apply_tensors(lambda t: t.double() if t.dtype.is_floating_point else t)

    def half(self):
        return self._apply_tensors(lambda t: t.half() if t.dtype.is_floating_point else t)

    def bfloat16(self):
        return self._apply_tensors(lambda t: t.bfloat16() if t.dtype.is_floating_point else t)

    def cuda(self, device=None):
        return self

    def cpu(self):
        return self

    def npu(self, device=None):
        return self

    def type(self, dst_type):
        return self.to(dst_type)

    # --- hooks ----------------------------------------------------------------------
    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        h = _Handle(self._forward_hooks)
        self._forward_hooks[h.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(("post", h.id))
        if prepend:
            self._forward_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        h = _Handle(self._forward_pre_hooks)
        self._forward_pre_hooks[h.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(("pre", h.id))
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    # --- state dict -----------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """msnb implementation of ``Module.load_state_dict``: copies values in place."""
        from ..._tensor import Tensor as T
        from ...autograd.grad_mode import no_grad
        missing, unexpected, errors = [], [], []
        own = {}
        for mp, m in self.named_modules():
            pre = mp + ("." if mp else "")
            if "_checkpoint_wrapped_module." in pre:  # an activation-checkpoint wrapper's keys omit its segment
                pre = pre.replace("_checkpoint_wrapped_module.", "")
            for k, p in m._parameters.items():
                if p is not None:
                    own[pre + k] = (m, "_parameters", k)
            for k, b in m._buffers.items():
                if b is not None and k not in m._non_persistent_buffers_set:
                    own[pre + k] = (m, "_buffers", k)
        for key in own:
            if key not in state_dict:
                missing.append(key)
        for key in state_dict:
            if key not in own:
                unexpected.append(key)
        for key, (m, store, k) in own.items():
            if key not in state_dict:
                continue
            src = state_dict[key]
            if not isinstance(src, T):
                from ..._ops.creation import tensor
                src = tensor(src)
            dst = getattr(m, store)[k]
            if type(dst).__name__ in ("UninitializedParameter", "UninitializedBuffer") and \
                    hasattr(m, "_lazy_materialize"):
                m._lazy_materialize(k, tuple(src.shape))  # a lazy module takes the checkpoint's shape
            if tuple(src.shape) != tuple(dst.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape {src.shape} from "
                              f"checkpoint, the shape in current model is {dst.shape}.")
                continue
            with no_grad():
                dst.copy_(src)
        if strict and (missing or unexpected):
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # --- repr ------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = repr(module).replace("\n", "\n  ")
            child_lines.append("(" + key + "): " + mod_str)
        lines = lines + child_lines
        main = type(self).__name__ + "("
        if lines:
            if len(extra_lines := (extra.split("\n") if extra else [])) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)

    def share_memory(self):
        """msnb implementation of ``Module.share_memory``: parameters, their gradients and
        buffers move to shared memory (``Tensor.share_memory_``)."""
        for p in self.parameters():
            p.share_memory_()
            if p.grad is not None:
                p.grad.share_memory_()
        for b in self.buffers():
            b.share_memory_()
        return self


for _name in _CELL_PROPERTIES:
    if _name not in Module.__dict__:
        setattr(Module, _name, _UserFirst(_name))
del _name
