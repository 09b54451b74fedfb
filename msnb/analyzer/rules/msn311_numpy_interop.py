"""MSN311: tensors handed to NumPy / OpenCV / matplotlib / PIL."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._cst import with_method
from .base import Invalid, Rule, Valid
from .msn301_tensor_format_spec import CST_TYPE

__all__ = ["NumpyInterop"]

_LIBRARIES = ("cv2.", "matplotlib.", "numpy.", "PIL.", "skimage.", "sklearn.", "scipy.", "seaborn.")
#: Callees that only convert their argument to an array: `.numpy()` is
#: exactly what they would do through ``__array__``.
_CONVERTING_PREFIXES = ("cv2.", "matplotlib.", "PIL.Image.fromarray", "skimage.", "seaborn.")
_CONVERTING_NUMPY = frozenset({"numpy.array", "numpy.asarray", "numpy.save", "numpy.savetxt", "numpy.savez",
                               "numpy.savez_compressed", "numpy.asanyarray", "numpy.ascontiguousarray",
                               "numpy.copy"})

#: NumPy reductions that call the tensor's own method with ``axis=``, which
#: torch tensors (PyTorch's and msnb's) refuse.
_FAILING_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "std", "var", "prod", "amax", "amin", "any", "all",
                                 "ptp"})
#: NumPy functions that hand a PyTorch tensor back as a tensor (through the
#: tensor's own method) but give an ndarray for an msnb tensor; NumPy's
#: ufuncs (``np.exp``, ``np.sqrt``...) do the same through ``__array_wrap__``.
#: Measured side by side; other NumPy functions return an ndarray for both.
_TENSOR_RETURNING = frozenset({"clip", "transpose", "argmax", "argmin", "reshape", "cumsum", "cumprod"})


def _returns_tensor_on_pytorch(name: str) -> bool:
    if name in _TENSOR_RETURNING:
        return True
    import numpy

    return isinstance(getattr(numpy, name, None), numpy.ufunc)


class NumpyInterop(Rule):
    """What it does: finds tensors passed to OpenCV, matplotlib, PIL,
    NumPy, SciPy or scikit-learn functions.

    Why: those libraries convert arguments with ``__array__``, which msnb
    tensors implement as PyTorch's do, so the code runs: advice only (shown
    with ``%msnb analyze --all``).  An explicit ``.numpy()`` says where the
    data leaves the device and also works with adapters whose tensors lack
    ``__array__`` (MSAdapter guide 4.4).  Other NumPy functions differ:
    ``np.exp(t)`` returns a tensor in PyTorch (``__array_wrap__``) but an
    ndarray on msnb (warning); ``np.sum(t)`` / ``np.mean(t)`` raise
    ``TypeError`` in both, since NumPy passes ``axis=`` (error).

    Fix safety: ``.numpy()`` is added for callees that only convert their
    argument to an array (OpenCV, matplotlib, ``PIL.Image.fromarray``,
    ``np.array`` / ``np.asarray`` / ``np.save``...): same result as PyTorch's
    implicit ``__array__``.  Other NumPy functions are reported without a fix,
    since ``.numpy()`` could change the return type from tensor to array.
    """

    CODE = "MSN311"
    NAME = "numpy-interop"
    CATEGORY = Category.NUMPY_INTEROP
    MESSAGE = "tensor passed to a NumPy-based library"
    WHY = ("OpenCV, matplotlib and NumPy convert tensors with `__array__`, which msnb implements; "
           "an explicit `.numpy()` shows where data leaves the device.")
    SUGGESTION = "Convert first: `img.numpy()` (after `.detach().cpu()` if needed)."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe for array-converting callees (checked); none for other NumPy functions."
    VALID = [
        Valid("import torch\nimport numpy as np\nx = torch.ones(3)\na = np.asarray(x.numpy())\n"),
        Valid("import numpy as np\nm = np.mean(np.arange(3))\n"),
        Valid("import torch\nimport numpy as np\nx = torch.ones(3)\nm = np.exp(x.numpy())\n"),
        # an ndarray for PyTorch's tensors too: nothing differs
        Valid("import torch\nimport numpy as np\nx = torch.ones(3)\nr = np.roll(x, 1)\ns = np.sort(x)\n"),
    ]
    INVALID = [
        Invalid("import torch\nimport numpy as np\nimg = torch.rand(8, 8)\nnp.save('a.npy', img * 255)\n", line=4,
                col=18, severity=Severity.INFO,
                fix="import torch\nimport numpy as np\nimg = torch.rand(8, 8)\nnp.save('a.npy', (img * 255).numpy())\n"),
        Invalid("import torch\nimport numpy as np\nlosses = torch.rand(5)\na = np.asarray(losses)\n", line=4,
                col=16, severity=Severity.INFO,
                fix="import torch\nimport numpy as np\nlosses = torch.rand(5)\na = np.asarray(losses.numpy())\n"),
        Invalid("import torch\nimport numpy as np\nx = torch.ones(3)\ny = np.exp(x)\nprint(type(y).__name__)\n",
                line=4, col=12, severity=Severity.WARNING),
        Invalid("import torch\nimport numpy as np\nx = torch.ones(3)\nm = np.mean(x)\n", line=4, col=13,
                severity=Severity.ERROR),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        q = ctx.infer.qualname(node.func)
        if q is None or not q.startswith(_LIBRARIES):
            return
        converting = q.startswith(_CONVERTING_PREFIXES) or q in _CONVERTING_NUMPY
        for arg in (*node.args, *(k.value for k in node.keywords)):
            if isinstance(arg, ast.Starred) or not ctx.infer.is_tensor(arg):
                continue
            node_type = CST_TYPE.get(type(arg))
            edit = (ctx.edit(arg, node_type, lambda n: with_method(n, "numpy"))
                    if converting and node_type is not None else None)
            if converting:
                ctx.report(arg, message=f"tensor `{ctx.segment(arg)}` passed to `{q}`", edit=edit)
            elif q.startswith("numpy.") and q.rpartition(".")[2] in _FAILING_REDUCTIONS:
                ctx.report(arg, severity=Severity.ERROR,
                           message=f"`{q}` of a tensor raises TypeError (in PyTorch too: NumPy passes `axis=`)",
                           suggestion=f"Use the tensor method (`{ctx.segment(arg)}.{q.rpartition('.')[2]}()`) "
                                      "or convert first with `.numpy()`.")
            elif q.startswith("numpy.") and q.count(".") == 1 and _returns_tensor_on_pytorch(q[6:]):
                ctx.report(arg, severity=Severity.WARNING,
                           message=f"`{q}` of a tensor returns a NumPy array on msnb; PyTorch returns a tensor",
                           suggestion=f"Use the torch function, or convert explicitly: `{q.replace('numpy', 'np', 1)}"
                                      f"({ctx.segment(arg)}.numpy())`.")
