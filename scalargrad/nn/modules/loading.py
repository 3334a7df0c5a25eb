"""One entry of ``Module.load_state_dict``: a copy, an assignment or a swap, as PyTorch 2.13 does it.

PyTorch's ``_load_from_state_dict`` loads each entry as soon as it has checked it and reports a
copy that fails in ``error_msgs``; ``load_state_dict`` raises at the end, leaving the module half
loaded (the entries it accepted are loaded). scalargrad does the same. Only its own refusals
(``Unsupported``) are all or nothing: the one it can foresee, a swap of a tensor that a live
autograd graph uses, is checked for every entry before the first is loaded (``SwapCheck``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping

from ..._base.errors import Unsupported
from ..._base.grad_mode import no_grad
from ..._tensor.swap import check_swappable, swap_contents
from ..._tensor.tensor import Tensor
from ..parameter import Parameter, is_lazy

__all__ = ["SwapCheck", "load_entry", "swap_check"]

_current = threading.local()  # the SwapCheck of the load_state_dict running in this thread


class SwapCheck:
    """What ``swap_tensors`` would refuse among the tensors a swapping ``load_state_dict``
    replaces, found in one pass over the heap (``check_swappable``) for the whole module tree:
    made at the start, it raises ``Unsupported`` (a live autograd graph uses one) before
    anything is loaded. The program's own code that runs during the load (load hooks,
    ``set_extra_state``, an overridden ``_load_from_state_dict`` or ``module_load``) may make
    views or graphs: after it (``stale``) the next swap makes the pass again."""

    def __init__(self, module, state_dict: Mapping) -> None:
        self.module, self.state_dict = module, state_dict
        self.refused: dict | None = None
        self.checked: set = set()
        self._check(None)

    def _check(self, param) -> None:
        tensors = list(_entries(self.module, self.state_dict, ""))
        if param is not None:
            tensors.append(param)
        self.checked = {id(t) for t in tensors}
        self.refused = check_swappable(tensors) if tensors else {}

    def stale(self) -> None:
        self.refused = None

    def refusal(self, param) -> Exception | None:
        """PyTorch's error for swapping ``param`` now, or None."""
        if self.refused is None or id(param) not in self.checked:
            self._check(param)
        return self.refused.get(id(param))

    def __enter__(self) -> SwapCheck:
        self.outer = getattr(_current, "check", None)
        _current.check = self
        return self

    def __exit__(self, *exc) -> None:
        _current.check, self.outer = self.outer, None
        self.module = self.state_dict = self.refused = None  # hold no tensor after the load


def swap_check() -> SwapCheck | None:
    """The SwapCheck of the swapping ``load_state_dict`` running in this thread, if any."""
    return getattr(_current, "check", None)


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
    check = swap_check()
    if check is None:  # _load_from_state_dict called on its own
        refusal = check_swappable([param]).get(id(param))
    else:
        if type(param).module_load is not Tensor.module_load:
            check.stale()  # the program's own module_load ran
        refusal = check.refusal(param)
    if refusal is not None:  # a view or a gradient holds it: PyTorch's error
        raise refusal
    swap_contents(param, new)


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
