"""``torch.distributions``: Categorical, OneHotCategorical, Multinomial (sampling), Bernoulli, Normal and
Uniform with PyTorch's shapes, validation messages and reprs; samples drawn as PyTorch draws them under
one seed. PyTorch's other distributions and transforms are names that raise ``Unsupported``."""

from __future__ import annotations

from .._base.missing_api import missing_attribute, pytorch_names
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .multinomial import Multinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Multinomial", "Normal", "OneHotCategorical", "Uniform",
           "constraints"]


def __getattr__(name: str):
    return missing_attribute("torch.distributions", name)


def __dir__() -> list[str]:
    """PyTorch's names (those scalargrad lacks raise Unsupported when used) and the module's dunders."""
    own = {n for n in globals() if n.startswith("__") and n not in ("__getattr__", "__dir__")}
    return sorted(set(pytorch_names("torch.distributions")) | own)
