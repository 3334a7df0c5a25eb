"""``torch._C._functions.UndefinedGrad``: the node gradcheck's undefined-gradient check (and
PyTorch's tests) put after an output so that backward hands the nodes before it an undefined
gradient."""

from __future__ import annotations

from .function import Function

__all__ = ["UndefinedGrad"]


def _forward(ctx, x):
    return x.clone()


def _backward(ctx, grad):
    return None  # undefined


# a Function named so that its node is UndefinedGradBackward, as PyTorch's
_Undefined = type("UndefinedGrad", (Function,), {"forward": staticmethod(_forward),
                                                 "backward": staticmethod(_backward)})
_Undefined._op.namespace = "torch::autograd::"  # an engine node: name() is qualified


class UndefinedGrad:
    """``UndefinedGrad()(t)``: ``t``'s values in a new tensor whose grad_fn,
    ``UndefinedGradBackward``, sends an undefined gradient to ``t``."""

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"expected 1 arguments, got {len(inputs)} instead")
        return _Undefined.apply(inputs[0])

