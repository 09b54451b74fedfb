"""msnb implementation of ``torch.autograd.gradcheck`` / ``gradgradcheck``: an op's
backward (a custom ``autograd.Function`` above all) checked against finite differences.

Each differentiable input element is nudged by ``+-eps`` (central differences) to build
the numerical Jacobian; the analytical one comes from one
``autograd.grad`` call per output element.  They must agree within
``atol + rtol * |numerical|``, else ``GradcheckError`` (a ``RuntimeError``, as
PyTorch's) names the output and input and prints both Jacobians, or the call returns
False with ``raise_exception=False``.  ``fast_mode`` runs the same full check (PyTorch's
fast mode checks a random projection of it: a weaker test with the same verdict on a
correct backward).  ``check_forward_ad`` also checks forward-mode AD (one dual-tensor call per
input element; a custom Function's ``jvp``), ``check_backward_ad=False`` skips the backward
check.  The batched-gradient and sparse/complex variants are not run.
"""

from __future__ import annotations

import sys
import types
import warnings

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when a backward disagrees with finite differences."""


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _tensors(outs):
    from .._tensor import Tensor
    return [o for o in _tuple(outs) if isinstance(o, Tensor)]


def _flat(t):
    from .._ops.creation import zeros
    from .. import float64
    return t.detach().reshape(-1).to(float64) if t is not None else zeros(0, dtype=float64)


def _numerical(func, inputs, j, outputs, eps):
    """d outputs / d inputs[j]: a list per output of ``(n_in, n_out)`` float64 tensors."""
    from .._ops.creation import zeros
    from .._ops.shape import stack
    from .grad_mode import no_grad
    from .. import float64
    x = inputs[j]
    n = x.numel()
    cols = [[] for _ in outputs]
    for k in range(n):
        vals = []
        for sign in (1, -1):
            with no_grad():
                xp = x.detach().clone()
                flat = xp.view(-1)
                flat[k] = flat[k] + sign * eps
            # the nudged input still requires grad: gradgradcheck's function differentiates it
            args = list(inputs)
            args[j] = xp.requires_grad_(True)
            vals.append([_flat(o) for o in _tensors(func(*args))])
        for i, (hi, lo) in enumerate(zip(*vals)):
            cols[i].append((hi - lo) / (2 * eps))
    return [stack(c) if c else zeros((0, outputs[i].numel()), dtype=float64) for i, c in enumerate(cols)]


def _analytical(outputs, diff, inputs):
    """Per output, per differentiable input: ``(n_in, n_out)`` float64 Jacobians from autograd."""
    from .._ops.creation import zeros, zeros_like
    from .._ops.shape import stack
    from . import grad
    from .. import float64
    res = []
    for o in outputs:
        per_input = [[] for _ in diff]
        for m in range(o.numel()):
            if o.requires_grad:
                seed = zeros_like(o).reshape(-1)
                seed[m] = 1
                gs = grad((o,), [inputs[j] for j in diff], grad_outputs=(seed.reshape(o.shape),),
                          retain_graph=True, allow_unused=True)
            else:
                gs = [None] * len(diff)
            for q, (j, g) in enumerate(zip(diff, gs)):
                per_input[q].append(_flat(g) if g is not None else zeros(inputs[j].numel(), dtype=float64))
        res.append([stack(c, dim=1) if c else zeros((inputs[j].numel(), 0), dtype=float64)
                    for j, c in zip(diff, per_input)])
    return res


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """msnb implementation of ``torch.autograd.gradcheck`` (see the module docstring)."""
    from .._tensor import Tensor
    from .._missing import NotSupportedError, not_supported_message
    from .. import float64
    inputs = _tuple(inputs)
    diff = [j for j, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for j in diff:
        dt = inputs[j].dtype
        if dt.is_complex:
            raise NotSupportedError(not_supported_message("torch.autograd.gradcheck with complex inputs"))
        if dt is not float64:
            warnings.warn(f"Input #{j} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", stacklevel=2)
    outputs = _tensors(func(*inputs))
    checks = []
    if check_backward_ad:
        checks.append(("", _analytical(outputs, diff, inputs)))
    if check_forward_ad:
        checks.append(("forward AD ", _forward(func, outputs, diff, inputs)))
    for q, j in enumerate(diff):
        numerical = _numerical(func, inputs, j, outputs, eps)
        for what, analytical in checks:
            for i, num in enumerate(numerical):
                ana = analytical[i][q]
                if not bool(((ana - num).abs() <= atol + rtol * num.abs()).all()):
                    if not raise_exception:
                        return False
                    raise GradcheckError(f"Jacobian {what}mismatch for output {i} with respect to input {j},\n"
                                         f"numerical:{num}\nanalytical:{ana}\n")
    return True


def _forward(func, outputs, diff, inputs):
    """The analytical Jacobians as ``_analytical`` lays them out, from forward-mode AD: one call of
    ``func`` on dual inputs per input element (its tangent a one-hot, the other inputs' zero)."""
    from .._ops.creation import zeros, zeros_like
    from .._ops.shape import stack
    from . import forward_ad as fw
    from .. import float64
    res = [[[] for _ in diff] for _ in outputs]
    for q, j in enumerate(diff):
        for k in range(inputs[j].numel()):
            with fw.dual_level():
                args = list(inputs)
                for p in diff:
                    tangent = zeros_like(inputs[p].detach())
                    if p == j:
                        tangent.view(-1)[k] = 1
                    args[p] = fw.make_dual(inputs[p], tangent)
                outs = _tensors(func(*args))
                for i, o in enumerate(outs):
                    t = fw.unpack_dual(o).tangent
                    res[i][q].append(_flat(t) if t is not None else zeros(o.numel(), dtype=float64))
    return [[stack(c) if c else zeros((0, outputs[i].numel()), dtype=float64) for c in per]
            for i, per in enumerate(res)]


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """msnb implementation of ``torch.autograd.gradgradcheck``: gradcheck of the function that maps
    ``(inputs, grad_outputs)`` to ``func``'s input gradients (built with ``create_graph=True``)."""
    from .._tensor import Tensor
    from .._ops.random import randn_like
    from . import grad
    inputs = _tuple(inputs)
    diff = [j for j, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if grad_outputs is None:
        outs = [o for o in _tensors(func(*inputs)) if o.requires_grad]
        grad_outputs = tuple(randn_like(o.detach()).requires_grad_(True) for o in outs)
    grad_outputs = _tuple(grad_outputs)
    n = len(inputs)

    def first_grads(*args):
        ins, gos = args[:n], args[n:]
        outs = [o for o in _tensors(func(*ins)) if o.requires_grad]
        gs = grad(outs, [ins[j] for j in diff], grad_outputs=gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


class _CallableModule(types.ModuleType):
    """``torch.autograd.gradcheck`` names both this module and its function in PyTorch.  When a
    program imports ``torch.autograd.gradcheck`` (``from torch.autograd.gradcheck import
    GradcheckError``), msnb's import alias binds the module under ``torch.autograd``'s attribute,
    where PyTorch keeps the function: calling the module calls ``gradcheck``, so both spellings
    keep working in either order."""

    def __call__(self, *args, **kwargs):
        return gradcheck(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
