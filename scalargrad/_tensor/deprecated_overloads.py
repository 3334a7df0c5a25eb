"""PyTorch's deprecated positional overloads (``tools/autograd/deprecated.yaml``): the scale
given before the tensors, as PyTorch 0.x wrote it and old optimizers and tutorials still do:
``p.add_(-lr, grad)``, ``torch.addcmul(x, 0.5, a, b)``, ``torch.addmm(1, bias, 1, x, w)``.

PyTorch's argument parser still takes them and warns, once per process for all of them (one
``TORCH_WARN_ONCE`` in python_arg_parser.cpp serves every deprecated overload: after an
``addmv`` in the old form, an ``addbmm`` in the old form is silent). ``accepting`` wraps a
method or torch function of one of three families; a call that does not match the old form
passes through untouched, so every other error is the function's own.
"""

from __future__ import annotations

import functools
import inspect
import warnings

from .._base import warn_once
from .._base.program_frame import program_stacklevel
from .tensor import Tensor

__all__ = ["accepting"]

_P = inspect.Parameter
_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)"
_SITE = "deprecated overload"  # the one warn-once site of every deprecated overload (``warn_once``)

# family: (the scale's keyword(s), the tensors after it, by op name)
_TENSORS = {
    "add": ("other",), "sub": ("other",),
    "addcmul": ("tensor1", "tensor2"), "addcdiv": ("tensor1", "tensor2"),
    "addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
    "addbmm": ("batch1", "batch2"), "baddbmm": ("batch1", "batch2"),
}
_SCALE = {"add": "alpha", "sub": "alpha", "addcmul": "value", "addcdiv": "value"}  # the rest: beta [, alpha]
_OUT_DTYPE = ("addmm", "baddbmm")  # their torch functions list a second modern overload


def _number(x) -> bool:
    return x.__class__ in (int, float, bool)


def _match(op: str, method: bool, args: tuple):
    """(the modern positional arguments, their scale keywords, the old signature's parameters),
    or None when ``args`` is not the old form."""
    tensors = _TENSORS[op]
    n = len(tensors)
    scale = _SCALE.get(op)
    if scale is not None:  # (input,) scale, tensors...
        if len(args) == n + 2 and _number(args[1]) and all(isinstance(t, Tensor) for t in args[2:]):
            return (args[0], *args[2:]), {scale: args[1]}, [f"Number {scale}"]
        return None
    # beta [, alpha]: the function takes beta before input, the method after self
    if len(args) not in (n + 2, n + 3):
        return None
    if method:
        self, beta, rest = args[0], args[1], args[2:]
    else:
        beta, self, rest = args[0], args[1], args[2:]
    if not _number(beta) or not isinstance(self, Tensor):
        return None
    scales, old = {"beta": beta}, ["Number beta"]
    if len(rest) == n + 1:
        if not _number(rest[0]):
            return None
        scales["alpha"], rest = rest[0], rest[1:]
        old.append("Number alpha")
    if not all(isinstance(t, Tensor) for t in rest):
        return None
    return (self, *rest), scales, old


def _warn(name: str, op: str, method: bool, old: list) -> None:
    if not warn_once.first_time(_SITE):
        return
    tensors = [f"Tensor {t}" for t in _TENSORS[op]]
    keywords = [f"Number {k} = 1" for k in ((_SCALE[op],) if op in _SCALE else ("beta", "alpha"))]
    if method:
        used, instead = old + tensors, [", ".join(tensors) + ", *, " + ", ".join(keywords)]
    else:
        out = "*, Tensor out = None"
        if op in _SCALE:
            used = ["Tensor input", *old, *tensors, out]
        else:
            used = [old[0], "Tensor input", *old[1:], *tensors, out]
        modern = ["Tensor input", *tensors]
        instead = [", ".join(modern) + ", *, " + ", ".join(keywords) + ", Tensor out = None"]
        if op in _OUT_DTYPE:
            instead.append(", ".join(modern) + ", torch.dtype out_dtype, *, " + ", ".join(keywords) +
                           ", Tensor out = None")
    listing = "\n\t".join(f"{name}({s})" for s in instead)
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({', '.join(used)})\nConsider using one of "
                  f"the following signatures instead:\n\t{listing}{_TRIGGERED}", UserWarning,
                  stacklevel=program_stacklevel())


def accepting(name: str, fn, method: bool):
    """``fn`` (the method or torch function ``name``: ``add``, ``add_``, ``addmm``...) also taking
    PyTorch's deprecated form, after PyTorch's one warning. Its signature stays ``fn``'s."""
    op = name.rstrip("_")
    n = len(_TENSORS[op]) + 2

    tensors = _TENSORS[op]
    # a call that is neither form fails inside fn, whose name Python's TypeError then shows
    fn.__qualname__ = ("Tensor." if method else "") + name

    @functools.wraps(fn)
    def call(*args, **kwargs):
        given, rest = args, kwargs
        if kwargs and n - len(tensors) <= len(args) < n and all(t in kwargs for t in tensors[len(args) - n:]):
            # torch.add(x, 2, other=y): the old form with its tensors named
            rest = dict(kwargs)
            given = (*args, *(rest.pop(t) for t in tensors[len(args) - n:]))
        if len(given) >= n:
            found = _match(op, method, given)
            if found is not None and not found[1].keys() & rest.keys():  # not both spellings of a scale
                modern, scales, old = found
                _warn(name, op, method, old)
                return fn(*modern, **scales, **rest)
        return fn(*args, **kwargs)

    # the signature says what it takes: fn's parameters, and more positional ones (the old form)
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if not any(p.kind is _P.VAR_POSITIONAL for p in params):
        at = next((i for i, p in enumerate(params) if p.kind in (_P.KEYWORD_ONLY, _P.VAR_KEYWORD)), len(params))
        params.insert(at, _P("deprecated", _P.VAR_POSITIONAL))
    call.__signature__ = sig.replace(parameters=params)
    return call
