"""``torch.autograd.functional``: Jacobians, Hessians and their products with vectors."""

from .._autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]
