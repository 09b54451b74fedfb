"""The autograd graph and its engine: PyTorch's tape semantics in plain Python.

Every differentiable op that runs while grad mode is on and one of its inputs
requires grad records a :class:`Node` holding a backward closure and edges to
the nodes of its inputs.  ``backward``/``grad`` walk the graph in dependency
order, sum gradients that meet, run tensor and node hooks, and accumulate into
leaves' ``.grad``.  Backward closures are written with adapter ops, so with
``create_graph=True`` the backward pass is itself recorded (higher-order
gradients) and with it off they run as plain MindSpore kernels.
"""

from __future__ import annotations

import sys as _sys

import weakref
from collections import deque

from .grad_mode import STATE

__all__ = ["Node", "AccumulateGrad", "record", "name_node", "edge_of", "run_backward", "queue_callback",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

_FREED = ("Trying to backward through the graph a second time (or directly access saved "
          "tensors after they have already been freed). Saved intermediate values of the graph "
          "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
          "you need to backward through the graph a second time or if you need to access saved "
          "tensors after calling backward.")


class Node:
    """One recorded op.  ``next_functions`` mirrors torch: ``((node, output_nr), ...)``."""

    __slots__ = ("_name", "next_functions", "_backward", "_saved", "_versions", "_n_out",
                 "_tensor_hooks", "_retain", "_hooks", "_pre_hooks", "metadata", "_packed", "__weakref__")

    def __init__(self, name, edges, backward, saved=(), n_out=1):
        self._name = name
        self.next_functions = edges
        self._backward = backward
        self._saved = saved
        self._versions = tuple(t._v for t in saved)
        self._n_out = n_out
        self._tensor_hooks = None  # {output_nr: [hook]}
        self._retain = None  # {output_nr: weakref(tensor)}
        self._hooks = None
        self._pre_hooks = None
        self.metadata = {}
        self._packed = None  # (unpack_hook, [(closure cell, packed value, requires_grad)]) under saved_tensors_hooks

    def name(self) -> str:
        return self._name

    def __getattr__(self, attr):
        """``grad_fn._saved_self`` / ``_saved_other`` / ``_saved_result``: the tensors this node
        saved for backward, named as PyTorch's generated nodes name them (the op's first and
        second tensor operand, its output).  A saved input is the very tensor object, the saved
        output a new tensor sharing its data whose ``grad_fn`` is this node, as in PyTorch; under
        ``saved_tensors_hooks`` each access runs the unpack hook.  After backward freed the node,
        access raises PyTorch's RuntimeError.  (PyTorch also saves non-tensor arguments, e.g.
        ``PowBackward0._saved_exponent``, and names some operands by their schema, e.g.
        ``_saved_mat2``: msnb's nodes save tensors only and name them by position.)"""
        if attr.startswith("_saved_") and not attr.startswith("__"):
            if not self._saved and self._versions:
                raise RuntimeError(_FREED)
            for t, key in zip(self._saved, self._saved_names()):
                if key == attr[7:]:
                    return self._saved_value(t, key)
        raise AttributeError(f"'{self._name}' object has no attribute '{attr}'")

    def _saved_names(self):
        names = []
        for t in self._saved:
            if t._grad_fn is self:
                names.append("result")
                continue
            e = edge_of(t)
            pos = next((i for i, x in enumerate(self.next_functions)
                        if (x is None if e is None else x is not None and x[0] is e[0] and x[1] == e[1])), None)
            names.append({0: "self", 1: "other"}.get(pos))
        return names

    def _saved_value(self, t, key):
        if self._packed is not None:
            unpack_hook, entries = self._packed
            for c, packed, rg in entries:
                if c.cell_contents is t:
                    return unpack_saved(unpack_hook, packed, rg)
        if key == "result":  # PyTorch unpacks a saved output as a new tensor object on the same data
            from .._ops import shape as S
            r = S.detach(t)
            r._grad_fn, r._output_nr = self, t._output_nr
            return r
        return t

    def __repr__(self):
        return f"<{self._name} object at {id(self):#x}>"

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` after this node ran; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return _Handle(self._hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` before this node runs; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(hook)
        return _Handle(self._pre_hooks, hook)

    def _add_tensor_hook(self, output_nr, hook):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        hooks = self._tensor_hooks.setdefault(output_nr, [])
        hooks.append(hook)
        return _Handle(hooks, hook)

    def _check_saved(self):
        if self._backward is None:
            raise RuntimeError(_FREED)
        for t, v in zip(self._saved, self._versions):
            if t._v != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: [{t.dtype} {list(t.shape)}], which is output 0 of "
                    f"{self._name}, is at version {t._v}; expected version {v} instead.")

    def apply(self, grads):
        self._check_saved()
        if self._packed is None:
            return self._backward(*grads)
        return _run_unpacked(self, grads)

    def release(self):
        self._backward = None
        self._saved = ()
        self._packed = None


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds incoming gradient into ``leaf.grad``."""

    __slots__ = ("variable",)

    def __init__(self, leaf):
        super().__init__("AccumulateGrad", (), None)
        self.variable = leaf

    def _check_saved(self):
        pass

    def release(self):
        pass


class _Handle:
    """``RemovableHandle`` look-alike returned by every ``register_*hook``."""

    def __init__(self, container, item):
        self._ref = (container, item)

    def remove(self):
        container, item = self._ref
        if isinstance(container, dict):
            for k, v in list(container.items()):
                if v is item:
                    del container[k]
        elif item in container:
            container.remove(item)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def acc_node(leaf) -> AccumulateGrad:
    ref = leaf.__dict__.get("_acc")
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._acc = weakref.ref(node)
    return node


def edge_of(t):
    """The graph edge a tensor contributes as an op input, or None."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._req_grad:
        return (acc_node(t), 0)
    return None


