"""Nested containers of tensors (PyTorch's pytrees) for the function transforms.

A tree is a tuple, list, dict or namedtuple of trees, or a leaf (anything
else).  :func:`flatten` gives the leaves in order and a spec that
:func:`unflatten` rebuilds the same containers from."""

from __future__ import annotations

__all__ = ["flatten", "unflatten", "Spec", "LEAF", "broadcast_prefix"]


class Spec:
    """The shape of a tree: its container type, keys and children's specs."""

    __slots__ = ("kind", "keys", "children", "n_leaves")

    def __init__(self, kind, keys=None, children=()):
        self.kind = kind
        self.keys = keys
        self.children = tuple(children)
        self.n_leaves = 1 if kind is None else sum(c.n_leaves for c in self.children)

    def __eq__(self, other):
        return (isinstance(other, Spec) and self.kind == other.kind and self.keys == other.keys
                and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, self.keys, self.children))

    def __repr__(self):
        if self.kind is None:
            return "*"
        name = getattr(self.kind, "__name__", str(self.kind))
        return f"TreeSpec({name}, {list(self.keys) if self.keys is not None else None}, " \
               f"[{', '.join(map(repr, self.children))}])"


LEAF = Spec(None)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(tree):
    """``(leaves, spec)`` of ``tree``."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(tree, leaves):
    if isinstance(tree, dict):
        keys = tuple(tree)
        return Spec(dict, keys, [_flatten(tree[k], leaves) for k in keys])
    if _is_namedtuple(tree):
        return Spec(type(tree), None, [_flatten(v, leaves) for v in tree])
    if isinstance(tree, (tuple, list)):
        return Spec(type(tree) if type(tree) in (tuple, list) else tuple, None,
                    [_flatten(v, leaves) for v in tree])
    leaves.append(tree)
    return LEAF


def unflatten(leaves, spec):
    """The tree of ``spec`` with ``leaves`` in order."""
    it = iter(leaves)
    return _build(it, spec)


def _build(it, spec):
    if spec.kind is None:
        return next(it)
    vals = [_build(it, c) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.keys, vals))
    if spec.kind in (tuple, list):
        return spec.kind(vals)
    return spec.kind(*vals)  # namedtuple


def broadcast_prefix(prefix, tree):
    """One value per leaf of ``tree``: ``prefix`` is a tree whose leaves stand for
    whole subtrees of ``tree`` (vmap's ``in_dims``/``out_dims``).  ``None`` when
    the structures do not match."""
    out = []
    if _broadcast(prefix, tree, out):
        return out
    return None


def _broadcast(prefix, tree, out):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * flatten(tree)[1].n_leaves)
        return True
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            return False
        return all(_broadcast(prefix[k], tree[k], out) for k in tree)
    if not isinstance(tree, (tuple, list)) or isinstance(tree, dict) or len(prefix) != len(tree):
        return False
    return all(_broadcast(p, t, out) for p, t in zip(prefix, tree))
