"""msnb implementation of ``torch.fx.subgraph_rewriter``: find every
non-overlapping occurrence of a pattern's data flow in a GraphModule and
replace it with another function's graph (``replace_pattern``)."""

from __future__ import annotations

from typing import Callable, NamedTuple

from .._missing import module_getattr
from .graph import Graph
from .graph_module import GraphModule
from .node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    """One replaced occurrence: the pattern node that anchored it, and pattern node -> graph node."""

    anchor: Node
    nodes_map: dict


def _graph_of(f) -> Graph:
    if isinstance(f, GraphModule):
        return f.graph
    if isinstance(f, Graph):
        return f
    from ._symbolic_trace import symbolic_trace
    return symbolic_trace(f).graph


def _returned_nodes(g: Graph) -> list[Node]:
    out = next(n for n in reversed(g.nodes) if n.op == "output")
    vals = out.args[0]
    vals = list(vals) if isinstance(vals, (tuple, list)) else [vals]
    if not all(isinstance(v, Node) for v in vals):
        raise NotImplementedError("replace_pattern: the pattern must return graph values only")
    return vals


def _match_arg(pa, ga, m: dict) -> bool:
    if isinstance(pa, Node):
        return isinstance(ga, Node) and _match_node(pa, ga, m)
    if isinstance(pa, (list, tuple)):
        return isinstance(ga, (list, tuple)) and len(pa) == len(ga) and all(_match_arg(a, b, m) for a, b in zip(pa, ga))
    if isinstance(pa, dict):
        return isinstance(ga, dict) and pa.keys() == ga.keys() and all(_match_arg(pa[k], ga[k], m) for k in pa)
    return type(pa) is type(ga) and pa == ga


def _match_node(pn: Node, gn: Node, m: dict) -> bool:
    if pn in m:
        return m[pn] is gn
    if pn.op == "placeholder":
        if gn in m.values():
            return False
        m[pn] = gn
        return True
    if pn.op != gn.op or pn.target != gn.target or len(pn.args) != len(gn.args) or pn.kwargs.keys() != gn.kwargs.keys():
        return False
    m[pn] = gn
    return _match_arg(pn.args, gn.args, m) and _match_arg(pn.kwargs, gn.kwargs, m)


def _find_matches(graph: Graph, pattern: Graph) -> list[dict]:
    anchors = _returned_nodes(pattern)
    if len(anchors) != 1:
        raise NotImplementedError("replace_pattern with a pattern returning several values is not supported by "
                                  "msnb yet (see the support list: python -m msnb.adapter.support --markdown)")
    anchor = anchors[0]
    matches, taken = [], set()
    for gn in graph.nodes:
        m: dict = {}
        if not _match_node(anchor, gn, m):
            continue
        internal = [g for p, g in m.items() if p.op != "placeholder"]
        inside = set(internal)
        if any(g in taken for g in internal):
            continue
        # a matched value other than the anchor must not be used outside the match
        if any(u not in inside for p, g in m.items() if p.op != "placeholder" and p is not anchor for u in g.users):
            continue
        taken.update(internal)
        matches.append(m)
    return matches


def replace_pattern(gm: GraphModule, pattern: Callable, replacement: Callable) -> list[Match]:
    """Replace each occurrence of ``pattern`` in ``gm``'s graph by ``replacement``; returns the matches."""
    pg, rg = _graph_of(pattern), _graph_of(replacement)
    p_inputs = [n for n in pg.nodes if n.op == "placeholder"]
    r_inputs = [n for n in rg.nodes if n.op == "placeholder"]
    if len(p_inputs) != len(r_inputs):
        raise RuntimeError("replace_pattern: the pattern and the replacement must take the same number of inputs")
    anchor = _returned_nodes(pg)[0]
    graph = gm.graph
    results = []
    for m in _find_matches(graph, pg):
        g_anchor = m[anchor]
        val_map = {r: m[p] for p, r in zip(p_inputs, r_inputs) if p in m}
        order = {n: i for i, n in enumerate(graph.nodes)}
        first_user = min(g_anchor.users, key=order.__getitem__, default=g_anchor)
        with graph.inserting_before(first_user):  # where PyTorch puts the replacement: before the first use
            new = graph.graph_copy(rg, val_map)
        if isinstance(new, (tuple, list)):
            new = new[0]
        g_anchor.replace_all_uses_with(new)
        for p in reversed(list(pg.nodes)):
            if p.op not in ("placeholder", "output") and p in m and not m[p].users:
                graph.erase_node(m[p])
        results.append(Match(anchor=anchor, nodes_map=m))
    gm.recompile()
    return results


__getattr__ = module_getattr("torch.fx.subgraph_rewriter")
