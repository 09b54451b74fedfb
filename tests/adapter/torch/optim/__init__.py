"""Differential tests of msnb.adapter.torch.optim against real PyTorch."""
