"""msnb implementation of ``torch.distributed.autograd``: backward passes that
cross RPC boundaries, with gradients kept per context.

Inside ``with context() as cid``, every tensor that requires grad and travels
in an RPC is recorded: a *send* on the worker it leaves (the tensor, part of
that worker's graph) and a *recv* on the worker it reaches (a fresh leaf that
requires grad).  ``backward(cid, [loss])`` runs msnb's autograd on this
worker's part of the graph, sends the gradient of each recv leaf back to its
sender, which continues on its part (and so on, each hop an RPC), and returns
when every worker is done.  Gradients of ordinary leaves (parameters) are
summed in the context of the worker that holds them -- ``.grad`` is not
touched -- and read with ``get_gradients(cid)``; ``DistributedOptimizer``
applies them.  Leaving the context frees it on every worker.

Graphs are kept (``retain_graph``) until the context is freed: a sender may
receive several gradients for one graph, one per tensor it sent.
"""

from __future__ import annotations

import contextlib
import itertools
import threading

__all__ = ["context", "backward", "get_gradients", "is_available", "DistAutogradContext"]

_LOCAL = threading.local()
_CONTEXTS: dict = {}
_LOCK = threading.Lock()
_IDS = itertools.count()


class DistAutogradContext:
    """One distributed autograd context on this worker: its sends, recvs and gradients."""

    def __init__(self, context_id: int):
        self.id = context_id
        self.sends: dict = {}  # send id -> tensor sent
        self.recvs: dict = {}  # id(leaf) -> (leaf, sender rank, send id)
        self.grads: dict = {}  # id(leaf) -> (leaf, summed gradient)
        self.peers: set = set()
        self.lock = threading.Lock()
        self.send_ids = itertools.count()

    def _context_id(self) -> int:
        return self.id


def is_available() -> bool:
    return True


def _agent():
    from ..rpc._agent import current
    return current()


def _current_context_id():
    return getattr(_LOCAL, "ctx", None)


def _get(context_id, create=False) -> DistAutogradContext:
    with _LOCK:
        ctx = _CONTEXTS.get(context_id)
        if ctx is None:
            if not create:
                raise RuntimeError(f"Could not find autograd context with id: {context_id}")
            ctx = _CONTEXTS[context_id] = DistAutogradContext(context_id)
        return ctx


@contextlib.contextmanager
def _in_context(context_id):
    """Run a request inside the caller's context (made here on first use)."""
    if context_id is None:
        yield
        return
    _get(context_id, create=True)
    before = getattr(_LOCAL, "ctx", None)
    _LOCAL.ctx = context_id
    try:
        yield
    finally:
        _LOCAL.ctx = before


class context:  # noqa: N801 - PyTorch's name
    """``with dist_autograd.context() as context_id:`` -- a new context; leaving it frees it on every
    worker it reached."""

    def __enter__(self) -> int:
        if getattr(_LOCAL, "ctx", None) is not None:
            raise RuntimeError("Already have an autograd context id for this thread.")
        agent = _agent()
        self.context_id = (agent.rank << 48) + next(_IDS)  # PyTorch's layout: worker id in the high bits
        _get(self.context_id, create=True)
        _LOCAL.ctx = self.context_id
        return self.context_id

    def __exit__(self, *exc):
        _LOCAL.ctx = None
        _release_everywhere(self.context_id)
        return False


def _record_send(context_id, tensor, dst) -> tuple:
    ctx = _get(context_id, create=True)
    with ctx.lock:
        send_id = (_agent().rank, next(ctx.send_ids))
        ctx.sends[send_id] = tensor
        ctx.peers.add(dst)
    return send_id


def _record_recv(context_id, leaf, src, send_id):
    ctx = _get(context_id, create=True)
    with ctx.lock:
        ctx.recvs[id(leaf)] = (leaf, src, tuple(send_id))
        ctx.peers.add(src)


def get_gradients(context_id: int) -> dict:
    """msnb implementation of ``torch.distributed.autograd.get_gradients``: ``{tensor: gradient}`` of
    the leaves on this worker that the context's backward passes reached."""
    ctx = _get(context_id)
    with ctx.lock:
        return {t: g for t, g in ctx.grads.values()}


def _leaves(roots):
    """Every leaf (AccumulateGrad target) reachable from ``roots``."""
    from ...autograd.graph import AccumulateGrad, edge_of
    out, seen = {}, set()
    stack = [e[0] for e in (edge_of(r) for r in roots) if e is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            out[id(node.variable)] = node.variable
            continue
        for e in node.next_functions:
            if e is not None:
                stack.append(e[0])
    return list(out.values())


def _run(ctx: DistAutogradContext, roots, grad_roots):
    """Backward over this worker's part, then each recv leaf's gradient to its sender (in parallel)."""
    import msnb.adapter.torch as torch
    from ...futures import wait_all
    leaves = _leaves(roots)
    if not leaves:
        return
    grads = torch.autograd.grad(roots, leaves, grad_outputs=grad_roots, retain_graph=True, allow_unused=True)
    onward = []
    agent = _agent()
    for leaf, g in zip(leaves, grads):
        if g is None:
            continue
        with ctx.lock:
            recv = ctx.recvs.get(id(leaf))
            if recv is None:
                _, old = ctx.grads.get(id(leaf), (leaf, None))
                ctx.grads[id(leaf)] = (leaf, g if old is None else old + g)
        if recv is not None:
            _, src, send_id = recv
            onward.append(agent.request(agent.info(src), "backward", (ctx.id, send_id, g), None))
    wait_all(onward)


def _backward_request(caller, context_id, send_id, grad):
    """A gradient for a tensor this worker sent: continue the backward pass from it."""
    ctx = _get(context_id)
    with ctx.lock:
        tensor = ctx.sends.get(tuple(send_id))
    if tensor is None:
        raise RuntimeError(f"distributed autograd: no tensor was sent as {send_id} in context {context_id}")
    if tensor.grad_fn is None:  # a leaf was sent (e.g. a parameter): it takes the gradient itself
        with ctx.lock:
            recv = ctx.recvs.get(id(tensor))
        if recv is None:
            with ctx.lock:
                _, old = ctx.grads.get(id(tensor), (tensor, None))
                ctx.grads[id(tensor)] = (tensor, grad if old is None else old + grad)
            return None
    _run(ctx, [tensor], [grad])
    return None


def backward(context_id: int, roots, retain_graph=False):
    """msnb implementation of ``torch.distributed.autograd.backward``: the backward pass from ``roots``
    (scalar tensors) across every worker the context's RPCs reached."""
    import msnb.adapter.torch as torch
    ctx = _get(context_id)
    roots = list(roots)
    for r in roots:
        if not isinstance(r, torch.Tensor):
            raise TypeError(f"backward: roots must be tensors, got {type(r).__name__}")
        if not r.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if r.numel() != 1:
            raise RuntimeError("Gradients can be implicitly created only for scalar outputs")
    _run(ctx, roots, [torch.ones_like(r) for r in roots])


def _release(context_id):
    with _LOCK:
        _CONTEXTS.pop(context_id, None)


def _release_everywhere(context_id):
    """Free the context here and on every worker of the job (fire-and-forget; shutdown waits for them)."""
    _release(context_id)
    try:
        agent = _agent()
    except RuntimeError:
        return
    for rank, (info, _) in agent.workers.items():
        if rank != agent.rank:
            agent.request(info, "release", context_id, None)


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributed.autograd")
