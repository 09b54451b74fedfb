"""msnb implementation of ``torch.optim.LBFGS``.

Limited-memory BFGS as described in Nocedal & Wright, *Numerical
Optimization* (2nd ed.): the search direction comes from the two-loop
recursion over the last ``history_size`` curvature pairs (Algorithm 7.4),
and the step length is either fixed (``lr``, shrunk on the very first
iteration) or found by a line search satisfying the strong Wolfe
conditions (Algorithms 3.5 and 3.6, with safeguarded cubic interpolation,
eq. 3.59).

Why it is written this way:

* It must take the same decisions as PyTorch's ``LBFGS``: users compare
  loss curves, and ``state['func_evals']`` / ``state['n_iter']`` are read by
  training loops.  So the stopping tests, the first-step scaling
  ``min(1, 1/|g|_1) * lr``, the curvature threshold ``y.s > 1e-10`` and the
  line search's bracketing rules follow PyTorch's documented behaviour, and
  the state keys use PyTorch's names (they are a checkpoint format).
* All parameters are handled as one flat vector (:class:`_FlatParams`);
  vector algebra stays in msnb tensors of the parameters' dtype (so float32
  problems round like PyTorch's), while the handful of scalars the
  algorithm branches on are Python floats.
* Scalar-times-vector products go through ``optimizer.py``'s primitives
  (``scaled``/``axpy``), which keep float64 scalars in float64 (a bare
  Python float operand would be rounded to float32 by MindSpore); the rest
  is ordinary adapter ops under ``no_grad`` -- not a hot loop.
"""

from __future__ import annotations

import math

from .._ops.creation import zeros
from .._ops.shape import cat
from ..autograd.grad_mode import enable_grad, no_grad
from .._core import wrap
from .optimizer import Optimizer, assign, axpy, scaled

__all__ = ["LBFGS"]

#: curvature pairs with ``y.s`` at or below this are skipped (they would
#: make the inverse-Hessian approximation indefinite)
_MIN_CURVATURE = 1e-10


# --- parameters as one vector ------------------------------------------------------------

class _FlatParams:
    """The optimizer's parameters seen as one flat vector (read grads, move, snapshot)."""

    def __init__(self, params):
        self.params = params

    def grad(self):
        """All gradients concatenated; a parameter without a gradient contributes zeros."""
        pieces = []
        for p in self.params:
            if p.grad is None:
                pieces.append(zeros(p.numel(), dtype=p.dtype))
            else:
                pieces.append(p.grad.reshape(-1))
        return cat(pieces, 0)

    def move(self, step, direction):
        """``params += step * direction``."""
        start = 0
        for p in self.params:
            n = p.numel()
            assign(p, axpy(p, direction[start:start + n].view_as(p), step))
            start += n

    def snapshot(self):
        return [p.clone() for p in self.params]

    def restore(self, saved):
        for p, value in zip(self.params, saved):
            assign(p, value)


# --- the quasi-Newton direction -------------------------------------------------------------

class _CurvatureHistory:
    """The last ``size`` pairs ``s = x_{k+1} - x_k``, ``y = g_{k+1} - g_k`` and ``rho = 1 / y.s``.

    Stored in the optimizer state under PyTorch's keys (``old_stps``,
    ``old_dirs``, ``ro``, ``H_diag``) so an LBFGS checkpoint round-trips."""

    def __init__(self, state, size):
        self.state = state
        self.size = size

    def reset(self):
        self.state["old_dirs"], self.state["old_stps"], self.state["ro"] = [], [], []
        self.state["H_diag"] = 1.0

    def add(self, s, y):
        """Remember a pair if it has positive curvature; also rescale the initial Hessian guess."""
        ys = float(y.dot(s))
        if ys <= _MIN_CURVATURE:
            return
        ys_list, ss_list, rho_list = self.state["old_dirs"], self.state["old_stps"], self.state["ro"]
        if len(ys_list) == self.size:
            del ys_list[0], ss_list[0], rho_list[0]
        ys_list.append(y)
        ss_list.append(s)
        rho_list.append(1.0 / ys)
        # Nocedal & Wright eq. 7.20: H0 = (s.y / y.y) I
        self.state["H_diag"] = ys / float(y.dot(y))

    def apply_inverse_hessian(self, v):
        """``H v`` by the two-loop recursion (Nocedal & Wright, Algorithm 7.4)."""
        ss, ys, rhos = self.state["old_stps"], self.state["old_dirs"], self.state["ro"]
        alphas = [0.0] * len(ss)
        q = v
        for i in reversed(range(len(ss))):
            alphas[i] = float(ss[i].dot(q)) * rhos[i]
            q = wrap(axpy(q, ys[i], -alphas[i]))
        r = wrap(scaled(q, float(self.state["H_diag"])))
        for i in range(len(ss)):
            beta = float(ys[i].dot(r)) * rhos[i]
            r = wrap(axpy(r, ss[i], alphas[i] - beta))
        return r


