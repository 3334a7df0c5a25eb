"""The all-or-nothing machinery of ``Module.load_state_dict``.

PyTorch copies each entry as soon as it has checked it, so a load that fails half way leaves
the module half loaded. scalargrad first checks every key, shape and type (queueing the copies
in a ``LoadPlan``), then carries the queue out with ``run_step``, each step returning the
function that undoes it, so that a load rejected at the end is rolled back.
"""

from __future__ import annotations

from ..._base.errors import Unsupported
from ..._base.grad_mode import no_grad
from ..._base.meta_data import NO_DATA, own_copy
from ..._tensor.storage import write
from ..._tensor.swap import check_swappable, swap_contents
from ..parameter import Parameter

__all__ = ["LoadPlan", "run_step", "swap_refusals"]


class LoadPlan(list):
    """The error list of one ``load_state_dict`` call, which also carries what the load will do.

    ``_load_from_state_dict`` appends to it as to PyTorch's ``error_msgs`` list; the copies and
    assignments it decides are queued in ``steps`` (with the modules' post-hooks in PyTorch's
    order) and run only once every key has been checked.
    """

    def __init__(self) -> None:
        super().__init__()
        self.steps: list = []
        self.run_now = None  # load_state_dict's runner of the steps queued so far (set_extra_state's)


def swap_refusals(steps: list) -> dict:
    """What ``swap_tensors`` would refuse among the tensors the swap steps replace, checked in
    one pass before any step runs (``check_swappable``)."""
    swapped = [step[3] for step in steps if step[0] in ("swap", "swap assign")]
    return check_swappable(swapped) if swapped else {}


def run_step(step: tuple, refused: dict | None = None):
    """Carry out one queued load step. Returns ``(undo, error)``: a function that puts the
    module back as it was, and PyTorch's message if the copy failed (then nothing changed)."""
    kind, module, name, param, input_param, key = step
    if kind == "extra":
        saves = param  # the module reports its extra state: the step can be undone
        old_state = module.get_extra_state() if saves else None
        module.set_extra_state(input_param)
        return ((lambda: module.set_extra_state(old_state)) if saves else None), None
    if kind in ("swap", "swap assign"):
        if refused is None:  # a step run on its own (``_load_from_state_dict`` called directly)
            refused = check_swappable([param])
        return _swap_step(key, param, input_param, kind == "swap assign", refused.get(id(param)))
    if kind == "assign":
        params, buffers = dict(module._parameters), dict(module._buffers)
        non_persistent = set(module._non_persistent_buffers_set)
        given, given_rg = input_param, input_param._rg
        if isinstance(param, Parameter):
            try:
                if not isinstance(input_param, Parameter):
                    input_param = Parameter(input_param, requires_grad=param.requires_grad)
                else:
                    input_param.requires_grad_(param.requires_grad)  # PyTorch changes the given Parameter
            except Exception as ex:  # PyTorch reports it as a failed copy (an int tensor for a float one)
                given._rg = given_rg
                return None, _copy_failure(key, param, given, ex)

        def undo_assign() -> None:
            module._parameters.clear()
            module._parameters.update(params)
            module._buffers.clear()
            module._buffers.update(buffers)
            module._non_persistent_buffers_set.clear()
            module._non_persistent_buffers_set.update(non_persistent)
            given._rg = given_rg

        setattr(module, name, input_param)
        return undo_assign, None
    snapshot = _snapshot(param)
    try:
        with no_grad():
            param.copy_(input_param)
    except Exception as ex:
        _restore(param, snapshot)
        return None, _copy_failure(key, param, input_param, ex)
    return (lambda: _restore(param, snapshot)), None


def _swap_step(key: str, param, input_param, assign: bool, refusal: Exception | None) -> tuple:
    """A step under ``torch.__future__.set_swap_module_params_on_conversion(True)``: what
    ``param.module_load`` gives (a Parameter with ``param``'s requires_grad for a parameter) is
    swapped into ``param``'s object; undone by swapping back (and restoring a copy's numbers)."""
    snapshot = None if assign else _snapshot(param)
    try:
        if refusal is not None:
            raise refusal
        with no_grad():
            new = param.module_load(input_param, assign=assign)
            if new is input_param or new is param:
                raise RuntimeError("module_load returned one of self or other, please .detach() the result if "
                                   "returning one of the inputs in module_load")
            if isinstance(param, Parameter):
                if not isinstance(new, Parameter):
                    new = Parameter(new, requires_grad=param.requires_grad)
                else:
                    new.requires_grad_(param.requires_grad)
            swap_contents(param, new)
    except Unsupported:
        raise
    except Exception as ex:
        if snapshot is not None:
            _restore(param, snapshot)
        return None, _copy_failure(key, param, input_param, ex, "swapping")

    def undo_swap() -> None:
        swap_contents(param, new)
        if snapshot is not None:
            _restore(param, snapshot)

    return undo_swap, None


def _copy_failure(key: str, param, input_param, ex: Exception, action: str = "copying") -> str:
    return (f'While {action} the parameter named "{key}", whose dimensions in the model are {param.size()} and '
            f"whose dimensions in the checkpoint are {input_param.size()}, an exception occurred : {ex.args}.")


def _snapshot(t) -> tuple:
    """What a copy into ``t`` changes: its elements, type, change stamp and version."""
    return own_copy(t._val, t._t.ndim), t._t, t._seq, t._version


def _restore(t, snapshot: tuple) -> None:
    vals, ty, seq, version = snapshot
    if vals is NO_DATA:  # a meta tensor: a copy into it changed no element
        t._val = vals
    elif ty.ndim and t._t.ndim and t._t.numel == ty.numel:
        write(t, vals)  # in place, so that every alias of the tensor sees its old numbers again
    else:
        t._val = vals
    t._t, t._seq = ty, seq
    if t._s is not None:
        t._s.ver.n = version
