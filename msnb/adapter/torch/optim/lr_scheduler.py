"""msnb implementation of ``torch.optim.lr_scheduler``.

Schedulers are plain Python over ``optimizer.param_groups``: nothing here
touches MindSpore, so they behave the same on CPU and Ascend.

Why the formulas look the way they do
-------------------------------------
PyTorch documents most schedulers twice: a closed form (the lr at epoch
``t`` from the initial lr) and a *chainable* recursive form (the lr at
``t`` from the lr at ``t - 1``).  ``step()`` uses the recursive form, so
that several schedulers can act on the same optimizer one after another
(``ChainedScheduler``, ``SequentialLR``, or a user changing ``lr`` by
hand).  msnb does the same, for two reasons: chaining then composes the
way PyTorch users expect, and the recursion accumulates the same rounding
as PyTorch's, so a notebook's learning rates are bit-for-bit PyTorch's (the
tests compare sequences at a relative 1e-12).  The closed forms are kept
in ``_get_closed_form_lr`` for the deprecated ``step(epoch)`` call.

Schedulers that are not chainable in PyTorch (``LambdaLR``,
``CyclicLR``, ``OneCycleLR``, ``CosineAnnealingWarmRestarts``) compute
from the base lrs each step, as documented.

A scheduler's ``state_dict`` is its instance ``__dict__`` minus the
optimizer, so the attribute names below (``base_lrs``, ``last_epoch``,
``_step_count``, ``_last_lr``, ...) are a file format shared with PyTorch
checkpoints and are kept as PyTorch names them.
"""

from __future__ import annotations

import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "_LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
]

_EPOCH_ARG_DEPRECATED = (
    "Passing an epoch to `scheduler.step()` is deprecated (as in PyTorch): call `scheduler.step()` "
    "once per epoch or batch instead. Schedulers with a closed form jump straight to that epoch; "
    "the others evaluate their recursive form once."
)


# --- small helpers ---------------------------------------------------------------------

