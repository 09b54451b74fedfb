"""msnb implementation of ``torch.func``: vmap and the autodiff transforms
(:mod:`._transforms`, :mod:`._vmap`) and functional module calls
(:mod:`._module`), over msnb's own autograd."""

from __future__ import annotations

from ._module import functional_call, stack_module_state
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._vmap import vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functional_call",
           "stack_module_state"]

from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.func")
