"""``torch.__future__``: the switches for how ``Module._apply`` (``.to()``, ``.double()``...)
and ``load_state_dict`` put converted tensors into a module.

Both are off by default, PyTorch's behaviour and scalargrad's only one: ``_apply`` keeps each
Parameter object and sets its ``.data``; ``load_state_dict`` copies into the existing tensors.
Turning either on (``True``) is ``Unsupported``; setting ``False`` is accepted.
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


def get_swap_module_params_on_conversion() -> bool:
    """Whether ``_apply`` and ``load_state_dict`` swap tensors with ``swap_tensors``: never."""
    return False


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Only ``False`` (the default) is implemented."""
    if value:
        raise Unsupported("torch.__future__.set_swap_module_params_on_conversion(True)",
                          "Module._apply sets .data and load_state_dict copies in place; "
                          "swapping tensors is not implemented")
