"""``torch.autograd.functional``: Jacobians, Hessians and their products with vectors."""

from .._autograd.functional import construct_standard_basis_for as _construct_standard_basis_for  # noqa: F401 (PyTorch names it here)
from .._autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from .._base.missing_api import missing_attribute

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.autograd.functional", name)
