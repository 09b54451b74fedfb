"""msnb's ``torch._functorch``: what the ``functorch`` package imports from it
(:mod:`.deprecated`, :mod:`.make_functional`, :mod:`.python_key`), so
``import functorch`` -- the pre-2.0 spelling of ``torch.func`` that tutorials
still use -- runs on msnb's transforms."""