# --- strong Wolfe line search ---------------------------------------------------------------

def _cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through two points with values and slopes, clamped to ``bounds``.

    Nocedal & Wright eq. 3.59, anchored at the right-hand point.  Without a
    real minimizer the midpoint of the bounds is returned."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = math.sqrt(disc)
    (xa, ga), (xb, gb) = ((x1, g1), (x2, g2)) if x1 <= x2 else ((x2, g2), (x1, g1))
    x = xb - (xb - xa) * ((gb + d2 - d1) / (gb - ga + 2 * d2))
    return min(max(x, lo), hi)


class _Trial:
    """One point of the line search: step ``t``, loss ``f``, flat gradient ``g``, slope ``gtd = g.d``."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate, d, start, t, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Find a step satisfying the strong Wolfe conditions along ``d``.

    ``evaluate(t)`` returns ``(loss, flat_grad)`` at ``x + t d``; ``start``
    is the trial at ``t = 0``.  Returns ``(trial, evaluations)``.  Phase one
    (Algorithm 3.5) grows the step until an interval containing an
    acceptable one is bracketed; phase two (Algorithm 3.6, "zoom") shrinks
    it by cubic interpolation, with a safeguard against steps that crowd an
    end of the interval."""
    sufficient = c1 * start.gtd      # Armijo slope
    curvature = -c2 * start.gtd      # bound on |slope| at an accepted step
    d_norm = float(d.abs().max())

    def trial_at(step):
        f, g = evaluate(step)
        return _Trial(step, f, g, float(g.dot(d)))

    def armijo_fails(tr):
        return tr.f > start.f + sufficient * tr.t

    new = trial_at(t)
    evals, ls_iter = 1, 0
    prev = start
    bracket = None
    found = None
    while ls_iter < max_ls:
        if armijo_fails(new) or (ls_iter > 1 and new.f >= prev.f):
            bracket = [prev, new]
            break
        if abs(new.gtd) <= curvature:
            found = new
            break
        if new.gtd >= 0:
            bracket = [prev, new]
            break
        # extrapolate: a cubic step within [t + 0.01 (t - t_prev), 10 t]
        bounds = (new.t + 0.01 * (new.t - prev.t), new.t * 10)
        step = _cubic_minimizer(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd, bounds)
        prev = new
        new = trial_at(step)
        evals += 1
        ls_iter += 1
    if found is not None:
        return found, evals
    if bracket is None:
        # out of evaluations while still extrapolating: fall back to [0, t]
        bracket = [start, new]

    zoom_evals, best = _zoom(trial_at, bracket, ls_iter, max_ls, d_norm, tolerance_change, armijo_fails,
                             curvature)
    return best, evals + zoom_evals


