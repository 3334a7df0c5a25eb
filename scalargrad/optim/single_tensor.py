"""What the optimizers added for issue 23 (Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop) share:
PyTorch's per-parameter ("single tensor", for-loop) step written with tensor ops, the state each
parameter gets on its first step, PyTorch's argument checks and ``capturable``/``foreach``
answers. Each optimizer's module holds its own update, as PyTorch's source reads.
"""

from __future__ import annotations

from .._base.errors import Unsupported
from .._base.grad_mode import enable_grad
from .._tensor import factories as F
from .._tensor.tensor import Tensor
from . import elements as el
from .adam import capturable_on_cpu
from .optimizer import Optimizer, _get_scalar_dtype, _to_scalar, _use_grad_for_differentiable

__all__ = ["SingleTensorOptimizer", "check", "maybe_negate", "with_weight_decay"]


def check(lr=None, eps=None, weight_decay=None, betas=None) -> None:
    """PyTorch's checks of the common options, in its order and words."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if lr is not None and not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay is not None and not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def maybe_negate(grad: Tensor, maximize: bool) -> Tensor:
    return -grad if maximize else grad


def with_weight_decay(grad: Tensor, param: Tensor, weight_decay) -> Tensor:
    """``grad.add(param, alpha=weight_decay)`` when there is a weight decay (L2 penalty)."""
    return grad.add(param, alpha=weight_decay) if weight_decay != 0 else grad


class SingleTensorOptimizer(Optimizer):
    """An optimizer whose step updates each parameter with a gradient in turn (``update``),
    with the state ``STATE`` lists: ``(key, "step" | "zeros" | "one" | callable(group, p))``."""

    STATE: tuple = ()

    def __init__(self, params, defaults: dict) -> None:
        super().__init__(params, defaults)
        if defaults.get("foreach"):
            self._refuse_foreach()

    def _refuse_foreach(self) -> None:
        name = type(self).__name__
        raise Unsupported(f"torch.optim.{name}(foreach=True)",
                          f"scalargrad runs PyTorch's for-loop implementation of {name}, whose order of arithmetic "
                          "its foreach implementation need not keep: leave foreach unset")

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for key in ("foreach", "maximize", "differentiable", "capturable"):
                if key in self.defaults:
                    group.setdefault(key, None if key == "foreach" else False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = F.tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    def _new_state(self, group: dict, p: Tensor) -> dict:
        state = {}
        for key, kind in self.STATE:
            if kind == "step":
                state[key] = F.zeros((), dtype=_get_scalar_dtype())
            elif kind == "zeros":
                state[key] = F.zeros_like(p)
            elif kind == "one":
                state[key] = F.tensor(1.0, dtype=_get_scalar_dtype())
            else:
                state[key] = kind(group, p)
        return state

    def update(self, group: dict, p: Tensor, grad: Tensor, state: dict) -> None:
        raise NotImplementedError

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One step of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._accelerator_graph_capture_health_check()
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            if group.get("foreach"):
                self._refuse_foreach()
            todo = []
            for p in group["params"]:
                if not el.has_grad(p):
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state.update(self._new_state(group, p))
                todo.append((p, state))
            for p, state in todo:
                if group.get("capturable"):
                    raise capturable_on_cpu()
                self.update(dict(group, lr=_to_scalar(group["lr"])), p, p.grad, state)
        return loss
