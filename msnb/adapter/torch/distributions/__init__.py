"""msnb implementation of ``torch.distributions``: the distributions training
code uses (policy gradients, VAEs, mixture models), with PyTorch's shapes,
argument validation, ``log_prob``/``entropy`` formulas and ``rsample``
reparameterisation.  Draws use msnb's random functions (``torch.normal``,
``rand``, ``multinomial``, ...); Gamma-family draws are seeded from msnb's
generator but are not PyTorch's stream (see ``continuous``)."""

from __future__ import annotations

from . import constraints
from .continuous import Beta, Dirichlet, Gamma, MultivariateNormal
from .counts import Binomial, Geometric, Multinomial, Poisson
from .tails import Cauchy, Chi2, Gumbel, HalfCauchy, HalfNormal, LogNormal, StudentT
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .normal import Exponential, Laplace, Normal
from .uniform import Uniform

__all__ = ["constraints", "Distribution", "Normal", "Laplace", "Exponential", "Uniform", "Bernoulli",
           "Categorical", "OneHotCategorical", "MultivariateNormal", "Gamma", "Dirichlet", "Beta", "Independent",
           "Multinomial", "Binomial", "Poisson", "Geometric", "Cauchy", "HalfCauchy", "HalfNormal", "LogNormal",
           "Gumbel", "Chi2", "StudentT",
           "kl_divergence", "register_kl"]


def _submodules():
    """PyTorch's one-module-per-family layout (``from torch.distributions.multinomial
    import Multinomial``, as d2l writes): each module holds its family's class."""
    import sys
    import types

    layout = {"bernoulli": "Bernoulli", "categorical": "Categorical", "one_hot_categorical": "OneHotCategorical",
              "multivariate_normal": "MultivariateNormal", "gamma": "Gamma", "dirichlet": "Dirichlet",
              "beta": "Beta", "exponential": "Exponential", "laplace": "Laplace", "multinomial": "Multinomial",
              "binomial": "Binomial", "poisson": "Poisson", "geometric": "Geometric", "cauchy": "Cauchy",
              "half_cauchy": "HalfCauchy", "half_normal": "HalfNormal", "log_normal": "LogNormal",
              "gumbel": "Gumbel", "chi2": "Chi2", "studentT": "StudentT"}
    for mod_name, cls_name in layout.items():
        mod = types.ModuleType(f"{__name__}.{mod_name}", f"msnb's ``torch.distributions.{mod_name}``.")
        setattr(mod, cls_name, globals()[cls_name])
        mod.__all__ = [cls_name]
        sys.modules[mod.__name__] = mod
        globals()[mod_name] = mod


_submodules()


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributions")
