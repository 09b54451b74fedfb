"""Cases of the OpInfo replay that are known to fail, each with the reason.

Like PyTorch's ``xfail`` decorators, in one place: ``test_opinfo_replay``
fails when a case listed here passes (remove the entry) or when a case not
listed fails.  Keys are ``"<op>[.<variant>]:<form>:<dtype>"``; the reason is
the first failing sample's message.  Regenerate with
``python tools/opinfo_report.py --write-expected`` after fixing ops.
"""

__all__ = ["EXPECTED_FAILURES"]

EXPECTED_FAILURES = {
    'as_strided.partial_views:function:float32': 'output 0: values differ at (0, 0): msnb 3.611605167388916 torch -8.478373527526855 (4 of 4)',
    'as_strided.partial_views:method:float32': 'output 0: values differ at (0, 0): msnb 3.611605167388916 torch -8.478373527526855 (4 of 4)',
    'as_strided_scatter:function:float32': 'grad: gradient of input 0: values differ at (0,): msnb 0.0 torch 0.1257302165031433 (1 of 1)',
    'as_strided_scatter:method:float32': 'grad: gradient of input 0: values differ at (0,): msnb 0.0 torch 0.1257302165031433 (1 of 1)',
    'as_strided_scatter:function:float64': 'grad: gradient of input 0: values differ at (0,): msnb 0.0 torch 0.1257302210933933 (1 of 1)',
    'svd_lowrank:function:float32': 'NotSupportedError: torch.svd_lowrank is not supported by msnb yet',
    'svd_lowrank:function:float64': 'NotSupportedError: torch.svd_lowrank is not supported by msnb yet',
    'pca_lowrank:function:float32': 'NotSupportedError: torch.pca_lowrank is not supported by msnb yet',
    'pca_lowrank:function:float64': 'NotSupportedError: torch.pca_lowrank is not supported by msnb yet',
    'chalf:method:float32': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'chalf:method:float64': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'chalf:method:int64': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'chalf:method:bool': 'NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'histogramdd:function:float32': 'ValueError: `bins[4]` must be monotonically increasing, when an array',
    'to_sparse:method:float32': 'output 0: msnb returned SparseCooTensor, torch a Tensor',
    'to_sparse:method:float64': 'output 0: msnb returned SparseCooTensor, torch a Tensor',
    'to_sparse:method:int64': 'output 0: msnb returned SparseCooTensor, torch a Tensor',
    'to_sparse:method:bool': 'output 0: msnb returned SparseCooTensor, torch a Tensor',
    'hash_tensor:function:float32': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'hash_tensor:method:float32': 'NotSupportedError: torch.Tensor.hash_tensor is not supported by msnb yet',
    'hash_tensor:function:float64': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'hash_tensor:function:int64': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'hash_tensor:function:bool': 'NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'linalg.eig:function:float32': 'output 1: values differ at (0, 0): msnb (0.09160061180591583-0.5754725933074951j) torch (-0.09160041064023972+0.5754726529121399j) (15 of 25)',
    'linalg.eig:function:float64': 'output 1: values differ at (0, 0): msnb (0.05028862872655874+0.20336883074278728j) torch (-0.05028862872655876-0.2033688307427875j) (10 of 25)',
    'linalg.eigh:function:float64': 'output 1: values differ at (0, 2): msnb 0.017642807037354706 torch -0.017642807037354623 (10 of 25)',
}
