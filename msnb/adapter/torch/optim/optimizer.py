"""``torch.optim.Optimizer``: param groups, state, ``zero_grad``, state dicts."""

from __future__ import annotations

import copy
from collections import defaultdict

from ..autograd.grad_mode import no_grad

__all__ = ["Optimizer"]


class Optimizer:
    """msnb implementation of ``torch.optim.Optimizer``."""

    def __init__(self, params, defaults):
        from .._tensor import Tensor
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            f"dicts, but got {type(params).__name__}")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for g in params:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        from .._tensor import Tensor
        group = dict(param_group)
        ps = group["params"]
        group["params"] = [ps] if isinstance(ps, Tensor) else list(ps)
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad = p.grad.detach() * 0

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from ..autograd.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group):
        raise NotImplementedError

    def state_dict(self):
        index = {}
        groups = []
        i = 0
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                if id(p) not in index:
                    index[id(p)] = i
                    i += 1
                ids.append(index[id(p)])
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        state_dict = copy.copy(state_dict)
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        id_map = {}
        for g, saved in zip(self.param_groups, groups):
            if len(g["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size "
                                 "of optimizer's group")
            for p, i in zip(g["params"], saved["params"]):
                id_map[i] = p
            for k, v in saved.items():
                if k != "params":
                    g[k] = v
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            p = id_map.get(int(i))
            if p is not None:
                self.state[p] = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in s.items()}

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += f"\nParameter Group {i}"
            for k in sorted(g):
                if k != "params":
                    s += f"\n    {k}: {g[k]}"
        return s + "\n)"