def _require_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _one_per_group(name, optimizer, value):
    """``value`` as a list with one entry per param group (a scalar is repeated)."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {n}.")
        return list(value)
    return [value] * n


def _as_float(x):
    return float(x.item()) if isinstance(x, Tensor) else x


def _set_lr(group, value):
    """Store a new lr; a tensor lr (``Adam(lr=torch.tensor(...))``) is updated in place."""
    if isinstance(group["lr"], Tensor):
        group["lr"].fill_(_as_float(value))
    else:
        group["lr"] = value


def _current_lrs(optimizer):
    return [g["lr"].clone() if isinstance(g["lr"], Tensor) else g["lr"] for g in optimizer.param_groups]


def _set_momentum(group, value, use_beta1):
    """Cyclic schedulers drive SGD's ``momentum`` or Adam's ``beta1`` (``betas[0]``)."""
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _uses_beta1(optimizer):
    """Whether momentum cycling drives ``betas[0]`` (Adam family) rather than ``momentum`` (SGD family)."""
    defaults = optimizer.defaults
    if "momentum" not in defaults and "betas" not in defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in defaults


def _fn_state(fn):
    """What a state dict keeps of a user callable: nothing for a plain function, else its attributes."""
    if fn is None or isinstance(fn, types.FunctionType):
        return None
    return dict(fn.__dict__)


# --- noticing optimizer.step() -----------------------------------------------------------
#
# Calling ``scheduler.step()`` before the first ``optimizer.step()`` skips the
# first value of the schedule, a classic porting mistake PyTorch warns about.
# To see whether the optimizer has stepped, the scheduler wraps the
# optimizer instance's ``step`` once (the wrapper holds the optimizer weakly).

_WRAPPED_MARK = "_msnb_counts_steps"


def _watch_optimizer_steps(optimizer):
    step = optimizer.step
    if getattr(step, _WRAPPED_MARK, False):
        return
    unbound = step.__func__ if hasattr(step, "__func__") else None
    if unbound is None:
        return
    owner = weakref.ref(optimizer)

    def counted_step(*args, **kwargs):
        opt = owner()
        opt._msnb_step_calls = getattr(opt, "_msnb_step_calls", 0) + 1
        return unbound(opt, *args, **kwargs)

    setattr(counted_step, _WRAPPED_MARK, True)
    counted_step.__doc__ = unbound.__doc__
    optimizer.step = counted_step
    optimizer._msnb_step_calls = 0


def _warn_on_call_order(optimizer):
    if not getattr(optimizer.step, _WRAPPED_MARK, False):
        warnings.warn("`optimizer.step()` was replaced after the learning rate scheduler was created, so msnb "
                      "cannot check the call order. Make sure `optimizer.step()` runs before "
                      "`lr_scheduler.step()`.", UserWarning, stacklevel=3)
    elif getattr(optimizer, "_msnb_step_calls", 0) == 0:
        warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. Since PyTorch 1.1.0 the "
                      "optimizer steps first and the scheduler second; in this order the first learning rate of "
                      "the schedule is skipped. See https://pytorch.org/docs/stable/optim.html"
                      "#how-to-adjust-learning-rate", UserWarning, stacklevel=3)


# --- the base class --------------------------------------------------------------------

class LRScheduler:
    """msnb implementation of ``torch.optim.lr_scheduler.LRScheduler``.

    Subclasses implement :meth:`get_lr` (the lr of every group at
    ``self.last_epoch``, usually from the current ``group['lr']``) and may
    implement ``_get_closed_form_lr`` (from ``self.base_lrs``)."""

    _get_lr_called_within_step = False

    def __init__(self, optimizer, last_epoch=-1):
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        self.base_lrs = _record_initial_lrs(optimizer, last_epoch)
        self.last_epoch = last_epoch
        _watch_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """The step every scheduler takes on construction: it sets the epoch-0 lr."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    # --- public API ------------------------------------------------------------------
    def get_last_lr(self):
        """The lr of each param group as of the last :meth:`step`."""
        return self._last_lr

    def get_lr(self):
        """The lr of each group at ``self.last_epoch`` (called by :meth:`step`)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch (or, deprecated, jump to ``epoch``) and write the new lrs."""
        self._step_count += 1
        if self._step_count == 2:
            _warn_on_call_order(self.optimizer)
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(_EPOCH_ARG_DEPRECATED, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, value in zip(self.optimizer.param_groups, values):
            _set_lr(group, value)
        self._last_lr = _current_lrs(self.optimizer)

    def state_dict(self):
        """Every attribute except the optimizer (PyTorch's checkpoint layout)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore attributes saved by :meth:`state_dict`."""
        self.__dict__.update(state_dict)

    # --- for subclasses --------------------------------------------------------------
    def _check_get_lr_caller(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=3)

    def _scaled(self, factor):
        """Every group's current lr times ``factor`` (the shape of most recursive forms)."""
        return [g["lr"] * factor for g in self.optimizer.param_groups]

    def _unchanged(self):
        return [g["lr"] for g in self.optimizer.param_groups]

    def _constructing(self):
        """True during the step the constructor takes.

        ``ExponentialLR``, ``MultiplicativeLR``, ``PolynomialLR`` and
        ``CosineAnnealingLR`` (``LinearLR`` past epoch 0) keep the optimizer's
        lr on that step: on a fresh start it already is the epoch-0 lr, and on
        resume (``last_epoch >= 0``) the lr loaded from a checkpoint is taken
        as current.  Afterwards they apply their rule at every epoch, epoch 0
        included (a rewound ``SequentialLR`` child can step into it).
        ``StepLR``, ``MultiStepLR`` and ``ConstantLR`` apply their rule on the
        constructor's step as well.  Measured on PyTorch 2.13."""
        return self._is_initial


def _record_initial_lrs(optimizer, last_epoch):
    """``group['initial_lr']`` is the schedule's origin: set on a fresh start, required on resume."""
    groups = optimizer.param_groups
    if last_epoch == -1:
        for group in groups:
            lr = group["lr"]
            group.setdefault("initial_lr", lr.clone() if isinstance(lr, Tensor) else lr)
    else:
        for i, group in enumerate(groups):
            if "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an "
                               "optimizer")
    return [group["initial_lr"] for group in groups]


