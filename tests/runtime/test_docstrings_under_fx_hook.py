"""A cell may import torch while torch.fx's wrappers are in place (a MaskedTensor was made
earlier in the kernel): help(torch.acos) must still show a docstring after they are gone."""

import importlib
import inspect


def test_documenting_while_hooked_documents_the_original_function():
    from msnb.adapter.torch.fx import _hook
    from msnb.runtime import docstrings

    mt = importlib.import_module("msnb.adapter.torch")
    original = vars(mt)["acos"]
    original = getattr(original, "_msnb_fx_original", original)
    saved_doc, done = original.__doc__, set(docstrings._DONE)
    original.__doc__ = None
    docstrings._DONE.discard("msnb.adapter.torch")
    _hook.acquire()
    try:
        assert vars(mt)["acos"] is not original
        docstrings.document(mt)
    finally:
        _hook.release()
        docstrings._DONE.clear()
        docstrings._DONE.update(done)
    try:
        assert inspect.getdoc(vars(mt)["acos"]).startswith("torch.acos(")
    finally:
        if saved_doc is not None:
            original.__doc__ = saved_doc
