"""msnb implementation of ``torch.nn.attention``: ``sdpa_kernel`` and ``SDPBackend``.

PyTorch's ``scaled_dot_product_attention`` on CPU chooses between two
kernels: the fused FLASH_ATTENTION kernel when its conditions hold, else
MATH (the reference composition).  ``sdpa_kernel`` limits the choice.  msnb
keeps the same switches and applies PyTorch's CPU selection rules: with MATH
enabled every call runs; with only FLASH_ATTENTION enabled a call the CPU
flash kernel refuses (dropout, non-4-D inputs, mismatched batch / heads /
head dims, a 3-D mask, integer dtypes) warns why and raises PyTorch's
``RuntimeError("No available kernel.  Aborting execution.")``; with neither
(EFFICIENT_ATTENTION / CUDNN_ATTENTION / OVERRIDEABLE have no CPU kernel)
every call raises "No viable backend ...".  Both kernels compute the same
attention in msnb (one composition of MindSpore ops), so the values are
PyTorch's to float rounding whichever is chosen.
"""

from __future__ import annotations

import contextlib
import enum
import warnings

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The scaled-dot-product-attention kernels PyTorch knows (``torch._C._SDPBackend``)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__

    def __hash__(self):
        return hash(self.value)


#: which kernels may run (torch.backends.cuda.*_sdp_enabled read and set these)
ENABLED = {b: True for b in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                             SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE)}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Only ``backends`` may run ``scaled_dot_product_attention`` inside the block
    (``set_priority`` orders GPU kernels; PyTorch's CPU order, FLASH then MATH, does not change)."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    before = dict(ENABLED)
    for b in ENABLED:
        ENABLED[b] = b in chosen
    try:
        yield {}
    finally:
        ENABLED.update(before)


def _flash_refusal(q, k, v, attn_mask, dropout_p, enable_gqa):
    """Why PyTorch's CPU flash kernel would refuse these inputs (its checks, in its order), or None."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout."
    if not (q.ndim == k.ndim == v.ndim == 4):
        return (f"All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: "
                f"{q.ndim}, Key dim: {k.ndim}, Value dim: {v.ndim} instead.")
    qs, ks, vs = tuple(q.shape), tuple(k.shape), tuple(v.shape)
    if not (qs[0] == ks[0] == vs[0]):
        return ("For dense inputs, both fused kernels require query, key and value to have the same batch_size. "
                f"Query.sizes(): {list(qs)}, Key.sizes(): {list(ks)}, Value.sizes(): {list(vs)} instead. To broadcast "
                "dense inputs, try using unsqueeze and expand_to before passing them into the kernel.")
    if enable_gqa:
        if ks[1] != vs[1] or qs[1] % ks[1]:
            return ("The number of heads in key/value must divide number of heads in query.Got input Key "
                    f"sizes(): {ks[1]}, Value sizes(): {vs[1]}, Query sizes(): {qs[1]} instead.")
    elif not (qs[1] == ks[1] == vs[1]):
        return ("For dense input, both fused kernels require query, key and value to have the same num_heads. "
                f"Query.sizes(): {list(qs)}, Key sizes(): {list(ks)}, Value sizes(): {list(vs)} instead. To "
                "broadcast dense inputs, try using unsqueeze and expand_to before passing them into the kernel.")
    if attn_mask is not None and attn_mask.ndim not in (2, 4):
        return ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); 4d - "
                "({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})")
    if not (qs[3] == ks[3] == vs[3]):
        return ("Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): "
                f"{qs[3]}, Key.size(-1): {ks[3]}, Value.size(-1): {vs[3]} instead.")
    names = {"float32": "float", "float64": "double", "bfloat16": "c10::BFloat16", "float16": "c10::Half"}
    if not all(str(t.dtype).replace("torch.", "") in names for t in (q, k, v)):
        def cname(t):
            s = str(t.dtype).replace("torch.", "")
            return {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                    "uint8": "unsigned char", "bool": "bool"}.get(s, names.get(s, s))
        return ("Expected query, key and value to all be of dtype: {Float, Double, BFloat16, Half}. Got Query "
                f"dtype: {cname(q)}, Key dtype: {cname(k)}, and Value dtype: {cname(v)} instead.")
    return None


def choose_kernel(q, k, v, attn_mask, dropout_p, enable_gqa) -> SDPBackend:
    """The kernel PyTorch's CPU selection picks (FLASH when allowed and able, else MATH), or raise as it does."""
    if ENABLED[SDPBackend.FLASH_ATTENTION]:
        why = _flash_refusal(q, k, v, attn_mask, dropout_p, enable_gqa)
        if why is None:
            return SDPBackend.FLASH_ATTENTION
        if not ENABLED[SDPBackend.MATH]:
            warnings.warn("Flash attention kernel not used because:", UserWarning, stacklevel=3)
            warnings.warn(why, UserWarning, stacklevel=3)
            raise RuntimeError("No available kernel.  Aborting execution.")
    if ENABLED[SDPBackend.MATH]:
        return SDPBackend.MATH
    raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                       "turning off both the math kernel and the fused kernels.")


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.attention")