def _zoom(trial_at, bracket, ls_iter, max_ls, d_norm, tolerance_change, armijo_fails, curvature):
    """Shrink ``bracket`` (two trials) to an acceptable step; returns ``(evaluations, best trial)``.

    ``low`` is always the end with the lower loss."""
    evals = 0
    stuck = False  # the previous interpolant landed too near an end

    def low_high():
        return (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)

    low, high = low_high()
    while ls_iter < max_ls:
        a, b = bracket[0], bracket[1]
        if abs(b.t - a.t) * d_norm < tolerance_change:
            break
        step = _cubic_minimizer(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        step, stuck = _keep_off_the_ends(step, min(a.t, b.t), max(a.t, b.t), stuck)
        new = trial_at(step)
        evals += 1
        ls_iter += 1
        if armijo_fails(new) or new.f >= bracket[low].f:
            bracket[high] = new
            low, high = low_high()
            continue
        if abs(new.gtd) <= curvature:
            bracket[low] = new
            return evals, new
        if new.gtd * (bracket[high].t - bracket[low].t) >= 0:
            bracket[high] = bracket[low]
        bracket[low] = new
    return evals, bracket[low]


def _keep_off_the_ends(step, lo, hi, stuck):
    """Safeguard for the zoom phase: don't let interpolated steps crawl along one end of ``[lo, hi]``.

    A step within 10% of the width from an end is accepted once; if the
    next one is again that close (or outside), it is pushed to 10% inside
    the nearer end.  Returns ``(step, stuck)``."""
    margin = 0.1 * (hi - lo)
    if min(hi - step, step - lo) >= margin:
        return step, False
    if not (stuck or step >= hi or step <= lo):
        return step, True
    step = hi - margin if abs(step - hi) < abs(step - lo) else lo + margin
    return step, False


# --- the optimizer ---------------------------------------------------------------------------

class LBFGS(Optimizer):
    """msnb implementation of ``torch.optim.LBFGS``.

    ``step(closure)`` runs up to ``max_iter`` iterations (at most
    ``max_eval`` closure calls); ``closure`` must zero the gradients,
    compute the loss, call ``backward()`` and return the loss.  One param
    group only, as in PyTorch."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4  # documented default: 1.25 * max_iter
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size,
                        line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def step(self, closure):
        """One L-BFGS optimization step (several iterations); returns the loss from the first closure call."""
        with no_grad():
            return self._run(closure)

    # --- internals ---------------------------------------------------------------------
    def _evaluate(self, closure):
        with enable_grad():
            loss = closure()
        return loss

    def _run(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        line_search = group["line_search_fn"]
        flat = _FlatParams(self._params)
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        history = _CurvatureHistory(state, group["history_size"])

        first_loss = self._evaluate(closure)
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        grad = flat.grad()
        if float(grad.abs().max()) <= tol_grad:
            return first_loss  # already at a stationary point

        d, t = state.get("d"), state.get("t")
        prev_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        t = float(t) if t is not None else None
        iters = 0
        while iters < max_iter:
            iters += 1
            state["n_iter"] += 1

            # direction: steepest descent first, then the two-loop recursion
            if state["n_iter"] == 1:
                history.reset()
                d = -grad
            else:
                history.add(wrap(scaled(d, t)), grad - prev_grad)
                d = history.apply_inverse_hessian(-grad)
            prev_grad = grad.clone()
            prev_loss = loss

            # initial step: lr, shrunk on the very first iteration so |t d|_1 <= lr
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / float(grad.abs().sum())) * lr
            else:
                t = lr
            gtd = float(grad.dot(d))
            if gtd > -tol_change:
                break  # not a descent direction (any more)

            if line_search is not None:
                if line_search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                loss, grad, t, used = self._line_search(closure, flat, d, t, loss, grad, gtd, tol_change)
                flat.move(t, d)
                at_optimum = float(grad.abs().max()) <= tol_grad
            else:
                flat.move(t, d)
                used = 0
                at_optimum = False
                if iters != max_iter:
                    # the next iteration's gradient; skipped on the last one, which returns anyway
                    loss = float(self._evaluate(closure))
                    grad = flat.grad()
                    at_optimum = float(grad.abs().max()) <= tol_grad
                    used = 1
            evals += used
            state["func_evals"] += used

            if iters == max_iter or evals >= max_eval or at_optimum:
                break
            if float(d.abs().max()) * abs(t) <= tol_change:
                break  # the step no longer moves the parameters
            if abs(loss - prev_loss) < tol_change:
                break  # the loss no longer changes

        state["d"], state["t"] = d, t
        state["prev_flat_grad"], state["prev_loss"] = prev_grad, prev_loss
        return first_loss

    def _line_search(self, closure, flat, d, t, loss, grad, gtd, tol_change):
        """Strong Wolfe search from the current point; parameters are left where they started."""
        origin = flat.snapshot()

        def evaluate(step):
            flat.move(step, d)
            f = float(self._evaluate(closure))
            g = flat.grad()
            flat.restore(origin)
            return f, g

        best, used = _strong_wolfe(evaluate, d, _Trial(0.0, loss, grad, gtd), t, tolerance_change=tol_change)
        return best.f, best.g, best.t, used
