"""``torch.optim.AdamW``: Adam with decoupled weight decay (default 1e-2), PyTorch 2.13's."""

from __future__ import annotations

from .adam import Adam, adam

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
    *, maximize=False, foreach=None, capturable=False, differentiable=False, fused=None)``:
    ``param *= 1 - lr * weight_decay`` before Adam's update (``adam.py``)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(params: list, grads: list, exp_avgs: list, exp_avg_sqs: list, max_exp_avg_sqs: list, state_steps: list,
          **kwargs) -> None:
    """The AdamW update: ``adam`` with decoupled weight decay."""
    kwargs["decoupled_weight_decay"] = True
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, **kwargs)
