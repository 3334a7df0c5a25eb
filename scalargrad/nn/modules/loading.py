"""The all-or-nothing machinery of ``Module.load_state_dict``.

PyTorch copies each entry as soon as it has checked it, so a load that fails half way leaves
the module half loaded. scalargrad first checks every key, shape and type (queueing the copies
in a ``LoadPlan``), then carries the queue out with ``run_step``, each step returning the
function that undoes it, so that a load rejected at the end is rolled back.
"""

from __future__ import annotations

from ..._base.grad_mode import no_grad
from ..._tensor.storage import write
from ..parameter import Parameter

__all__ = ["LoadPlan", "run_step"]


class LoadPlan(list):
    """The error list of one ``load_state_dict`` call, which also carries what the load will do.

    ``_load_from_state_dict`` appends to it as to PyTorch's ``error_msgs`` list; the copies and
    assignments it decides are queued in ``steps`` (with the modules' post-hooks in PyTorch's
    order) and run only once every key has been checked.
    """

    def __init__(self) -> None:
        super().__init__()
        self.steps: list = []


def run_step(step: tuple):
    """Carry out one queued load step. Returns ``(undo, error)``: a function that puts the
    module back as it was, and PyTorch's message if the copy failed (then nothing changed)."""
    kind, module, name, param, input_param, key = step
    if kind == "extra":
        saves = param  # the module reports its extra state: the step can be undone
        old_state = module.get_extra_state() if saves else None
        module.set_extra_state(input_param)
        return ((lambda: module.set_extra_state(old_state)) if saves else None), None
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


def _copy_failure(key: str, param, input_param, ex: Exception) -> str:
    return (f'While copying the parameter named "{key}", whose dimensions in the model are {param.size()} and '
            f"whose dimensions in the checkpoint are {input_param.size()}, an exception occurred : {ex.args}.")


def _snapshot(t) -> tuple:
    """What a copy into ``t`` changes: its elements, type, change stamp and version."""
    vals = list(t._val) if t._t.ndim else t._val
    return vals, t._t, t._seq, t._version


def _restore(t, snapshot: tuple) -> None:
    vals, ty, seq, version = snapshot
    if ty.ndim and t._t.ndim and t._t.numel == ty.numel:
        write(t, vals)  # in place, so that every alias of the tensor sees its old numbers again
    else:
        t._val = vals
    t._t, t._seq = ty, seq
    if t._s is not None:
        t._s.ver.n = version