class _LRScheduler(LRScheduler):
    """Old name of :class:`LRScheduler`, kept for code that subclasses it.

    Listed in ``__all__`` so msnb's support registry reports it."""


# --- multiplicative schedules ------------------------------------------------------------

class _PerGroupLambdas(LRScheduler):
    """Shared by ``LambdaLR`` and ``MultiplicativeLR``: one user function per param group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """Lambdas themselves are not saved; callable objects keep their attributes."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [_fn_state(f) for f in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for f, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                f.__dict__.update(attrs)


class LambdaLR(_PerGroupLambdas):
    """msnb implementation of ``torch.optim.lr_scheduler.LambdaLR``: ``lr = base_lr * f(epoch)``."""

    def get_lr(self):
        self._check_get_lr_caller()
        return [base * f(self.last_epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]


class MultiplicativeLR(_PerGroupLambdas):
    """msnb implementation of ``torch.optim.lr_scheduler.MultiplicativeLR``: ``lr *= f(epoch)`` each epoch."""

    def get_lr(self):
        self._check_get_lr_caller()
        if self._constructing():
            return self._unchanged()
        return [g["lr"] * f(self.last_epoch) for g, f in zip(self.optimizer.param_groups, self.lr_lambdas)]


def _lambdas_per_group(optimizer, lr_lambda):
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * n


class StepLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.StepLR``: times ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._unchanged()
        return self._scaled(self.gamma)

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.MultiStepLR``.

    A milestone listed k times multiplies by ``gamma ** k`` when reached."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        hits = self.milestones.get(self.last_epoch, 0)
        if hits == 0:
            return self._unchanged()
        return self._scaled(self.gamma ** hits)

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.ConstantLR``: ``factor`` for ``total_iters`` epochs."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        if self.last_epoch == 0:
            return self._scaled(self.factor)
        if self.last_epoch == self.total_iters:
            return self._scaled(1.0 / self.factor)
        return self._unchanged()

    def _get_closed_form_lr(self):
        factor = 1.0 if self.last_epoch >= self.total_iters else self.factor
        return [base * factor for base in self.base_lrs]


class LinearLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.LinearLR``.

    The factor moves linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs.  With ``f(t) = s + (e - s) t / T``, the recursive
    step multiplies by ``f(t) / f(t-1) = 1 + (e - s) / (s T + (t - 1)(e - s))``."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        t = self.last_epoch
        if t == 0:
            return self._scaled(self.start_factor)
        if t > self.total_iters or self._constructing():
            return self._unchanged()
        slope = self.end_factor - self.start_factor
        return self._scaled(1.0 + slope / (self.total_iters * self.start_factor + (t - 1) * slope))

    def _get_closed_form_lr(self):
        progress = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * progress
        return [base * factor for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.ExponentialLR``: times ``gamma`` each epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        if self._constructing():
            return self._unchanged()
        return self._scaled(self.gamma)

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.PolynomialLR``.

    Closed form ``base * (1 - t/T) ** power``; the recursive step multiplies
    by the ratio of consecutive closed-form factors."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        t, T = self.last_epoch, self.total_iters
        if t > T or self._constructing():
            return self._unchanged()
        ratio = (1.0 - t / T) / (1.0 - (t - 1) / T)
        return self._scaled(ratio ** self.power)

    def _get_closed_form_lr(self):
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left ** self.power for base in self.base_lrs]


# --- cosine schedules --------------------------------------------------------------------

def _cosine_point(eta_min, eta_max, t_cur, t_max):
    """SGDR's closed form: ``eta_min + (eta_max - eta_min) (1 + cos(pi t_cur / t_max)) / 2``."""
    return eta_min + (eta_max - eta_min) * (1 + math.cos(math.pi * t_cur / t_max)) / 2


class CosineAnnealingLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.CosineAnnealingLR`` (no restarts).

    Uses the documented recursive form.  Where its denominator
    ``1 + cos(pi (t-1) / T)`` vanishes (``t - 1 = T`` modulo ``2T``, the
    bottom of the cosine) the step adds the closed-form increment instead."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        groups = self.optimizer.param_groups
        if self._constructing():
            return self._unchanged()
        if (t - 1 - T) % (2 * T) == 0:
            lift = (1 - math.cos(math.pi / T)) / 2
            return [g["lr"] + (base - lo) * lift for base, g in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (g["lr"] - lo) + lo for g in groups]

    def _get_closed_form_lr(self):
        return [_cosine_point(self.eta_min, base, self.last_epoch, self.T_max) for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.CosineAnnealingWarmRestarts`` (SGDR).

    Closed form within each period; a period of ``T_i`` epochs is followed by
    one of ``T_i * T_mult``.  ``step(epoch)`` accepts fractional epochs."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        return [_cosine_point(self.eta_min, base, self.T_cur, self.T_i) for base in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or set the position to ``epoch`` (may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self._locate(epoch)
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, value in zip(self.optimizer.param_groups, values):
            _set_lr(group, value)
        self._last_lr = _current_lrs(self.optimizer)

    def _locate(self, epoch):
        """Set ``T_i``/``T_cur`` for an absolute epoch: which period it falls in, and where."""
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_i, self.T_cur = self.T_0, epoch % self.T_0
        else:
            # periods T_0, T_0 m, T_0 m^2, ... end at T_0 (m^n - 1) / (m - 1)
            m = self.T_mult
            n = int(math.log(epoch / self.T_0 * (m - 1) + 1, m))
            self.T_cur = epoch - self.T_0 * (m ** n - 1) / (m - 1)
            self.T_i = self.T_0 * m ** n


# --- composite schedulers ------------------------------------------------------------------

def _check_same_optimizer(owner, schedulers, optimizer):
    for i, sched in enumerate(schedulers):
        if not hasattr(sched, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(sched, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             "kwargs to be specified when calling `step`, but got one at index "
                             f"{i} in the given schedulers sequence.")
        if sched.optimizer is not optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, but got "
                             f"scheduler {type(sched).__name__} at index {i} has {sched.optimizer}, "
                             f"which is different from {optimizer}.")


def _rewind(sched):
    """Undo a scheduler's constructor step.

    A nested ``SequentialLR`` rewinds its children but keeps its own epoch
    count (PyTorch 2.13's behaviour, measured)."""
    if isinstance(sched, SequentialLR):
        for child in sched._schedulers:
            _rewind(child)
    else:
        sched.last_epoch -= 1


class SequentialLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.SequentialLR``.

    Hands the optimizer from one scheduler to the next at each milestone.
    A scheduler taking over restarts its own epoch count at 0 (its closed
    form at epoch 0, i.e. its base lrs)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_same_optimizer(type(self).__name__, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # every child already took its constructor step; start over from the
        # initial lrs and let only the first child take that step
        for group in optimizer.param_groups:
            _set_lr(group, group["initial_lr"])
        for sched in self._schedulers:
            _rewind(sched)
        self._schedulers[0]._initial_step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self):
        """Step the scheduler in charge of the next epoch."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Passing an epoch")
                sched.step(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        children = state.pop("_schedulers")
        self.__dict__.update(state)
        for sched, child_state in zip(self._schedulers, children):
            sched.load_state_dict(child_state)


class ChainedScheduler(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.ChainedScheduler``.

    Steps every scheduler each time, in order; their recursive forms compose
    multiplicatively."""

    def __init__(self, schedulers, optimizer=None):
        schedulers = list(schedulers)
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        if optimizer is None:
            optimizer = schedulers[0].optimizer
        _check_same_optimizer(type(self).__name__, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [g["lr"] for g in schedulers[-1].optimizer.param_groups]

    def step(self):
        """Step each chained scheduler once."""
        for sched in self._schedulers:
            sched.step()
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]

    state_dict = SequentialLR.state_dict
    load_state_dict = SequentialLR.load_state_dict


# --- metric-driven -------------------------------------------------------------------------

class ReduceLROnPlateau(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.ReduceLROnPlateau``.

    ``step(metric)``: after more than ``patience`` epochs without a
    significant improvement, every lr is multiplied by ``factor`` (not below
    its ``min_lr``; changes smaller than ``eps`` are skipped), followed by
    ``cooldown`` epochs in which bad epochs are not counted."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _require_optimizer(optimizer)
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.factor = factor
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _current_lrs(optimizer)
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None):
        """Record this epoch's metric and reduce the lrs if it has plateaued."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_ARG_DEPRECATED, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _current_lrs(self.optimizer)

    def is_better(self, a, best):
        """Whether metric ``a`` improves on ``best`` by more than the threshold."""
        if self.mode == "min":
            bar = best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold
            return a < bar
        bar = best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold
        return a > bar

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(self.min_lrs) != len(groups):
            if self.default_min_lr is None:
                raise RuntimeError("The number of param groups in the `optimizer` "
                                   f"({len(groups)}) differs from when `ReduceLROnPlateau` was initialized "
                                   f"({len(self.min_lrs)}), usually due to a new param group being added to the "
                                   "optimizer. Please modify the `min_lrs` field to match the length of the "
                                   "`optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old = float(_as_float(group["lr"]))
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                _set_lr(group, new)

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


# --- cyclic schedules ----------------------------------------------------------------------

class CyclicLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.CyclicLR`` (Smith's cyclical learning rates).

    Within a cycle of ``step_size_up + step_size_down`` iterations the lr
    rises linearly from ``base_lr`` to ``max_lr`` and falls back; the height
    is scaled per cycle (``triangular2``: halved, ``exp_range``:
    ``gamma ** iteration``) or by a user ``scale_fn``.  Momentum (or Adam's
    beta1) moves the opposite way between ``max_momentum`` and
    ``base_momentum``."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        _require_optimizer(optimizer)
        base_lrs = _one_per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, base_lrs):
                _set_lr(group, lr)
        self.max_lrs = _one_per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = {"triangular": "cycle", "triangular2": "cycle",
                           "exp_range": "iterations"}[mode] if scale_fn is None else scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            self.base_momentums = _one_per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _one_per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for group, m in zip(optimizer.param_groups, self.max_momentums):
                    _set_momentum(group, m, self.use_beta1)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        """The amplitude scale for cycle number / iteration ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def _position(self):
        """(cycle number, fraction of the way up (or down) the current ramp)."""
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            return cycle, x / self.step_ratio
        return cycle, (x - 1) / (self.step_ratio - 1)

    def _scale(self, cycle):
        return self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)

    def get_lr(self):
        self._check_get_lr_caller()
        cycle, ramp = self._position()
        scale = self._scale(cycle)
        return [base + (top - base) * ramp * scale for base, top in zip(self.base_lrs, self.max_lrs)]

    def step(self, epoch=None):
        """Set the lrs for the next iteration, then the momentums that mirror them."""
        super().step(epoch)
        if self.cycle_momentum:
            cycle, ramp = self._position()
            scale = self._scale(cycle)
            for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, hi - (hi - lo) * ramp * scale, self.use_beta1)

    def state_dict(self):
        state = super().state_dict()
        state["_scale_fn_custom"] = _fn_state(self._scale_fn_custom)
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        custom = state.pop("_scale_fn_custom", None)
        self.__dict__.update(state)
        if custom is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(custom)


