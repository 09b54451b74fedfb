"""msnb implementation of ``torch.distributed.checkpoint.state_dict``: model and optimizer state dicts of
(sharded) models, keyed by the parameters' own names.

Keys are PyTorch's FQNs: DDP's ``module.``, FSDP1's ``_fsdp_wrapped_module.``
and the activation-checkpoint wrapper's ``_checkpoint_wrapped_module.`` are
dropped, and an optimizer's state is keyed by parameter name.
``StateDictOptions(full_state_dict=True)`` gathers every sharded parameter
(and its optimizer state) into the whole tensor; with ``cpu_offload=True``
as well only rank 0 gets the values (the other ranks an empty dict), as
PyTorch.  Otherwise a sharded parameter's value, and its optimizer state
(exp_avg, ...), is a DTensor of this rank's piece, as PyTorch's -- the form
``torch.distributed.checkpoint.save`` writes piece by piece.  ``set_*`` take
either form and
``broadcast_from_rank0=True`` loads rank 0's full dict on every rank.
"""

from __future__ import annotations

import dataclasses

from ..tensor._api import DTensor
from ..tensor._sharded import ShardedParameter, gathered_like, load_value, piece_of, state_value

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict",
           "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict"]


def _dist():
    from ... import distributed
    return distributed


def _torch():
    import msnb.adapter.torch as torch
    return torch


@dataclasses.dataclass
class StateDictOptions:
    """msnb implementation of ``StateDictOptions``."""

    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _fqn(model, name: str) -> str:
    """``name`` without the DDP / FSDP1 wrapper segments (PyTorch's canonical FQN)."""
    from ...nn.parallel import DistributedDataParallel
    from ..fsdp.fully_sharded_data_parallel import FSDP_WRAPPED_MODULE
    out, obj = [], model
    for part in name.split("."):
        wrapper = (isinstance(obj, DistributedDataParallel) and part == "module") or part in (
            FSDP_WRAPPED_MODULE, "_checkpoint_wrapped_module")
        obj = getattr(obj, part, None) if obj is not None else None
        if not wrapper:
            out.append(part)
    return ".".join(out)


def _options(options):
    return options if options is not None else StateDictOptions()


def _owned(model):
    """FQN -> the parameter or buffer object (the pieces of a sharded model)."""
    own = {}
    for mp, m in model.named_modules():
        pre = mp + ("." if mp else "")
        for k, p in m._parameters.items():
            if p is not None:
                own.setdefault(_fqn(model, pre + k), p)
        for k, b in m._buffers.items():
            if b is not None and k not in m._non_persistent_buffers_set:
                own.setdefault(_fqn(model, pre + k), b)
    return own


def _rank0_only(opts) -> bool:
    return opts.full_state_dict and opts.cpu_offload and _dist().is_initialized() and _dist().get_rank() != 0


def get_model_state_dict(model, *, submodules=None, options=None):
    """msnb implementation of ``get_model_state_dict``."""
    if submodules is not None:
        raise NotImplementedError("get_model_state_dict(submodules=...) is not supported by msnb yet (see the "
                                  "support list: python -m msnb.adapter.support --markdown)")
    opts = _options(options)
    out = {}
    for k, v in _owned(model).items():
        if opts.ignore_frozen_params and getattr(v, "requires_grad", False) is False and \
                isinstance(v, _torch().nn.Parameter):
            continue
        if isinstance(v, ShardedParameter):
            out[k] = gathered_like(v, v) if opts.full_state_dict else state_value(v)  # every rank gathers
        else:
            out[k] = v.detach().clone()
    return {} if _rank0_only(opts) else out


def _from_rank0(sd, opts):
    if not opts.broadcast_from_rank0:
        return sd
    box = [sd if _dist().get_rank() == 0 else None]
    _dist().broadcast_object_list(box, src=0)
    return box[0]


def set_model_state_dict(model, model_state_dict, *, options=None):
    """msnb implementation of ``set_model_state_dict``: whole values are cut to this rank's pieces."""
    from ...nn.modules.module import _IncompatibleKeys
    opts = _options(options)
    sd = _from_rank0(model_state_dict, opts)
    torch = _torch()
    own = _owned(model)
    missing = [k for k in own if k not in sd]
    unexpected = [k for k in sd if k not in own]
    if opts.strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict for {type(model).__name__}: missing keys {missing}, "
                           f"unexpected keys {unexpected}")
    with torch.no_grad():
        for k, dst in own.items():
            if k not in sd:
                continue
            src = sd[k]
            if isinstance(dst, ShardedParameter):
                src = load_value(dst, src)
            src = src if isinstance(src, torch.Tensor) else torch.tensor(src)
            if tuple(src.shape) != tuple(dst.shape):
                raise RuntimeError(f"size mismatch for {k}: copying a param with shape {tuple(src.shape)}, the "
                                   f"shape in current model is {tuple(dst.shape)}")
            dst.copy_(src)
    return _IncompatibleKeys(missing, unexpected)


