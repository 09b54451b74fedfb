"""Cases of the extremal-value replay (NaN / inf / signed zeros) known to fail, each with why.

Like PyTorch's ``xfail`` decorators, in one place: ``test_extremal_values`` fails when a
case listed here passes (remove the entry) or when a case not listed fails.  Keys are
``"<op>[.<variant>]:<form>:float32"``; the reason is the first failing sample and extremal
variant (``<sample index>/mixed``) and its message.  Regenerate with
``python tools/opinfo_report.py --write-expected-extremal`` after fixing ops.
"""

__all__ = ["EXPECTED_EXTREMAL_FAILURES"]

EXPECTED_EXTREMAL_FAILURES = {
    'cdist:function:float32': '0/mixed: output 0: values differ at (0, 0, 0): msnb nan torch 2.0 (105 of 150)',
    'cumprod:function:float32': '0/mixed: grad: gradient of input 0: values differ at (0, 0, 3): msnb nan torch 0.10490011423826218 (50 of 125)',
    'geqrf:function:float32': '0/mixed: output 0: values differ at (0, 0): msnb inf torch -inf (1 of 25)',
    'lu:function:float32': '0/mixed: output 0: values differ at (0, 0): msnb 0.0 torch inf (12 of 15)',
    'quantile:function:float32': '0/mixed: grad: gradient of input 0: values differ at (): msnb 0.0 torch 0.1257302165031433 (1 of 1)',
    'nanquantile:function:float32': '0/mixed: grad: gradient of input 0: values differ at (): msnb 0.0 torch 0.1257302165031433 (1 of 1)',
    'nn.functional.adaptive_avg_pool3d:function:float32': '1/mixed: output 0: values differ at (0, 0, 0, 1): msnb nan torch inf (336 of 1120)',
    'nn.functional.conv_transpose3d:function:float32': '0/mixed: output 0: values differ at (0, 0, 0, 1, 5): msnb nan torch inf (92 of 648)',
    'nn.functional.conv1d:function:float32': '0/mixed: output 0: values differ at (0, 2, 0): msnb 0.0 torch nan (1 of 9)',
    'nn.functional.conv2d:function:float32': '0/mixed: output 0: values differ at (0, 2, 0, 0): msnb 0.0 torch nan (1 of 27)',
    'nn.functional.multi_margin_loss:function:float32': '0/mixed: output 0: values differ at (): msnb nan torch 0.0 (1 of 1)',
    'nn.functional.multilabel_margin_loss:function:float32': '0/mixed: output 0: values differ at (): msnb nan torch 0.0 (1 of 1)',
    'nn.functional.prelu:function:float32': '0/mixed: grad: gradient of input 0: values differ at (9,): msnb nan torch -1.2654215097427368 (3 of 20)',
    'nn.functional.gelu:function:float32': '0/mixed: output 0: values differ at (0, 2): msnb inf torch nan (13 of 100)',
    'mode:function:float32': '0/mixed: grad: gradient of input 0: values differ at (1, 3, 0): msnb 0.0 torch -0.7037352323532104 (2 of 125)',
    'ormqr:function:float32': '0/mixed: output 0: values differ at (0, 2): msnb nan torch inf (1 of 25)',
    'polygamma.polygamma_n_0:function:float32': '0/mixed: output 0: values differ at (1, 1): msnb inf torch nan (3 of 25)',
    'polygamma.polygamma_n_1:function:float32': '0/mixed: output 0: values differ at (1, 1): msnb inf torch nan (3 of 25)',
    'polygamma.polygamma_n_2:function:float32': '0/mixed: output 0: values differ at (1, 1): msnb inf torch nan (3 of 25)',
    'polygamma.polygamma_n_3:function:float32': '0/mixed: output 0: values differ at (1, 1): msnb inf torch nan (3 of 25)',
    'polygamma.polygamma_n_4:function:float32': '0/mixed: output 0: values differ at (1, 1): msnb inf torch nan (3 of 25)',
    'chalf:method:float32': '0/mixed: NotSupportedError: torch.Tensor.chalf is not supported by msnb yet',
    'renorm:function:float32': '0/mixed: grad: gradient of input 0: values differ at (0, 3, 0): msnb nan torch -0.7322673797607422 (18 of 125)',
    'nn.functional.grid_sample:function:float32': '0/mixed: RuntimeError: index -9223372036854775798 is out of bounds for dimension 2 with size 25',
    'grid_sampler_2d:function:float32': '0/mixed: RuntimeError: index -9223372036854775768 is out of bounds for dimension 2 with size 100',
    'grid_sampler_3d:function:float32': '0/mixed: output 0: values differ at (0, 0, 0, 0, 0): msnb nan torch 0.0 (1 of 1)',
    'prod:function:float32': '0/mixed: grad: gradient of input 0: values differ at (0, 0, 0): msnb nan torch 0.0 (93 of 125)',
    'hash_tensor:function:float32': '0/all: NotSupportedError: torch.hash_tensor is not supported by msnb yet',
    'nn.functional.ctc_loss:function:float32': '0/mixed: output 0: values differ at (1,): msnb nan torch 0.0 (1 of 16)',
    'nn.functional.cosine_embedding_loss:function:float32': '0/mixed: output 0: values differ at (0,): msnb nan torch 0.0 (4 of 5)',
    'scatter_reduce.amin:function:float32': '0/mixed: grad: gradient of input 1: values differ at (0, 3): msnb 1.8016349077224731 torch 0.9008174538612366 (2 of 25)',
    'scatter_reduce.amax:function:float32': '0/mixed: grad: gradient of input 1: values differ at (0, 3): msnb 1.8016349077224731 torch 0.9008174538612366 (2 of 25)',
    'fft.hfft:function:float32': '0/mixed: output 0: values differ at (0, 1, 0): msnb nan torch -inf (226 of 350)',
    'fft.hfft2:function:float32': '0/mixed: output 0: values differ at (1, 0, 1): msnb nan torch inf (4 of 150)',
    'fft.hfftn:function:float32': '0/mixed: output 0: values differ at (1, 0, 1): msnb nan torch inf (4 of 150)',
    'fft.irfft:function:float32': '0/mixed: output 0: values differ at (0, 1, 0): msnb nan torch -inf (226 of 350)',
    'fft.irfft2:function:float32': '0/mixed: output 0: values differ at (1, 0, 1): msnb nan torch inf (4 of 150)',
    'fft.irfftn:function:float32': '0/mixed: output 0: values differ at (1, 0, 1): msnb nan torch inf (4 of 150)',
    'linalg.det:function:float32': '1/mixed: LinAlgError: SVD did not converge',
    'linalg.cholesky_ex:function:float32': '0/mixed: output 0: values differ at (0, 1): msnb 0.0 torch 0.03001582995057106 (10 of 25)',
    'linalg.householder_product:function:float32': '0/mixed: output 0: values differ at (0, 0): msnb nan torch 0.040203094482421875 (6 of 25)',
    'linalg.ldl_factor_ex:function:float32': '0/mixed: output 0: values differ at (3, 2): msnb -0.0 torch nan (2 of 25)',
    'linalg.lu_factor:function:float32': '0/mixed: RuntimeError: torch.linalg.lu_factor: U[1,1] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider ...',
    'linalg.lu_factor_ex:function:float32': '0/mixed: output 0: values differ at (0, 0): msnb 0.0 torch inf (12 of 15)',
    'linalg.lu:function:float32': '0/mixed: output 0: values differ at (0, 0): msnb 1.0 torch 0.0 (4 of 9)',
    'linalg.lu_solve:function:float32': '0/mixed: output 0: values differ at (0, 0): msnb nan torch inf (2 of 12)',
    'special.polygamma.special_polygamma_n_0:function:float32': '0/mixed: output 0: values differ at (1, 1): msnb inf torch nan (3 of 25)',
}
