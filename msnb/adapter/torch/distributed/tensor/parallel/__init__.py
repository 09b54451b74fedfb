"""msnb implementation of ``torch.distributed.tensor.parallel``: Megatron-style tensor parallelism on a 1-D mesh.

``parallelize_module(module, mesh, {"w1": ColwiseParallel(), "w2": RowwiseParallel()})``
shards each named ``nn.Linear`` (and ``nn.Embedding`` for colwise) as PyTorch
does -- colwise: ``weight`` and ``bias`` on dim 0 (an embedding's weight on
dim 1); rowwise: ``weight`` on dim 1, ``bias`` replicated -- starting from
rank ``src_data_rank``'s values.  The module's forward then runs on the local
pieces with PyTorch's collectives: colwise sums the input's gradient over the
mesh in backward; rowwise sums the partial outputs in forward (all-reduce, or
reduce-scatter for a sharded output layout).  ``SequenceParallel`` runs
``LayerNorm`` / ``Dropout`` on sequence shards and sums the norm's weight
gradients.  ``PrepareModuleInput`` / ``PrepareModuleOutput`` turn a
module's inputs / outputs into DTensors of the given layouts and redistribute
them (hooks, as PyTorch's).  The sharded weights are msnb ``Parameter``s of
the local piece (``p.shape`` is local; ``p.full_tensor()`` gathers).
"""

from __future__ import annotations

import fnmatch
import types

from ..._missing_names import module_getattr as _module_getattr
from .. import _collectives as C
from .._api import DTensor, distribute_tensor
from .._sharded import ShardedParameter
from ..placement_types import Replicate, Shard