def _anneal_cos(start, end, pct):
    """Cosine from ``start`` (pct 0) to ``end`` (pct 1)."""
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _anneal_linear(start, end, pct):
    """Straight line from ``start`` (pct 0) to ``end`` (pct 1)."""
    return (end - start) * pct + start


class OneCycleLR(LRScheduler):
    """msnb implementation of ``torch.optim.lr_scheduler.OneCycleLR`` (the 1cycle policy).

    The schedule is a list of phases, each annealing the lr (and inversely
    the momentum) between two named per-group values over a range of steps:
    warm up from ``initial_lr = max_lr / div_factor`` to ``max_lr``, then
    down to ``min_lr = initial_lr / final_div_factor`` (``three_phase`` goes
    back to ``initial_lr`` first).  Not chainable: every step recomputes
    from the group's stored endpoints."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _require_optimizer(optimizer)
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        self._schedule_phases = _one_cycle_phases(self.total_steps, pct_start, three_phase)
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group, top in zip(groups, _one_per_group("max_lr", optimizer, max_lr)):
                start = top / div_factor
                group["initial_lr"] = start
                group["max_lr"] = top
                group["min_lr"] = start / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            if last_epoch == -1:
                lows = _one_per_group("base_momentum", optimizer, base_momentum)
                highs = _one_per_group("max_momentum", optimizer, max_momentum)
                for group, lo, hi in zip(groups, lows, highs):
                    _set_momentum(group, hi, self.use_beta1)
                    group["max_momentum"] = hi
                    group["base_momentum"] = lo
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        fn = _anneal_cos if self._anneal_func_type == "cos" else _anneal_linear
        return fn(start, end, pct)

    def _phase_at(self, step):
        """(phase, fraction of it completed) for ``step``; the last phase absorbs any overshoot."""
        begin = 0
        last = len(self._schedule_phases) - 1
        for i, phase in enumerate(self._schedule_phases):
            end = phase["end_step"]
            if step <= end or i == last:
                return phase, (step - begin) / (end - begin)
            begin = end
        raise AssertionError("unreachable")

    def get_lr(self):
        self._check_get_lr_caller()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is "
                             f"{self.total_steps}")
        phase, pct = self._phase_at(step)
        return [self._anneal(g[phase["start_lr"]], g[phase["end_lr"]], pct) for g in self.optimizer.param_groups]

    def step(self, epoch=None):
        """Set the lrs for the next step, then the momentums that mirror them."""
        super().step(epoch)
        if self.cycle_momentum:
            phase, pct = self._phase_at(self.last_epoch)
            for group in self.optimizer.param_groups:
                m = self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                _set_momentum(group, m, self.use_beta1)


def _positive_int(name, value):
    if value is None or not isinstance(value, int) or value <= 0:
        raise ValueError(f"Expected positive integer {name}, but got {value}")
    return value


def _total_steps(total_steps, epochs, steps_per_epoch):
    if total_steps is not None:
        return _positive_int("total_steps", total_steps)
    if epochs is not None and steps_per_epoch is not None:
        return _positive_int("epochs", epochs) * _positive_int("steps_per_epoch", steps_per_epoch)
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _phase(end_step, lr_from, lr_to, momentum_from, momentum_to):
    return {"end_step": end_step, "start_lr": lr_from, "end_lr": lr_to,
            "start_momentum": momentum_from, "end_momentum": momentum_to}


def _one_cycle_phases(total, pct_start, three_phase):
    """The phase table; step counts are 0-based, so each boundary sits one below its share of ``total``."""
    warm_end = float(pct_start * total) - 1
    if three_phase:
        return [_phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * total) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                _phase(total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
    return [_phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            _phase(total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.optim.lr_scheduler")
