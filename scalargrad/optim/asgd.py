"""``torch.optim.ASGD`` (averaged SGD), as PyTorch 2.13's single-tensor implementation computes it.

Per parameter (``eta`` and ``mu`` 0-dim state tensors, ``ax`` the running average)::

    step += 1
    grad = -grad if maximize;  grad = grad + weight_decay * param
    param = param * (1 - lambd * eta);  param = param - eta * grad
    ax = ax + (param - ax) * mu      (ax = param while mu is 1)
    eta = lr / (1 + lambd * lr * step) ** alpha;  mu = 1 / max(1, step - t0)
"""

from __future__ import annotations

from .._tensor import factories as F
from .._tensor.tensor import Tensor
from .optimizer import _get_scalar_dtype, _get_value, _to_scalar
from .single_tensor import SingleTensorOptimizer, check, maybe_negate, with_weight_decay

__all__ = ["ASGD", "asgd"]


def _eta(group: dict, p: Tensor) -> Tensor:
    return F.tensor(float(_get_value(_to_scalar(group["lr"]))), dtype=_get_scalar_dtype())


class ASGD(SingleTensorOptimizer):
    """``ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
    maximize=False, differentiable=False, capturable=False)``."""

    STATE = (("step", "step"), ("eta", _eta), ("mu", "one"), ("ax", "zeros"))

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False) -> None:
        check(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def update(self, group: dict, p: Tensor, grad: Tensor, state: dict) -> None:
        asgd([p], [grad], [state["ax"]], [state["mu"]], [state["eta"]], [state["step"]], lambd=group["lambd"],
             lr=group["lr"], t0=group["t0"], alpha=group["alpha"], weight_decay=group["weight_decay"],
             maximize=group["maximize"])


def asgd(params, grads, axs, mus, etas, state_steps, *, lambd, lr, t0, alpha, weight_decay, maximize,
         **_ignored) -> None:
    """The ASGD update (the functional form); the state tensors are updated in place."""
    for param, grad, ax, mu, eta, step_t in zip(params, grads, axs, mus, etas, state_steps):
        grad = maybe_negate(grad, maximize)
        step_t += 1
        grad = with_weight_decay(grad, param, weight_decay)
        eta_value = _get_value(eta)
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = _get_value(step_t)
        eta.copy_(F.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(F.as_tensor(1 / max(1, step - t0)))