def _optimizers(optimizers):
    return list(optimizers) if isinstance(optimizers, (list, tuple)) else [optimizers]


def _names_by_id(model):
    return {id(p): k for k, p in _owned(model).items()}


def _init_optim_state(optim):
    """Give a fresh optimizer its state tensors (PyTorch's private helper, which the FSDP2 example calls):
    one ``step()`` on zero gradients with the learning rates set to 0, unless it has state or gradients."""
    torch = _torch()
    params = [p for g in optim.param_groups for p in g["params"]]
    if optim.state or any(p.grad is not None for p in params):
        return
    for p in params:
        if p.requires_grad:
            p.grad = torch.zeros_like(p)
    saved = []
    for g in optim.param_groups:
        if "lr" in g:
            saved.append(g["lr"])
            g["lr"] = torch.tensor(0.0) if isinstance(g["lr"], torch.Tensor) else 0.0
    optim.step()
    for g in optim.param_groups:
        if "lr" in g:
            g["lr"] = saved.pop(0)
    optim.zero_grad(set_to_none=True)


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    """msnb implementation of ``get_optimizer_state_dict``: state and ``params`` keyed by FQN (a fresh
    optimizer's state is made first, as PyTorch does, so a checkpoint can be loaded into it)."""
    opts = _options(options)
    for opt in _optimizers(optimizers):
        _init_optim_state(opt)
    names = _names_by_id(model)
    torch = _torch()
    state, groups = {}, []
    for opt in _optimizers(optimizers):
        sd = opt.state_dict()
        params = [p for g in opt.param_groups for p in g["params"]]
        for g in sd["param_groups"]:
            groups.append({**{k: v for k, v in g.items() if k != "params"},
                           "params": [names[id(params[i])] for i in g["params"]]})
        for i, st in sd["state"].items():
            p = params[i]
            entry = {}
            for k, v in st.items():
                if isinstance(v, torch.Tensor) and isinstance(p, ShardedParameter) and opts.full_state_dict and \
                        tuple(v.shape) == tuple(p.shape) and v.dim() > 0:
                    v = gathered_like(p, v)
                elif isinstance(v, torch.Tensor) and isinstance(p, ShardedParameter) and v.dim() > 0 and \
                        tuple(v.shape) == tuple(p.shape):
                    v = DTensor(v.detach().clone(), *p.__dict__["_dspec"])  # the piece as a DTensor, as PyTorch
                elif isinstance(v, torch.Tensor):
                    v = v.detach().clone()
                entry[k] = v
            state[names[id(p)]] = entry
    return {} if _rank0_only(opts) else {"state": state, "param_groups": groups}


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """msnb implementation of ``set_optimizer_state_dict`` (whole state tensors are cut to pieces)."""
    opts = _options(options)
    osd = _from_rank0(optim_state_dict, opts)
    for opt in _optimizers(optimizers):
        _init_optim_state(opt)
    names = _names_by_id(model)
    torch = _torch()
    groups = list(osd["param_groups"])
    for opt in _optimizers(optimizers):
        params = [p for g in opt.param_groups for p in g["params"]]
        index = {names[id(p)]: i for i, p in enumerate(params)}
        mine, state = [], {}
        for g in groups[:len(opt.param_groups)]:
            mine.append({**g, "params": [index[n] for n in g["params"]]})
            for n in g["params"]:
                if n not in osd["state"]:
                    continue
                p = params[index[n]]
                st = {}
                for k, v in osd["state"][n].items():
                    if isinstance(v, DTensor):
                        v = v.full_tensor() if tuple(v.to_local().shape) != tuple(p.shape) else v.to_local()
                    if isinstance(v, torch.Tensor) and isinstance(p, ShardedParameter) and v.dim() > 0 and \
                            tuple(v.shape) != tuple(p.shape):
                        v = piece_of(p, v)
                    st[k] = v
                state[index[n]] = st
        groups = groups[len(opt.param_groups):]
        opt.load_state_dict({"state": state, "param_groups": mine})


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """msnb implementation of ``get_state_dict``: (model state dict, optimizer state dict)."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules, options=options))


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    """msnb implementation of ``set_state_dict``."""
    keys = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return keys
