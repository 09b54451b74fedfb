"""The argument checks every pooling function of ``torch.nn.functional`` shares.

PyTorch validates pooling arguments before it computes anything: a kernel,
stride or dilation of zero, a negative padding, a padding wider than half the
(dilated) window, an input of the wrong rank or with an empty non-batch
dimension, a window larger than the padded input, a zero ``divisor_override``,
or an adaptive ``output_size`` of the wrong length or with negative entries.
Without these checks msnb would hand the arguments to MindSpore and surface
its ``ValueError`` (or a numpy one), or quietly return a tensor where PyTorch
raises.  Every pooling function (max / avg / LP / adaptive / fractional, 1-d
to 3-d) goes through here, so one bad argument gives one kind of error
whichever function receives it: the exception type PyTorch raises (almost
always ``RuntimeError``) with a message about the same problem.
"""

from __future__ import annotations

_WORDS = {1: "one int", 2: "two ints", 3: "three ints"}


def sizes(value, n, name, what, optional=False):
    """``value`` (an int or a sequence of 1 or ``n`` ints) as an ``n``-tuple.

    ``optional``: None or an empty sequence is allowed (a stride: it then defaults to the kernel)
    and returns None."""
    if optional and (value is None or (isinstance(value, (tuple, list)) and len(value) == 0)):
        return None
    if isinstance(value, (tuple, list)):
        if len(value) not in (1, n):
            extra = "omitted, " if optional else ""
            raise RuntimeError(f"{name}: {what} must either be {extra}a single int, or a tuple of {_WORDS[n]}")
        vals = tuple(value) * n if len(value) == 1 else tuple(value)
    else:
        vals = (value,) * n
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, int):
            if hasattr(v, "__index__"):  # numpy / 0-d integer tensors
                continue
            raise TypeError(f"{name}(): argument '{what}' must be tuple of ints, not {type(v).__name__}")
    return tuple(int(v) for v in vals)


def exact_sizes(value, n, name, what):
    """``value`` as fractional pooling takes it: one int or exactly ``n`` of them (no 1-tuple)."""
    if not isinstance(value, (tuple, list)):
        return (value,) * n
    if len(value) != n:
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of "
                           f"{'Ints' if n == 2 else 'three Ints'}")
    return tuple(value)


def _positive(vals, name, what):
    if any(v <= 0 for v in vals):
        raise RuntimeError(f"{name}: {what} must be greater than zero, but got {what}={list(vals)}")


def check_input(input, n, name):
    """``input`` is ``(C, *spatial)`` or ``(N, C, *spatial)`` with ``n`` spatial dims, every dim but
    the batch one non-empty (PyTorch allows only an empty batch)."""
    nd = input.ndim
    shape = list(input.shape)
    if nd not in (n + 1, n + 2) or any(s == 0 for s in shape[nd - n - 1:]):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 dim "
                           f"batch size for input, but got: {shape}")


def output_length(L, k, s, p, d, ceil_mode):
    """PyTorch's pooled length of one dimension (a window may start in the left padding, never
    in the right one with ``ceil_mode``)."""
    span = L + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= L + p:
        out -= 1
    return out


def check_pool(name, input, n, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               divisor_override=None):
    """Validate a windowed pooling call; returns ``(kernel, stride, padding, dilation, out)`` as
    ``n``-tuples (``stride`` defaults to the kernel, ``out`` is the pooled spatial size)."""
    ks = sizes(kernel_size, n, name, "kernel_size")
    st = sizes(stride, n, name, "stride", optional=True) or ks
    pd = sizes(padding, n, name, "padding")
    dl = sizes(dilation, n, name, "dilation")
    _positive(ks, name, "kernel_size")
    _positive(st, name, "stride")
    _positive(dl, name, "dilation")
    for p, k, d in zip(pd, ks, dl):
        if p < 0:
            raise RuntimeError(f"{name}: pad must be non-negative, but got pad: {p}")
        if p > k // 2:  # half the undilated kernel (so also of the dilated window), as PyTorch's CPU kernels
            raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{name}: divisor must be not zero")
    check_input(input, n, name)
    spatial = tuple(input.shape[-n:])
    out = tuple(output_length(L, k, s, p, d, ceil_mode) for L, k, s, p, d in zip(spatial, ks, st, pd, dl))
    if any(o < 1 for o in out):
        lead = list(input.shape[-n - 1:-n])
        fmt = "x".join
        raise RuntimeError(f"{name}: Given input size: ({fmt(str(v) for v in lead + list(spatial))}). Calculated "
                           f"output size: ({fmt(str(v) for v in lead + list(out))}). Output size is too small")
    return ks, st, pd, dl, out


def check_adaptive(name, input, n, output_size):
    """Validate an adaptive pooling call; returns the output size as an ``n``-tuple (None entries:
    the input's size there, as in PyTorch)."""
    if isinstance(output_size, (tuple, list)):
        if n > 1 and input.ndim <= len(output_size):
            # PyTorch's Python wrapper reads the None entries from the input's trailing dims first
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        if len(output_size) != n:
            if n == 1:
                raise RuntimeError(f"{name}() argument 'output_size' should contain one int "
                                   f"(got {len(output_size)})")
            raise RuntimeError(f"{name}: output_size must be {n}")
        outs = tuple(output_size)
    else:
        outs = (output_size,) * n
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    spatial = tuple(input.shape[-n:])
    outs = tuple(L if o is None else int(o) for o, L in zip(outs, spatial))
    if any(o < 0 for o in outs):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{list(outs)}")
    for i, s in enumerate(input.shape):
        if s == 0 and i >= input.ndim - n:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                               f"input has sizes {list(input.shape)} with dimension {i} being empty")
    return outs


def check_fractional(name, input, n, kernel, out):
    """Validate a fractional max pooling call (``kernel`` and ``out`` already ``n``-tuples): the
    input's rank and non-batch sizes, a non-negative output size, and windows that fit (PyTorch
    lets a kernel size <= 0 through: so does msnb's table-driven kernel)."""
    if input.ndim < n + 1:  # PyTorch reads the channel count at dim -(n + 1) first
        raise IndexError(f"Dimension out of range (expected to be in range of [-{input.ndim}, {input.ndim - 1}], "
                         f"but got {-(n + 1)})")
    if input.ndim != n + 2 and input.ndim != n + 1:
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    for i in range(1, input.ndim):  # PyTorch skips dim 0 even of an unbatched input (its channels)
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{list(input.shape)} with dimension {i} being empty")
    if any(o < 0 for o in out):
        raise RuntimeError(f"{name}(): Trying to create tensor with negative dimension: output_size={list(out)}")
    for L, k, o in zip(input.shape[-n:], kernel, out):
        if o + k - 1 > L:
            raise RuntimeError(f"{name}(): pool size {k} too large relative to input size {L} for output size {o}")
