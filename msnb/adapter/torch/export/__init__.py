"""msnb implementation of ``torch.export``: ``export(mod, args, kwargs,
dynamic_shapes=..., strict=...)`` traces a module on its example inputs into an
:class:`ExportedProgram` made of msnb's torch functions (msnb's ``torch.fx``),
``Dim`` / ``dims`` / ``Dim.AUTO`` ... for dynamic dimensions, and ``save`` /
``load`` of a ``.pt2`` zip archive that loading never runs code from.

How a dimension is found dynamic or static: PyTorch reasons about symbolic
sizes; msnb runs the traced graph again with that dimension changed (values
drawn from the example input along it) and compares it with the module itself
run eagerly on the same input.  A dimension the graph cannot follow is static
(``Dim.AUTO``) or an error (``Dim.DYNAMIC`` / a named ``Dim``), as in PyTorch.
See docs/export-nested.md."""

from __future__ import annotations

import inspect

from .._missing import module_getattr, NotSupportedError, not_supported_message
from . import dynamic_shapes, exported_program, graph_signature
from ._errors import UserError
from ._probe import resolve_dynamic
from ._serialize import load, save
from ._trace import ExportTracer
from .dynamic_shapes import Dim, dims, spec_of_inputs
from .exported_program import ExportedProgram, default_decompositions
from .graph_signature import ExportGraphSignature

__all__ = ["export", "ExportedProgram", "Dim", "dims", "save", "load", "default_decompositions",
           "ExportGraphSignature"]


def _state_snapshot(mod):
    return [(t, t.detach().clone()) for t in list(mod.parameters()) + list(mod.buffers())]


def _restore(snapshot):
    from ..autograd.grad_mode import no_grad
    with no_grad():
        for t, saved in snapshot:
            if t.shape == saved.shape:
                t.copy_(saved)


def _check_state_effects(mod, graph, inputs, snapshot) -> None:
    """The graph changes the module's buffers as ``forward`` did while tracing: a write made outside
    msnb's torch functions (BatchNorm's ``num_batches_tracked += 1`` in training) is not in the graph."""
    import copy

    from ..autograd.grad_mode import no_grad
    from ..fx.graph_module import GraphModule
    after = [(t, t.detach().clone()) for t, _ in snapshot]
    _restore(snapshot)
    with no_grad():
        GraphModule(mod, copy.deepcopy(graph))(**inputs)
    for (t, eager), (_, _) in zip(after, snapshot):
        if t.shape != eager.shape or not bool((t.detach() == eager).all()):
            raise NotSupportedError(not_supported_message(
                "torch.export of a forward that changes a buffer outside torch functions (e.g. BatchNorm's "
                "num_batches_tracked in training mode: call .eval() before exporting)"))


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict: bool = False,
           preserve_module_call_signature=(), prefer_deferred_runtime_asserts_over_guards: bool = False):
    """msnb implementation of ``torch.export.export``: trace ``mod`` on ``args`` / ``kwargs``."""
    from ..autograd.grad_mode import no_grad
    from ..nn import Module
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got {type(args)}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise UserError(f"Expecting `kwargs` to be a dict of example keyword inputs, got {type(kwargs)}")
    if preserve_module_call_signature:
        raise NotSupportedError(not_supported_message("torch.export.export(preserve_module_call_signature=...)"))
    kwargs = dict(kwargs or {})
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
    except TypeError as e:
        raise UserError(f"the example inputs do not match {type(mod).__name__}.forward: {e}") from None
    bound.apply_defaults()
    inputs = dict(bound.arguments)
    for name, p in inspect.signature(mod.forward).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise NotSupportedError(not_supported_message("torch.export of a forward taking *args or **kwargs"))
    spec = spec_of_inputs(mod.forward, args, kwargs, dynamic_shapes)
    snapshot = _state_snapshot(mod)
    try:
        with no_grad():
            tracer = ExportTracer(inputs, strict)
            graph = tracer.trace(mod)
        _check_state_effects(mod, graph, inputs, snapshot)
        dynamic, symbols = resolve_dynamic(mod, graph, inputs, spec)
    finally:
        _restore(snapshot)
    names = list(inputs)
    return ExportedProgram(mod, graph, inputs, names, dynamic, symbols, (tuple(args), kwargs))


__getattr__ = module_getattr("torch.export")