def record(name, outputs, inputs, backward, saved=()):
    """Attach a new Node to ``outputs`` (a tensor or tuple of tensors).

    ``backward(*grad_outputs)`` must return one gradient (or None) per input.
    Callers check ``needs_grad(...)`` first so no-grad code pays nothing.
    """
    from .._tensor import Tensor

    if STATE.inference_seen:
        _refuse_saved_inference(backward, saved)
    edges = tuple(edge_of(t) if isinstance(t, Tensor) else None for t in inputs)
    multi = isinstance(outputs, (tuple, list))
    node = Node(name, edges, backward, saved, len(outputs) if multi else 1)
    if multi:
        for i, o in enumerate(outputs):
            if o is not None:
                o._grad_fn = node
                o._output_nr = i
    else:
        outputs._grad_fn = node
        outputs._output_nr = 0
    if _SAVED_HOOKS:
        _pack(node, backward, saved)
    return node


def _refuse_saved_inference(backward, saved):
    """PyTorch's refusal to save an inference tensor for backward: the tensors an op saves are
    those it declares (``saved``), else those its backward closure holds."""
    from .._tensor import Tensor
    held = saved or [c.cell_contents for c in (getattr(backward, "__closure__", None) or ())
                     if isinstance(getattr(c, "cell_contents", None), Tensor)]
    if any(t._inf for t in held if isinstance(t, Tensor)):
        raise RuntimeError("Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                           "inference mode in computation tracked by autograd. To work around you can make a "
                           "clone to get a normal tensor and use it in autograd.")


# --- saved-tensor hooks ----------------------------------------------------------------------
# A backward closure holds the tensors it needs in its closure cells.  Under saved_tensors_hooks
# the pack hook sees each of them when the op records (the tensors the op declares as saved, as
# PyTorch saves them, else every tensor the closure holds); when the node runs, the unpack hook's
# results sit in those cells for the length of the backward call, so backward computes with them.

#: (pack_hook, unpack_hook) pairs in force, innermost last
_SAVED_HOOKS: list = []
#: error messages of the disable_saved_tensors_hooks blocks in force
_HOOKS_OFF: list = []


def _pack(node, backward, saved):
    from .._tensor import Tensor
    from .grad_mode import no_grad

    cells = [c for c in (getattr(backward, "__closure__", None) or ())
             if isinstance(getattr(c, "cell_contents", None), Tensor)]
    if saved:
        chosen, free = [], list(cells)
        for t in saved:
            cell = next((c for c in free if c.cell_contents is t), None)
            if cell is None:  # the backward reaches this tensor some other way: hooks cannot stand in for it
                from .._missing import NotSupportedError, not_supported_message
                raise NotSupportedError(not_supported_message(
                    f"torch.autograd.graph.saved_tensors_hooks around {node._name}"))
            free = [c for c in free if c is not cell]  # cells compare by content: remove by identity
            chosen.append(cell)
        cells = chosen
    if not cells:
        return
    pack_hook, unpack_hook = _SAVED_HOOKS[-1]
    with no_grad():  # PyTorch runs pack hooks with grad mode off
        node._packed = (unpack_hook, [(c, pack_hook(c.cell_contents), c.cell_contents.requires_grad)
                                      for c in cells])


