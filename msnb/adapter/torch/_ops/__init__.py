"""Adapter ops, grouped as PyTorch's docs group them.  Each op computes with
``K`` kernels (see ``msnb.adapter._dispatch``) and, when autograd is on,
records its backward rule next to its forward."""
