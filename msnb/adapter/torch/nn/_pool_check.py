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


def _window_args(name, ks, st, dl):
    """Kernel, stride and dilation all positive, refused with PyTorch's messages: ``max_pool1d``
    names the argument; the other pools (``avg_pool1d`` and LP pooling run as 2-d average pools
    of height 1) refuse a zero stride (the kernel, by default) first, then list the values."""
    if name == "max_pool1d":
        for what, vals in (("kernel_size", ks), ("stride", st), ("dilation", dl)):
            if vals[0] <= 0:
                raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {vals[0]}")
        return
    if len(ks) == 1:
        ks, st, dl = (1,) + ks, (1,) + st, (1,) + dl
    axes = ("T", "H", "W")[3 - len(ks):]
    if 0 in st:
        raise RuntimeError("stride should not be zero")
    for what, short, vals in (("kernel size", "k", ks), ("stride", "d", st), ("dilation", "dilation", dl)):
        if any(v <= 0 for v in vals):
            got = " ".join(f"{short}{a}: {v}" for a, v in zip(axes, vals))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")


def check_input(input, n, name):
    """``input`` is ``(C, *spatial)`` or ``(N, C, *spatial)`` with ``n`` spatial dims, every dim but
    the batch one non-empty (PyTorch allows only an empty batch); refused with the message of
    PyTorch's kernel for ``name``."""
    nd = input.ndim
    shape = list(input.shape)
    rank_ok = nd in (n + 1, n + 2)
    empty = rank_ok and any(s == 0 for s in shape[nd - n - 1:])
    if rank_ok and not empty:
        return
    avg = not name.startswith("max")
    if n == 1 and avg:  # avg_pool1d / lp_pool1d: PyTorch checks the rank, then pools in 2-d
        if not rank_ok:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 "
                               "'self' (while checking arguments for avg_pool1d)")
        n, nd, shape = 2, nd + 1, shape[:-1] + [1] + shape[-1:]
    if n == 2 and avg and nd < 3:  # avg_pool2d reads input.size(-3) first
        if nd == 0:
            raise IndexError("Dimension specified as -3 but tensor has no dimensions")
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)")
    if n == 3 and empty:
        where = "max_pool3d_with_indices_out_cpu_template" if not avg else "avg_pool3d"
        first = next(i for i, s in enumerate(shape[nd - n - 1:]) if s == 0)
        raise RuntimeError(f"{where}(): Expected input's non-batch dimensions to have positive length, but input "
                           f"has a shape of {shape} and non-batch dimension {first} has length zero!")
    if n > 1 and not rank_ok and (n == 3 or not avg):
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")
    prefix = "max_pool1d: " if name == "max_pool1d" else ""
    raise RuntimeError(f"{prefix}Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 dim "
                       f"batch size for input, but got:{shape}")


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
    _window_args(name, ks, st, dl)
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
        if name == "max_pool1d":
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {min(out)}")
        if name in ("avg_pool3d", "lp_pool3d") and any(L + 2 * p < k for L, p, k in zip(spatial, pd, ks)):
            raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel "
                               f"size (kT: {ks[0]} kH: {ks[1]} kW: {ks[2]})")
        lead = list(input.shape[-n - 1:-n]) + [1] * (n == 1)  # 1-d pools run as 2-d ones of height 1
        fmt = "x".join
        raise RuntimeError(f"Given input size: ({fmt(str(v) for v in lead + list(spatial))}). Calculated "
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
            if "max" in name:  # PyTorch's max kernels check it as an internal assertion
                raise RuntimeError(f"{name}(): internal error: output_size.size() must be {n}")
            raise RuntimeError(f"{name}: output_size must be {n}")
        outs = tuple(output_size)
    else:
        outs = (output_size,) * n
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    spatial = tuple(input.shape[-n:])
    outs = tuple(L if o is None else int(o) for o, L in zip(outs, spatial))
    if any(o < 0 for o in outs) and "max" in name:  # the max kernels fail allocating their output
        shape = list(input.shape[:-n]) + [1] * (n == 1) + list(outs)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: {shape}")
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
