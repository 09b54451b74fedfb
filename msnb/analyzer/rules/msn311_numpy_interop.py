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


class NumpyInterop(Rule):
    """What it does: finds tensors passed to OpenCV, matplotlib, PIL,
    NumPy, SciPy or scikit-learn functions.

    Why: those libraries convert arguments with ``__array__``; adapter
    tensors wrap MindSpore tensors and must be converted explicitly
    (MSAdapter guide 4.4: "convert to numpy before handing tensors to
    OpenCV and other components").  NumPy functions may also dispatch back
    to tensor methods and return a tensor, not an array.

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
    WHY = "OpenCV, matplotlib and NumPy expect arrays; adapter tensors need an explicit `.numpy()`."
    SUGGESTION = "Convert first: `img.numpy()` (after `.detach().cpu()` if needed)."
    SEVERITY_PYNATIVE = Severity.WARNING
    SEVERITY_GRAPH = Severity.WARNING
    FIX_SAFETY = "Safe for array-converting callees (checked); none for other NumPy functions."
    VALID = [
        Valid("import torch\nimport numpy as np\nx = torch.ones(3)\na = np.asarray(x.numpy())\n"),
        Valid("import numpy as np\nimport matplotlib.pyplot as plt\nplt.plot(np.arange(3))\n"),
    ]
    INVALID = [
        Invalid("import torch\nimport cv2\nimg = torch.rand(8, 8)\ncv2.imwrite('a.png', img * 255)\n", line=4, col=22,
                fix="import torch\nimport cv2\nimg = torch.rand(8, 8)\ncv2.imwrite('a.png', (img * 255).numpy())\n"),
        Invalid("import torch\nimport matplotlib.pyplot as plt\nlosses = torch.rand(5)\nplt.plot(losses)\n", line=4,
                col=10, fix="import torch\nimport matplotlib.pyplot as plt\nlosses = torch.rand(5)\nplt.plot(losses.numpy())\n"),
        Invalid("import torch\nimport numpy as np\nx = torch.ones(3)\nm = np.mean(x)\n", line=4, col=13, fix=None),
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
            ctx.report(arg, message=f"tensor `{ctx.segment(arg)}` passed to `{q}`", edit=edit)