__all__ = ["ParallelStyle", "ColwiseParallel", "RowwiseParallel", "SequenceParallel", "PrepareModuleInput",
           "PrepareModuleOutput", "PrepareModuleInputOutput", "parallelize_module"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _nn():
    from .... import nn
    return nn


def _one(layouts, default):
    if layouts is None:
        return (default,)
    return tuple(layouts) if isinstance(layouts, (tuple, list)) else (layouts,)


def _shard_param(module, name, mesh, placement, src_data_rank):
    p = module._parameters.get(name)
    if p is None:
        return
    d = distribute_tensor(p.detach(), mesh, [placement], src_data_rank=src_data_rank)
    sp = ShardedParameter(d.to_local().detach(), p.requires_grad, dspec=(mesh, d.placements, d.shape))
    setattr(module, name, sp)


def _as_local(x, mesh, layouts, desired, global_last=None):
    """A module input as this rank's local tensor in the ``desired`` layout."""
    if isinstance(x, DTensor):
        dt = x
    else:
        shape = None
        if global_last is not None and isinstance(layouts[0], Shard) and layouts[0].dim % x.dim() == x.dim() - 1:
            shape = tuple(x.shape[:-1]) + (global_last,)
        dt = DTensor.from_local(x, mesh, layouts, shape=shape)
    if dt.placements != tuple(desired) and not (isinstance(desired[0], Shard) and dt.placements[0] ==
                                                Shard(desired[0].dim % dt.ndim)):
        dt = dt.redistribute(mesh, desired)
    return dt.to_local(), dt


def _install(module, prepare, forward):
    """``prepare`` turns the first input into the local tensor ``forward`` computes on.  It runs as a
    forward pre-hook, as PyTorch's input_fn does (which also keeps msnb graph mode off the module: its
    collectives read host memory)."""
    def pre(mod, args):
        return (prepare(args[0]),) + tuple(args[1:])

    module.register_forward_pre_hook(pre)
    module.forward = types.MethodType(forward, module)
    return module


def _output(local, mesh, placement, shape, layouts, use_local):
    dt = DTensor.from_local(local, mesh, [placement], shape=shape)
    if dt.placements != tuple(Shard(p.dim % len(shape)) if isinstance(p, Shard) else p for p in layouts):
        dt = dt.redistribute(mesh, layouts)
    return dt.to_local() if use_local else dt


class ParallelStyle:
    """Base of the parallel styles (PyTorch's ``ParallelStyle``)."""

    src_data_rank = 0

    def _apply(self, module, device_mesh):  # pragma: no cover - every style overrides it
        raise NotImplementedError


class ColwiseParallel(ParallelStyle):
    """msnb implementation of ``ColwiseParallel``: output features sharded (``Shard(-1)`` output)."""

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        self.input_layouts = _one(input_layouts, Replicate())
        self.output_layouts = _one(output_layouts, Shard(-1))
        self.desired_input_layouts = (Replicate(),)
        self.use_local_output = use_local_output

    def __repr__(self):
        return (f"ColwiseParallel(input_layouts={self.input_layouts}, output_layouts={self.output_layouts}, "
                f"use_local_output={self.use_local_output})")

    def _apply(self, module, mesh):
        nn = _nn()
        group = mesh.get_group(0)
        style = self
        if isinstance(module, nn.Linear):
            _shard_param(module, "weight", mesh, Shard(0), self.src_data_rank)
            _shard_param(module, "bias", mesh, Shard(0), self.src_data_rank)
            out_features = module.out_features

            def prepare(x):
                return C.all_reduce_backward(_as_local(x, mesh, style.input_layouts, style.desired_input_layouts)[0],
                                             group)

            def forward(self_, local):
                y = nn.functional.linear(local, self_.weight, self_.bias)
                return _output(y, mesh, Shard(-1), tuple(y.shape[:-1]) + (out_features,), style.output_layouts,
                               style.use_local_output)
        elif isinstance(module, nn.Embedding):
            _shard_param(module, "weight", mesh, Shard(1), self.src_data_rank)
            dim = module.embedding_dim

            def prepare(x):
                return _as_local(x, mesh, style.input_layouts, style.desired_input_layouts)[0]

            def forward(self_, local):
                y = nn.functional.embedding(local, self_.weight, self_.padding_idx, self_.max_norm,
                                            self_.norm_type, self_.scale_grad_by_freq, self_.sparse)
                return _output(y, mesh, Shard(-1), tuple(y.shape[:-1]) + (dim,), style.output_layouts,
                               style.use_local_output)
        else:
            raise NotImplementedError(f"ColwiseParallel on {type(module).__name__} is not supported by msnb yet: "
                                      f"nn.Linear and nn.Embedding ({_SUPPORT})")
        return _install(module, prepare, forward)


class RowwiseParallel(ParallelStyle):
    """msnb implementation of ``RowwiseParallel``: input features sharded, partial outputs summed."""

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        self.input_layouts = _one(input_layouts, Shard(-1))
        self.output_layouts = _one(output_layouts, Replicate())
        self.use_local_output = use_local_output

    def __repr__(self):
        return (f"RowwiseParallel(input_layouts={self.input_layouts}, output_layouts={self.output_layouts}, "
                f"use_local_output={self.use_local_output})")

    def _apply(self, module, mesh):
        nn = _nn()
        if not isinstance(module, nn.Linear):
            raise NotImplementedError(f"RowwiseParallel on {type(module).__name__} is not supported by msnb yet: "
                                      f"nn.Linear only ({_SUPPORT})")
        _shard_param(module, "weight", mesh, Shard(1), self.src_data_rank)
        if module.bias is not None:  # replicated: rank src_data_rank's values on every rank
            _shard_param(module, "bias", mesh, Replicate(), self.src_data_rank)
        style, in_features = self, module.in_features
        group = mesh.get_group(0)

        def prepare(x):
            return _as_local(x, mesh, style.input_layouts, (Shard(-1),), global_last=in_features)[0]

        def forward(self_, local):
            partial = nn.functional.linear(local, self_.weight)
            out = style.output_layouts[0]
            if isinstance(out, Replicate):
                y = C.all_reduce_forward(partial, group)
                if self_.bias is not None:
                    y = y + self_.bias
                return y if style.use_local_output else DTensor.from_local(y, mesh, [Replicate()])
            if not isinstance(out, Shard):
                raise NotImplementedError(f"RowwiseParallel(output_layouts={out}) is not supported by msnb yet "
                                          f"({_SUPPORT})")
            dim = out.dim % partial.dim()
            y = C.local_chunk(C.all_reduce_backward(C.all_reduce_forward(partial, group), group), dim, group)
            if self_.bias is not None:
                y = y + (C.local_chunk(self_.bias, 0, group) if dim == partial.dim() - 1 else self_.bias)
            dt = DTensor.from_local(y, mesh, [Shard(dim)], shape=tuple(partial.shape))
            return dt.to_local() if style.use_local_output else dt

        return _install(module, prepare, forward)


class SequenceParallel(ParallelStyle):
    """msnb implementation of ``SequenceParallel``: ``LayerNorm`` / ``Dropout`` on sequence shards."""

    def __init__(self, *, sequence_dim: int = 1, use_local_output: bool = False):
        self.sequence_sharding = (Shard(sequence_dim),)
        self.use_local_output = use_local_output

    def __repr__(self):
        return f"SequenceParallel(sequence_dim={self.sequence_sharding[0].dim}, use_local_output={self.use_local_output})"

    def _apply(self, module, mesh):
        nn = _nn()
        group = mesh.get_group(0)
        style = self
        if isinstance(module, nn.LayerNorm):
            for name in ("weight", "bias"):
                _shard_param(module, name, mesh, Replicate(), self.src_data_rank)

            def compute(self_, local):
                w = None if self_.weight is None else C.all_reduce_backward(self_.weight, group)
                b = None if self_.bias is None else C.all_reduce_backward(self_.bias, group)
                return nn.functional.layer_norm(local, self_.normalized_shape, w, b, self_.eps)
        elif isinstance(module, nn.Dropout) or not any(True for _ in module.parameters()):
            original = module.forward

            def compute(self_, local):
                return original(local)
        else:
            raise NotImplementedError(f"SequenceParallel on {type(module).__name__} is not supported by msnb yet: "
                                      f"nn.LayerNorm, nn.Dropout and modules without parameters ({_SUPPORT})")

        seen = {}

        def prepare(x):
            local, seen["dt"] = _as_local(x, mesh, style.sequence_sharding, style.sequence_sharding)
            return local

        def forward(self_, local):
            dt = seen.pop("dt", None)
            if dt is None:  # forward called without __call__ (no pre-hook ran)
                local, dt = _as_local(local, mesh, style.sequence_sharding, style.sequence_sharding)
            out = DTensor.from_local(compute(self_, local), mesh, dt.placements, shape=dt.shape)
            return out.to_local() if style.use_local_output else out

        return _install(module, prepare, forward)


def _layouts(layouts):
    from ..placement_types import Placement
    return (layouts,) if isinstance(layouts, Placement) else (None if layouts is None else tuple(layouts))


def _to_layout(x, mesh, layout, desired, use_local):
    """One module input / output: as a DTensor of ``layout`` (a plain tensor is this rank's piece),
    redistributed to ``desired``; its local tensor when ``use_local``.  ``layout`` None: left alone."""
    import msnb.adapter.torch as torch
    if layout is None:
        return x
    if isinstance(x, DTensor):
        dt = x
    elif isinstance(x, torch.Tensor):
        dt = DTensor.from_local(x, mesh, (layout,))
    else:
        raise AssertionError("expecting input to be a torch.Tensor!")
    if desired is not None and layout != desired:
        dt = dt.redistribute(placements=(desired,))
    return dt.to_local() if use_local else dt


class PrepareModuleInput(ParallelStyle):
    """msnb implementation of ``PrepareModuleInput``: a forward pre-hook lays the module's inputs
    (positional, and keyword ones with ``input_kwarg_layouts``) out as DTensors and redistributes them."""

    def __init__(self, *, input_layouts=None, desired_input_layouts=None, input_kwarg_layouts=None,
                 desired_input_kwarg_layouts=None, use_local_output=False):
        self.input_layouts = _layouts(input_layouts)
        self.desired_input_layouts = _layouts(desired_input_layouts)
        self.use_local_output = use_local_output
        if self.input_layouts is not None:
            if self.desired_input_layouts is None:
                raise AssertionError("desired module inputs should not be None!")
            if len(self.input_layouts) != len(self.desired_input_layouts):
                raise AssertionError("input_layouts and desired_input_layouts should have same length!")
        self.with_kwargs = input_kwarg_layouts is not None
        self.input_kwarg_layouts = input_kwarg_layouts or {}
        self.desired_input_kwarg_layouts = desired_input_kwarg_layouts or {}
        if self.with_kwargs and len(self.input_kwarg_layouts) != len(self.desired_input_kwarg_layouts):
            raise AssertionError("input_kwarg_layouts and desired_input_kwarg_layouts should have same length!")

    def __repr__(self):
        return (f"PrepareModuleInput(input_layouts={self.input_layouts}, desired_input_layouts="
                f"{self.desired_input_layouts}, input_kwarg_layouts={self.input_kwarg_layouts}, "
                f"desired_input_kwarg_layouts={self.desired_input_kwarg_layouts}, "
                f"use_local_output={self.use_local_output})")

    def _args(self, inputs, mesh):
        if self.input_layouts is None:
            return inputs
        inputs = inputs if isinstance(inputs, tuple) else (inputs,)
        if len(inputs) != len(self.input_layouts):
            raise ValueError("module inputs and input_layouts should have same length!")
        return tuple(_to_layout(x, mesh, lay, want, self.use_local_output)
                     for x, lay, want in zip(inputs, self.input_layouts, self.desired_input_layouts))

    def _apply(self, module, mesh):
        if self.with_kwargs:
            def pre(_, args, kwargs):
                return self._args(args, mesh), {
                    k: _to_layout(v, mesh, self.input_kwarg_layouts.get(k), self.desired_input_kwarg_layouts.get(k),
                                  self.use_local_output) for k, v in kwargs.items()}
            module.register_forward_pre_hook(pre, with_kwargs=True)
        else:
            module.register_forward_pre_hook(lambda _, args: self._args(args, mesh))
        return module


class PrepareModuleOutput(ParallelStyle):
    """msnb implementation of ``PrepareModuleOutput``: a forward hook lays the module's outputs out as
    DTensors of ``output_layouts`` and redistributes them to ``desired_output_layouts``."""

    def __init__(self, *, output_layouts, desired_output_layouts, use_local_output=True):
        self.output_layouts = _layouts(output_layouts)
        self.desired_output_layouts = _layouts(desired_output_layouts)
        self.use_local_output = use_local_output
        if len(self.output_layouts) != len(self.desired_output_layouts):
            raise AssertionError("output_layouts and desired_output_layouts should have same length!")

    def __repr__(self):
        return (f"PrepareModuleOutput(output_layouts={self.output_layouts}, desired_output_layouts="
                f"{self.desired_output_layouts}, use_local_output={self.use_local_output})")

    def _outputs(self, outputs, mesh):
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        if len(outputs) != len(self.output_layouts):
            raise ValueError("module outputs and output_layouts should have same length!")
        out = tuple(_to_layout(x, mesh, lay, want, self.use_local_output)
                    for x, lay, want in zip(outputs, self.output_layouts, self.desired_output_layouts))
        return out[0] if len(out) == 1 else out

    def _apply(self, module, mesh):
        module.register_forward_hook(lambda _, args, outputs: self._outputs(outputs, mesh))
        return module


class PrepareModuleInputOutput(ParallelStyle):
    """msnb implementation of ``PrepareModuleInputOutput``: PrepareModuleInput and PrepareModuleOutput in one."""

    def __init__(self, *, input_layouts=None, desired_input_layouts=None, input_kwarg_layouts=None,
                 desired_input_kwarg_layouts=None, use_local_input=False, output_layouts, desired_output_layouts,
                 use_local_output=True):
        self.prepare_module_input = PrepareModuleInput(
            input_layouts=input_layouts, desired_input_layouts=desired_input_layouts,
            input_kwarg_layouts=input_kwarg_layouts, desired_input_kwarg_layouts=desired_input_kwarg_layouts,
            use_local_output=use_local_input)
        self.prepare_module_output = PrepareModuleOutput(
            output_layouts=output_layouts, desired_output_layouts=desired_output_layouts,
            use_local_output=use_local_output)

    def __repr__(self):
        i, o = self.prepare_module_input, self.prepare_module_output
        return (f"PrepareModuleInputOutput(input_layouts={i.input_layouts}, desired_input_layouts="
                f"{i.desired_input_layouts}, input_kwarg_layouts={i.input_kwarg_layouts}, "
                f"desired_input_kwarg_layouts={i.desired_input_kwarg_layouts}, use_local_input={i.use_local_output}, "
                f"output_layouts={o.output_layouts}, desired_output_layouts={o.desired_output_layouts}, "
                f"use_local_output={o.use_local_output})")

    def _apply(self, module, mesh):
        self.prepare_module_input._apply(module, mesh)
        self.prepare_module_output._apply(module, mesh)
        return module


def _matches(module, pattern):
    parts = pattern.split(".")
    for path, sub in module.named_modules():
        names = path.split(".") if path else []
        if len(names) == len(parts) and all(fnmatch.fnmatchcase(n, p) for n, p in zip(names, parts)):
            yield sub


def parallelize_module(module, device_mesh=None, parallelize_plan=None, *, src_data_rank=0):
    """msnb implementation of ``torch.distributed.tensor.parallel.parallelize_module`` (1-D mesh)."""
    if device_mesh is None:
        from ...device_mesh import init_device_mesh
        from ... import get_world_size
        device_mesh = init_device_mesh("cpu", (get_world_size(),))
    if device_mesh.ndim != 1:
        raise ValueError(f"Tensor parallel needs a 1-D DeviceMesh, got {device_mesh.ndim} dimensions: pass "
                         "mesh['tp']")
    if parallelize_plan is None:
        return module
    if isinstance(parallelize_plan, ParallelStyle):
        parallelize_plan.src_data_rank = src_data_rank
        return parallelize_plan._apply(module, device_mesh)
    if not isinstance(parallelize_plan, dict):
        raise TypeError(f"Expect Union[ParallelStyle, Dict] for parallelize_plan, {type(parallelize_plan)} found!")
    for pattern, style in parallelize_plan.items():
        found = list(_matches(module, pattern))
        if not found:
            raise ValueError(f"parallelize_module: no submodule matches {pattern!r}")
        for sub in found:
            style.src_data_rank = src_data_rank
            style._apply(sub, device_mesh)
    return module


__getattr__ = _module_getattr("torch.distributed.tensor.parallel", ("loss_parallel",))
