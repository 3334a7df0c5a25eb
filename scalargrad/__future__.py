"""``torch.__future__``: the switches for how ``Module._apply`` (``.to()``, ``.double()``...)
and ``load_state_dict`` put converted tensors into a module.

Both are off by default: ``_apply`` keeps each Parameter object and sets its ``.data``;
``load_state_dict`` copies into the existing tensors. With ``swap`` on, both put the new contents
into the existing objects with ``torch.utils.swap_tensors`` (``Tensor.module_load`` gives
``load_state_dict`` the new contents). Turning ``overwrite`` on (new Parameter objects) is
``Unsupported``.
"""

from __future__ import annotations

from ._base.errors import Unsupported

__all__ = ["get_overwrite_module_params_on_conversion", "set_overwrite_module_params_on_conversion",
           "get_swap_module_params_on_conversion", "set_swap_module_params_on_conversion"]


def get_overwrite_module_params_on_conversion() -> bool:
    """Whether ``_apply`` assigns new Parameters instead of setting ``.data``: never."""
    return False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Only ``False`` (the default) is implemented."""
    if value:
        raise Unsupported("torch.__future__.set_overwrite_module_params_on_conversion(True)",
                          "Module._apply always keeps each Parameter object and sets its .data")


_swap = [False]


def get_swap_module_params_on_conversion() -> bool:
    """Whether ``_apply`` and ``load_state_dict`` swap tensors with ``swap_tensors``."""
    return _swap[0]


def set_swap_module_params_on_conversion(value: bool) -> None:
    """``True``: ``Module._apply`` and ``load_state_dict`` keep every parameter and buffer object
    and swap the new contents into it (PyTorch's default is ``False``)."""
    _swap[0] = value
