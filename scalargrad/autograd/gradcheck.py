"""``torch.autograd.gradcheck``, the module (``torch.autograd.gradcheck`` the attribute is the
function): ``gradcheck``, ``gradgradcheck``, ``GradcheckError`` and the deprecated
``get_numerical_jacobian`` / ``get_analytical_jacobian``."""

from .._autograd.gradcheck import (
    GradcheckError,
    get_analytical_jacobian,
    get_numerical_jacobian,
    gradcheck,
    gradgradcheck,
)
from .._base.missing_api import missing_attribute

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian"]


def __getattr__(name: str):
    return missing_attribute("torch.autograd.gradcheck", name)
