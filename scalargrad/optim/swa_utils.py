"""``torch.optim.swa_utils``: stochastic weight averaging and exponential moving averages.

``AveragedModel`` keeps a deep copy of a model whose parameters (and, with ``use_buffers``, buffers)
are running averages of another model's; ``update_bn`` recomputes BatchNorm statistics in one pass
over a loader; the four ``get_*_avg_fn`` factories give the averaging functions; SWALR anneals each
group's learning rate from its current value to ``swa_lr`` over ``anneal_epochs`` steps ("cos" or
"linear"), then holds it, with PyTorch 2.13's chained formula in PyTorch's order of float operations.

The averages are PyTorch's CPU arithmetic: on the CPU PyTorch's foreach kernels run per tensor
(``lerp_``, ``sub``, ``addcdiv_``, ``add_``), and ``AveragedModel`` without an averaging function
takes the per-tensor ``get_swa_avg_fn`` path (the CPU is not a foreach device), so each update is
the same tensor operations as here, in the same order.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .._base import dtypes
from .._base.grad_mode import no_grad
from .._base.presentation import present_as_torch
from .._tensor.factories import tensor
from .._tensor.tensor import Tensor
from ..nn.modules.module import Module
from ..nn.modules.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .cyclic_lr import _format_param
from .optimizer import Optimizer
from .scheduler import LRScheduler, _warn_get_lr_called_within_step

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _float_or_complex(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay=0.999):
    """The in-place EMA over lists of tensors: ``ema.lerp_(current, 1 - decay)`` for float and
    complex tensors, ``ema * decay + current * (1 - decay)`` copied back otherwise."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if _float_or_complex(ema_param_list[0]):
            _check_lists(ema_param_list, current_param_list)
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The in-place equal-weight average over lists of tensors: ``avg.lerp_(current, 1 / (n + 1))``
    for float and complex tensors; integer ones add ``(current - avg) / (n + 1)`` (PyTorch's
    ``addcdiv_``/``add_``, which refuse integer division as PyTorch's do)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        _check_lists(averaged_param_list, current_param_list)
        if _float_or_complex(averaged_param_list[0]):
            weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, weight)
        else:
            diffs = [p_model.sub(p_avg) for p_avg, p_model in zip(averaged_param_list, current_param_list)]
            if isinstance(num_averaged, Tensor):
                for p_avg, diff in zip(averaged_param_list, diffs):
                    p_avg.addcdiv_(diff, num_averaged + 1)
            else:
                for p_avg, diff in zip(averaged_param_list, diffs):
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def _check_lists(first, second) -> None:
    """ATen's ``check_foreach_api_restrictions`` on two tensor lists."""
    if len(first) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if len(first) != len(second):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(first)} and "
                           f"{len(second)}")


def get_ema_avg_fn(decay=0.999):
    """The EMA of one tensor: ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The equal-weight average of one tensor: ``avg + (current - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """``AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False)``:
    a deep copy of ``model`` (as ``self.module``) with an ``n_averaged`` int64 buffer;
    ``update_parameters(model)`` copies ``model``'s parameters in on the first call and averages
    them in afterwards (equal weights unless ``avg_fn``/``multi_avg_fn`` says otherwise), and
    keeps the buffers in sync with ``model``'s (or averages them too with ``use_buffers``)."""

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False) -> None:
        super().__init__()
        assert avg_fn is None or multi_avg_fn is None, "Only one of avg_fn and multi_avg_fn should be provided"
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The copied module's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s parameters (and buffers with ``use_buffers``) into this copy."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        self_detached, model_detached = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach().to(p_averaged.device)
            self_detached.append(p_averaged.detach())
            model_detached.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for device, self_params, model_params in _group_by_device_and_dtype(self_detached, model_detached):
                    n_averaged = self.n_averaged.to(device)
                    if self.multi_avg_fn:
                        self.multi_avg_fn(self_params, model_params, n_averaged)
                    else:  # the CPU is not a foreach device: PyTorch's per-tensor path
                        avg_fn = get_swa_avg_fn()
                        for p_averaged, p_model in zip(self_params, model_params):
                            p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
            else:
                for p_averaged, p_model in zip(self_detached, model_detached):
                    n_averaged = self.n_averaged.to(p_averaged.device)
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n_averaged))
        if not self.use_buffers:
            # without running averages of the buffers, they follow the source model's
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def _group_by_device_and_dtype(first: list, second: list) -> list:
    """(device, first's tensors, second's tensors) per (device, dtype) of ``first``, in order of
    first appearance (each group keeps the lists' order, as ATen's grouping does)."""
    groups: dict = {}
    for a, b in zip(first, second):
        key = (a.device, a.dtype)
        groups.setdefault(key, ([], []))
        groups[key][0].append(a)
        groups[key][1].append(b)
    return [(key[0], a, b) for key, (a, b) in groups.items()]


# PyTorch's _BatchNorm subclasses (the lazy ones derive from these; SyncBatchNorm is absent here)
_BATCH_NORMS = (BatchNorm1d, BatchNorm2d, BatchNorm3d)


@no_grad()
def update_bn(loader, model: Module, device=None) -> None:
    """One pass of ``loader`` through ``model`` in training mode with every BatchNorm's
    statistics reset and its momentum None (a cumulative average); then the momenta and the
    training mode are restored. A batch that is a list or tuple feeds its first element."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BATCH_NORMS):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


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