def unpack_saved(unpack_hook, packed, requires_grad):
    """One saved tensor back from its packed value (the tensor backward computes with)."""
    from .._tensor import Tensor

    t = unpack_hook(packed)
    if not isinstance(t, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                        f"{type(t).__name__}")
    if requires_grad and not t.requires_grad:  # backward asks its operands whether they need a gradient
        t = t.detach().requires_grad_(True)
    return t


def _run_unpacked(node, grads):
    unpack_hook, entries = node._packed
    originals = [c.cell_contents for c, _, _ in entries]
    try:
        for c, packed, rg in entries:
            c.cell_contents = unpack_saved(unpack_hook, packed, rg)
        return node._backward(*grads)
    finally:
        for (c, _, _), t in zip(entries, originals):
            c.cell_contents = t


class saved_tensors_hooks:
    """msnb implementation of ``torch.autograd.graph.saved_tensors_hooks``: ``pack_hook`` sees every
    tensor an op saves for backward (with grad mode off), ``unpack_hook`` gives it back each time a
    backward pass needs it, and backward computes with what it returns."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _HOOKS_OFF:
            raise RuntimeError(_HOOKS_OFF[-1])
        _SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        _SAVED_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):
    """msnb implementation of ``torch.autograd.graph.save_on_cpu``: saved tensors are copied to host
    memory when the op records and moved back to their device when backward needs them."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.device, t.detach().cpu().clone()

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """msnb implementation of ``torch.autograd.graph.disable_saved_tensors_hooks``: inside the block,
    using ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _SAVED_HOOKS:
            raise RuntimeError(self.error_message)
        _HOOKS_OFF.append(self.error_message)

    def __exit__(self, *exc):
        _HOOKS_OFF.pop()


def name_node(outputs, name, *inputs):
    """Give the node(s) of ``outputs`` (a tensor or a sequence of them) PyTorch's
    name for the op that made them (``x.t()`` shows ``grad_fn=<TBackward0>``
    where msnb built it from a permute).  A node an input already carries (the
    op returned its input) keeps its name.  Returns ``outputs``."""
    outs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    for o in outs:
        node = getattr(o, "_grad_fn", None)
        if node is not None and all(getattr(i, "_grad_fn", None) is not node for i in inputs):
            node._name = name
    return outputs


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


#: callbacks queued during a backward pass (``Variable._execution_engine.queue_callback``)
_CALLBACKS: list = []


def queue_callback(callback) -> None:
    """Run ``callback()`` when the backward pass now running has finished."""
    _CALLBACKS.append(callback)


def run_backward(roots, grad_roots, retain_graph=False, create_graph=False, inputs=None,
                 capture=False, allow_unused=False, stop_at_inputs=False):
    """Run the graph from ``roots``.

    With ``capture`` (``torch.autograd.grad``) the gradients reaching
    ``inputs`` are returned instead of accumulated into ``.grad``.  With
    ``inputs`` and no capture (``backward(inputs=...)``) only those leaves
    accumulate.  ``stop_at_inputs`` (graph mode recording a region's
    backward) neither runs nor walks past the nodes of ``inputs``.
    """
    stops = {edge_of(t)[0] for t in inputs} if stop_at_inputs else ()
    # 1. dependency counts over the reachable graph
    start = []
    for t, g in zip(roots, grad_roots):
        e = edge_of(t)
        if e is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        start.append((e, g))
    deps = {}
    seen = set()
    stack = [e[0] for e, _ in start]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in stops:
            continue
        for e in n.next_functions:
            if e is not None:
                deps[e[0]] = deps.get(e[0], 0) + 1
                stack.append(e[0])

    targets = {}
    if inputs is not None:
        for i, t in enumerate(inputs):
            e = edge_of(t)
            if e is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            targets[e] = i
    captured = [None] * (len(inputs) if inputs is not None else 0)

    buffers = {}
    for (node, nr), g in start:
        buf = buffers.setdefault(node, [None] * node._n_out)
        buf[nr] = _add(buf[nr], g)

    prev = STATE.enabled
    STATE.enabled = bool(create_graph)
    try:
        ready = deque(n for n in {e[0] for e, _ in start} if deps.get(n, 0) == 0)
        while ready:
            node = ready.popleft()
            grads = buffers.pop(node, None) or [None] * node._n_out
            # tensor hooks registered on this node's outputs (non-leaf register_hook)
            if node._tensor_hooks:
                for nr, hooks in node._tensor_hooks.items():
                    for h in list(hooks):
                        if grads[nr] is not None:
                            r = h(grads[nr])
                            if r is not None:
                                grads[nr] = r
            if node._retain:
                for nr, ref in node._retain.items():
                    t = ref()
                    if t is not None and grads[nr] is not None:
                        g = grads[nr] if create_graph else grads[nr].detach()
                        t.grad = g if t.grad is None else t.grad + g
            if node._pre_hooks:
                for h in node._pre_hooks:
                    r = h(tuple(grads))
                    if r is not None:
                        grads = list(r)
            if targets:
                for nr in range(node._n_out):
                    i = targets.get((node, nr))
                    if i is not None:
                        captured[i] = _add(captured[i], grads[nr])
            if node in stops:
                continue
            if isinstance(node, AccumulateGrad):
                if not capture and (not targets or (node, 0) in targets):
                    _accumulate(node.variable, grads[0], create_graph)
                continue
            if all(g is None for g in grads):
                in_grads = (None,) * len(node.next_functions)
            else:
                in_grads = node.apply(grads)
                if node._hooks:
                    for h in node._hooks:
                        r = h(tuple(in_grads), tuple(grads))
                        if r is not None:
                            in_grads = r
            if not retain_graph:
                node.release()
            for e, g in zip(node.next_functions, in_grads):
                if e is None:
                    continue
                nxt, nr = e
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt._n_out
                    buf[nr] = _add(buf[nr], g)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    ready.append(nxt)
    except BaseException:
        _CALLBACKS.clear()
        raise
    finally:
        STATE.enabled = prev
    while _CALLBACKS:  # queue_callback's, once the pass is done (DistributedDataParallel's grad sync)
        _CALLBACKS.pop(0)()
    if capture:
        for i, g in enumerate(captured):
            if g is None and not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used "
                                   "in the graph. Set allow_unused=True if this is the desired behavior.")
        return tuple(captured)
    return None


#: references to a gradient nothing else holds, as ``_stealable`` counts them: the
#: engine's ``grads`` list and its caller's temporary, ``_accumulate``'s and
#: ``_stealable``'s arguments, and ``sys.getrefcount``'s own (tests/adapter/torch/
#: test_grad_stealing.py checks both sides of the line)
_FRESH_REFS = 5


def _stealable(g) -> bool:
    """Whether ``g`` can become ``.grad`` as it is, without ``detach()``'s copy:
    a plain result of the backward pass that is outside the graph, shares
    data with nothing and is referenced by nothing else (PyTorch's
    ``AccumulateGrad`` steals a gradient on the same reference-count test).
    A tensor the user passed as ``gradient=`` or returned from a hook is
    referenced elsewhere and gets copied."""
    return (g._grad_fn is None and not g._req_grad and not g._is_alias()
            and _sys.getrefcount(g) <= _FRESH_REFS)


def _accumulate(leaf, g, create_graph):
    if g is None:
        return
    hooks = leaf.__dict__.get("_leaf_hooks")
    fresh = True
    if hooks:
        for h in list(hooks):
            r = h(g)
            if r is not None:
                g, fresh = r, False  # the hook's tensor may live on elsewhere
    # a gradient ``.grad`` may not keep as it is gets one copy (PyTorch's AccumulateGrad clones
    # it), only when it becomes ``.grad``: ``detach()`` then ``clone()`` were two copy kernels,
    # and ``leaf.grad + g`` needs none (grad mode is off here unless ``create_graph``)
    own = create_graph or (fresh and _stealable(g))
    if g.shape != leaf.shape:
        g = g.expand(leaf.shape) if g.numel() == 1 else g.reshape(leaf.shape)
    if leaf.grad is None:
        leaf.grad = g if create_graph or (own and not g._is_alias()) else _own_copy(g)
    else:
        leaf.grad = leaf.grad + g


def _own_copy(g):
    """A copy of ``g``'s data outside the graph that aliases nothing (one kernel)."""
    from .._core import K, copy_meta, wrap
    return copy_meta(wrap(K.identity(g)), g)


#: PyTorch's ``torch.autograd.graph`` names msnb's tape does not have.
_REFUSED = ("register_multi_grad_hook", "allow_mutation_on_saved_tensors", "GradientEdge", "get_gradient_edge", "increment_version")


def __getattr__(name):
    if name in _REFUSED:
        from .._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message(f"torch.autograd.graph.{name}"))
    raise AttributeError(f"module 'torch.autograd.graph' has no attribute '{name}'")
