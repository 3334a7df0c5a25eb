"""``float(t)`` and ``int(t)`` of a tensor: the one-element check, and PyTorch's warning when a
tensor that requires grad is converted to a Python float.

``float(t)`` (and so ``complex(t)``, ``math.exp(t)``, ``"%f" % t``) reaches ATen's ``item()``,
which warns once per process (``TORCH_WARN_ONCE``) when grad mode is on and ``t`` requires grad:
the number leaves the graph. ``Tensor.item()``, ``int(t)``, ``bool(t)`` and ``format(t)`` take
another path in PyTorch and do not warn. The warning names the program's line.
"""

from __future__ import annotations

import sys
import warnings

from .grad_mode import is_grad_enabled
from .program_frame import _PACKAGE, program_stacklevel
from .warn_once import first_time

__all__ = ["one_element", "float_conversion"]

_MESSAGE = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
            "Consider using tensor.detach() first. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")


def one_element(numel: int) -> None:
    """PyTorch's refusal of ``float(t)``/``int(t)`` of a tensor of ``numel`` != 1 elements."""
    if numel != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")


def float_conversion(numel: int, requires_grad: bool) -> None:
    """Called by ``Tensor.__float__``: refuse a tensor of several elements, and warn as PyTorch
    does if the tensor requires grad. Only a conversion the program asks for warns (scalargrad's
    own ``float()`` of a tensor, where PyTorch computes in C++, does not)."""
    one_element(numel)
    if not (requires_grad and is_grad_enabled()):
        return
    if sys._getframe(2).f_code.co_filename.startswith(_PACKAGE):
        return
    if first_time("float_of_grad"):
        warnings.warn(_MESSAGE, UserWarning, stacklevel=program_stacklevel())
