"""``torch.backends.cuda``: the matmul switches are recorded; CUDA is never built in.
The scaled-dot-product-attention switches are the ones ``torch.nn.attention.sdpa_kernel`` sets."""

from types import SimpleNamespace

__all__ = ["matmul", "is_built", "flash_sdp_enabled", "enable_flash_sdp", "math_sdp_enabled", "enable_math_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp"]

matmul = SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True)


def is_built() -> bool:
    return False


def _switch(backend_name):
    def enabled() -> bool:
        from ..nn.attention import ENABLED, SDPBackend
        return ENABLED[SDPBackend[backend_name]]

    def enable(enabled: bool) -> None:
        from ..nn.attention import ENABLED, SDPBackend
        ENABLED[SDPBackend[backend_name]] = bool(enabled)

    enabled.__name__ = enabled.__qualname__ = SWITCH_NAMES[backend_name] + "_sdp_enabled"
    enable.__name__ = enable.__qualname__ = "enable_" + SWITCH_NAMES[backend_name] + "_sdp"
    return enabled, enable


SWITCH_NAMES = {"FLASH_ATTENTION": "flash", "MATH": "math", "EFFICIENT_ATTENTION": "mem_efficient",
                "CUDNN_ATTENTION": "cudnn"}


flash_sdp_enabled, enable_flash_sdp = _switch("FLASH_ATTENTION")
math_sdp_enabled, enable_math_sdp = _switch("MATH")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _switch("EFFICIENT_ATTENTION")
cudnn_sdp_enabled, enable_cudnn_sdp = _switch("CUDNN_ATTENTION")
