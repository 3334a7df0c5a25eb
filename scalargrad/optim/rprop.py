"""``torch.optim.Rprop``, as PyTorch 2.13's single-tensor implementation computes it.

Per parameter::

    step += 1;  grad = -grad if maximize
    sign = sign(grad * prev) mapped to etaplus (> 0), etaminus (< 0), 1 (= 0)
    step_size = clamp(step_size * sign, step_size_min, step_size_max)
    grad = 0 where sign == etaminus
    param = param.addcmul(sign(grad), step_size, value=-1);  prev = grad
"""

from __future__ import annotations

from .._tensor import factories as F
from .._tensor.tensor import Tensor
from .optimizer import _to_scalar
from .single_tensor import SingleTensorOptimizer, check

__all__ = ["Rprop", "rprop"]


def _step_size(group: dict, p: Tensor) -> Tensor:
    return F.full_like(p, _to_scalar(group["lr"]))


class Rprop(SingleTensorOptimizer):
    """``Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
    foreach=None, maximize=False, differentiable=False)``."""

    STATE = (("step", "step"), ("prev", "zeros"), ("step_size", _step_size))

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False) -> None:
        check(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def update(self, group: dict, p: Tensor, grad: Tensor, state: dict) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        rprop([p], [grad], [state["prev"]], [state["step_size"]], [state["step"]], step_size_min=step_size_min,
              step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus, maximize=group["maximize"],
              differentiable=group["differentiable"])


def rprop(params, grads, prevs, step_sizes, state_steps, *, step_size_min, step_size_max, etaminus, etaplus,
          maximize, differentiable=False, **_ignored) -> None:
    """The Rprop update (the functional form); the state tensors are updated in place."""
    for param, grad, prev, step_size, step in zip(params, grads, prevs, step_sizes, state_steps):
        grad = -grad if maximize else grad
        step += 1
        sign = grad.mul(prev.clone() if differentiable else prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
