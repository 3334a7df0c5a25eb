"""One entry of ``Module.load_state_dict``: a copy, an assignment or a swap, as PyTorch 2.13 does it.

PyTorch's ``_load_from_state_dict`` loads each entry as soon as it has checked it and reports a
copy that fails in ``error_msgs``; ``load_state_dict`` raises at the end, leaving the module half
loaded (the entries it accepted are loaded). scalargrad does the same. Only its own refusals
(``Unsupported``) are all or nothing: the one it can foresee, a swap of a tensor that a live
autograd graph uses, is checked for every entry before the first is loaded
(``refuse_unsupported_swaps``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..._base.errors import Unsupported
from ..._base.grad_mode import no_grad
from ..._tensor.swap import check_swappable, swap_contents
from ..parameter import Parameter, is_lazy

__all__ = ["load_entry", "refuse_unsupported_swaps"]


def load_entry(module, name: str, param, input_param, key: str, assign: bool, swap: bool) -> str | None:
    """Load ``input_param`` (already checked: a tensor of ``param``'s shape) into ``module``'s
    parameter or buffer ``name``: ``param.copy_``, ``setattr`` of the given tensor (``assign``;
    a parameter stays a Parameter with its ``requires_grad``), or under
    ``torch.__future__.set_swap_module_params_on_conversion(True)`` a swap of what
    ``param.module_load`` gives into ``param``'s object. Returns PyTorch's message if it failed
    (what failed changed nothing); ``Unsupported`` propagates."""
    try:
        with no_grad():
            if swap:
                _swap(param, input_param, assign)
            elif assign:
                if isinstance(param, Parameter):
                    if not isinstance(input_param, Parameter):
                        input_param = Parameter(input_param, requires_grad=param.requires_grad)
                    else:
                        input_param.requires_grad_(param.requires_grad)  # PyTorch changes the given Parameter
                setattr(module, name, input_param)
            else:
                param.copy_(input_param)
    except Unsupported:
        raise
    except Exception as ex:
        return (f'While {"swapping" if swap else "copying"} the parameter named "{key}", whose dimensions in the '
                f"model are {param.size()} and whose dimensions in the checkpoint are {input_param.size()}, an "
                f"exception occurred : {ex.args}.")
    return None


def _swap(param, input_param, assign: bool) -> None:
    new = param.module_load(input_param, assign=assign)
    if new is input_param or new is param:
        raise RuntimeError("module_load returned one of self or other, please .detach() the result if "
                           "returning one of the inputs in module_load")
    if isinstance(param, Parameter):
        if not isinstance(new, Parameter):
            new = Parameter(new, requires_grad=param.requires_grad)
        else:
            new.requires_grad_(param.requires_grad)
    refusal = check_swappable([param]).get(id(param))  # a view or a gradient holds it: PyTorch's error
    if refusal is not None:
        raise refusal
    swap_contents(param, new)


def refuse_unsupported_swaps(module, state_dict: Mapping) -> None:
    """Raise ``Unsupported`` before anything is loaded if a tensor that a swapping load would
    replace is used by a live autograd graph (what ``swap_tensors`` cannot do), in one pass over
    the heap for the whole module tree."""
    tensors = list(_entries(module, state_dict, ""))
    if tensors:
        check_swappable(tensors)


def _entries(module, state_dict: Mapping, prefix: str) -> Iterator:
    """The parameters and persistent buffers of ``module``'s tree that ``state_dict`` has a key
    for, in the order ``load_state_dict`` visits them (iteratively: no recursion)."""
    stack = [(module, prefix)]
    while stack:
        m, prefix = stack.pop()
        for name, t in (*m._parameters.items(), *m._buffers.items()):
            if t is not None and not is_lazy(t) and prefix + name in state_dict \
                    and name not in m._non_persistent_buffers_set:
                yield t
        stack.extend((child, prefix + name + ".") for name, child in reversed(m._modules.items())
                     if child is not None)
