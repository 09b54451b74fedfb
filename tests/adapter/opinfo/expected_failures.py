"""Cases of the OpInfo replay that are known to fail, each with the reason.

Like PyTorch's ``xfail`` decorators, in one place: ``test_opinfo_replay``
fails when a case listed here passes (remove the entry) or when a case not
listed fails.  Keys are ``"<op>[.<variant>]:<form>:<dtype>"``; the reason is
the first failing sample's message.  Regenerate with
``python tools/opinfo_report.py --write-expected`` after fixing ops.
"""

__all__ = ["EXPECTED_FAILURES"]

EXPECTED_FAILURES = {
    'chalf:method:float32': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'chalf:method:float64': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'chalf:method:int64': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'chalf:method:bool': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'hash_tensor:function:float32': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'hash_tensor:method:float32': 'NotSupportedError: torch.Tensor.hash_tensor is not supported by msnb yet',
    'hash_tensor:function:float64': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'hash_tensor:function:int64': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'hash_tensor:function:bool': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
}
