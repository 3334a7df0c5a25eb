"""``torch.autograd.functional``: Jacobians, Hessians and their products with vectors."""

from .._autograd.functional import _construct_standard_basis_for, hessian, hvp, jacobian, jvp, vhp, vjp  # noqa: F401 (the private helper PyTorch exposes here too)
from .._base.missing_api import missing_attribute

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.autograd.functional", name)
