"""msnb implementation of ``torch.nn.utils.prune``: a pruned parameter ``name`` moves to
``name + "_orig"``, a ``name + "_mask"`` buffer holds which entries survive, and a
forward pre-hook (the pruning method object itself) sets ``module.name = mask * orig``
before each call, so gradients reach the original parameter through the mask.

Pruning the same parameter again combines the masks in a ``PruningContainer``: the new
method only sees what earlier ones kept (the surviving entries, or the channels not yet
fully pruned for structured methods).  Which entries go follows PyTorch: the smallest
magnitudes (``topk`` of ``abs``), the smallest Ln norms along ``dim``, or the largest
of ``rand_like`` draws, so seeded programs prune the same entries as PyTorch.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


def _torch():
    import msnb.adapter.torch as torch
    return torch


def _check_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount, size):
    """How many of ``size`` entries (or channels) ``amount`` prunes: an int as given, a fraction rounded."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return int(amount)
    return round(amount * size)


def _check_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


class BasePruningMethod(ABC):
    """A way to choose a mask; its instances are the forward pre-hooks of pruned modules."""

    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t`` given the mask already in force."""

    def apply_mask(self, module):
        if getattr(self, "_tensor_name", None) is None:
            raise AssertionError(f"Module {module} has to be pruned")
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        torch = _torch()
        earlier, keys = None, []
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                if earlier is not None:
                    raise AssertionError(f"More than one pruning method hook for parameter {name}")
                earlier, keys = hook, [k]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if earlier is not None:
            container = earlier if isinstance(earlier, PruningContainer) else PruningContainer(earlier)
            container.add_pruning_method(method)
            method = container
            for k in keys:
                del module._forward_pre_hooks[k]
        orig = getattr(module, name)
        scores = orig if importance_scores is None else importance_scores
        if tuple(scores.shape) != tuple(orig.shape):
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}")
        if earlier is None:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = torch.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(scores, default_mask=default_mask)
        except Exception:
            if earlier is None:  # undo the move: the module is as it was
                orig = module._parameters.pop(name + "_orig")
                module.register_parameter(name, orig)
            raise
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        torch = _torch()
        scores = t if importance_scores is None else importance_scores
        if tuple(scores.shape) != tuple(t.shape):
            raise AssertionError("importance_scores should have the same shape as tensor t")
        default_mask = default_mask if default_mask is not None else torch.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        if getattr(self, "_tensor_name", None) is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The methods applied in turn to one parameter; its mask combines theirs."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1 and not isinstance(args[0], (list, tuple)):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        elif len(args) == 1:
            self._tensor_name = args[0][0]._tensor_name
            for m in args[0]:
                self.add_pruning_method(m)
        else:
            if args:
                self._tensor_name = args[0]._tensor_name
            for m in args:
                self.add_pruning_method(m)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        new = default_mask.clone()
        if kind == "unstructured":
            keep = default_mask == 1
            new[keep] = method.compute_mask(t[keep], default_mask=default_mask[keep]).to(dtype=new.dtype)
            return new
        if kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to have the attribute `dim` "
                                     "defined.")
            dim = method.dim if method.dim >= 0 else t.dim() + method.dim
            others = [d for d in range(t.dim()) if d != dim]
            alive = (default_mask.sum(dim=others) != 0) if others else (default_mask != 0)
            idx = alive.nonzero().reshape(-1)
            part = method.compute_mask(t.index_select(dim, idx), default_mask=default_mask.index_select(dim, idx))
            new.index_copy_(dim, idx, part.to(dtype=new.dtype))
            return new
        if kind == "global":
            return method.compute_mask(t, default_mask=default_mask)
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _zero_top_k(default_mask, k, scores, largest):
    """``default_mask`` with the ``k`` entries of largest (or smallest) ``scores()`` set to 0; the
    scores are drawn only when something is pruned (PyTorch draws no random numbers for k == 0)."""
    mask = default_mask.clone()
    if k != 0:
        idx = _torch().topk(scores().reshape(-1), k=k, largest=largest).indices
        mask.view(-1)[idx] = 0
    return mask


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries chosen uniformly at random (the largest ``rand_like`` draws)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        torch = _torch()
        return _zero_top_k(default_mask, _count_to_prune(self.amount, t.numel()),
                           lambda: torch.rand_like(t), largest=True)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest magnitude."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        torch = _torch()
        return _zero_top_k(default_mask, _count_to_prune(self.amount, t.numel()),
                           lambda: torch.abs(t), largest=False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        torch = _torch()
        _check_dim(t, self.dim)
        n = t.shape[self.dim]
        k = _count_to_prune(self.amount, n)
        if k == 0:
            return default_mask
        draws = torch.rand(n)
        keep = draws > torch.kthvalue(draws, k=k).values
        return _channel_mask(t, self.dim, keep.nonzero().reshape(-1)) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest Ln norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        torch = _torch()
        _check_dim(t, self.dim)
        size = t.shape[self.dim]
        k = _count_to_prune(self.amount, size)
        keep = size - k
        dim = self.dim if self.dim >= 0 else t.dim() + self.dim
        others = [d for d in range(t.dim()) if d != dim]
        norms = torch.linalg.vector_norm(t, ord=self.n, dim=others) if others else torch.abs(t)
        if keep == 0:
            return torch.zeros_like(t)
        idx = torch.topk(norms, k=keep, largest=True).indices
        return _channel_mask(t, dim, idx) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


def _channel_mask(t, dim, idx):
    """Ones on the channels ``idx`` along ``dim``, zeros elsewhere."""
    torch = _torch()
    mask = torch.zeros_like(t)
    return mask.index_fill(dim, idx, 1.0) if idx.numel() else mask


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise AssertionError("the mask and the parameter have different shapes")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune ``parameters`` (``(module, name)`` pairs) together: one mask over all their entries."""
    torch = _torch()
    from collections.abc import Iterable
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = torch.cat([importance_scores.get((m, n), getattr(m, n)).reshape(-1) for m, n in parameters])
    masks = torch.cat([getattr(m, n + "_mask", torch.ones_like(getattr(m, n))).reshape(-1) for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f'{pruning_method} of type {method.PRUNING_TYPE}')
    final = PruningContainer(method).compute_mask(scores, masks)
    start = 0
    for m, n in parameters:
        p = getattr(m, n)
        count = p.numel()
        custom_from_mask(m, n, mask=final[start:start + count].view_as(p))
        start += count


def remove(module, name):
    """Make the pruning permanent: ``name`` is a plain parameter again holding ``mask * orig``."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether any submodule of ``module`` carries a pruning hook."""
    for m in module.modules():
        for hook in m._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
