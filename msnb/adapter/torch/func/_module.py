"""``torch.func.functional_call`` and ``stack_module_state``: a module run with
other tensors in place of its parameters and buffers, and several modules'
state stacked for ``vmap``."""

from __future__ import annotations

import contextlib

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _owner(module, name):
    """``(submodule, attribute)`` of a dotted ``name``."""
    *path, attr = name.split(".")
    m = module
    for p in path:
        sub = m._modules.get(p) if hasattr(m, "_modules") else None
        if sub is None:
            raise AttributeError(f"{type(m).__name__} has no attribute `{p}`")
        m = sub
    return m, attr


def _tied_names(module):
    """Each parameter/buffer name -> every name of the same tensor object."""
    by_id = {}
    for store in ("_parameters", "_buffers"):
        for mod_name, m in module.named_modules(remove_duplicate=False):
            for n, t in m.__dict__[store].items():
                if t is not None:
                    by_id.setdefault(id(t), []).append(f"{mod_name}.{n}" if mod_name else n)
    out = {}
    for names in by_id.values():
        names = list(dict.fromkeys(names))
        for n in names:
            out[n] = names
    return out


@contextlib.contextmanager
def _swapped(module, values):
    saved = []
    try:
        for name, value in values.items():
            m, attr = _owner(module, name)
            d = m.__dict__
            for store in ("_parameters", "_buffers"):
                if attr in d[store]:
                    saved.append((d[store], attr, d[store][attr]))
                    d[store][attr] = value
                    break
            else:
                saved.append((d, attr, d.get(attr, _MISSING)))
                d[attr] = value
        yield
    finally:
        for store, attr, old in reversed(saved):
            if old is _MISSING:
                store.pop(attr, None)
            else:
                store[attr] = old


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """msnb implementation of ``torch.func.functional_call``."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError(f"{dup} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    known = dict(module.named_parameters(remove_duplicate=False))
    known.update(dict(module.named_buffers(remove_duplicate=False)))
    if tie_weights:
        tied = _tied_names(module)
        for name in list(values):
            group = tied.get(name, [name])
            given = [n for n in group if n in values]
            if len(given) > 1 and len({id(values[n]) for n in given}) > 1:
                raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                                 "Consider using tie_weights=False")
            for n in group:
                values.setdefault(n, values[name])
    if strict:
        unexpected = [k for k in values if k not in known]
        missing = [k for k in known if k not in values]
        if unexpected or missing:
            msg = f"Error(s) in reparametrizing for {type(module).__name__}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(repr(k) for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(repr(k) for k in missing) + "."
            raise RuntimeError(msg)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, values):
        return module(*args, **(kwargs or {}))


def stack_module_state(models):
    """msnb implementation of ``torch.func.stack_module_state``: ``(params, buffers)``
    with each name's tensors stacked along a new first dimension."""
    from .._ops.shape import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named):
        out = {}
        for name in named[0]:
            ts = [d[name] for d in named]
            req = [t.requires_grad for t in ts]
            if any(req) and not all(req):
                raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
            s = stack([t.detach() for t in ts])
            out[name] = s.requires_grad_(True) if all(req) else s
        return out

    params = stacked([dict(m.named_parameters()) for m in models])
    buffers = stacked([dict(m.named_buffers()) for m in models])
    return params, buffers
