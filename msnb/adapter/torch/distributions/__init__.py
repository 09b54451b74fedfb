"""msnb implementation of ``torch.distributions``: the distributions training
code uses (policy gradients, VAEs, mixture models), with PyTorch's shapes,
argument validation, ``log_prob``/``entropy`` formulas and ``rsample``
reparameterisation.  Draws use msnb's random functions (``torch.normal``,
``rand``, ``multinomial``, ...); Gamma-family draws are seeded from msnb's
generator but are not PyTorch's stream (see ``continuous``)."""

from __future__ import annotations

from . import constraints
from .continuous import Beta, Dirichlet, Gamma, MultivariateNormal
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .normal import Exponential, Laplace, Normal
from .uniform import Uniform

__all__ = ["constraints", "Distribution", "Normal", "Laplace", "Exponential", "Uniform", "Bernoulli",
           "Categorical", "OneHotCategorical", "MultivariateNormal", "Gamma", "Dirichlet", "Beta", "Independent",
           "kl_divergence", "register_kl"]


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributions")
