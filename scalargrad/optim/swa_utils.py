"""``torch.optim.swa_utils``: the SWALR scheduler (stochastic weight averaging's learning rate).

SWALR anneals each group's learning rate from its current value to ``swa_lr`` over
``anneal_epochs`` steps ("cos" or "linear"), then holds it, with PyTorch 2.13's chained formula
in PyTorch's order of float operations (so its figures are PyTorch's to the last bit).
AveragedModel, update_bn and the averaging-function factories are not implemented: using one
raises ``Unsupported``.
"""

from __future__ import annotations

import math

from .._base.presentation import present_as_torch
from .cyclic_lr import _format_param
from .optimizer import Optimizer
from .scheduler import LRScheduler, _warn_get_lr_called_within_step
from .unsupported import placeholder, placeholder_function

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]

AveragedModel = placeholder("torch.optim.swa_utils", "AveragedModel")
update_bn = placeholder_function("torch.optim.swa_utils", "update_bn")
get_ema_multi_avg_fn = placeholder_function("torch.optim.swa_utils", "get_ema_multi_avg_fn")
get_swa_multi_avg_fn = placeholder_function("torch.optim.swa_utils", "get_swa_multi_avg_fn")
get_ema_avg_fn = placeholder_function("torch.optim.swa_utils", "get_ema_avg_fn")
get_swa_avg_fn = placeholder_function("torch.optim.swa_utils", "get_swa_avg_fn")


class SWALR(LRScheduler):
    """``SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1)``:
    sets each group's ``swa_lr`` (one value, or one per group) and anneals towards it."""

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs=10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # the learning rate before the last annealing step, recovered from the current one
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        """Every attribute but the optimizer and the annealing function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)


present_as_torch(globals())
