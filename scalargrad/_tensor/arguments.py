"""PyTorch's argument parser's checks of the operands of an op, in one place: the refusal of a
non-tensor where a tensor is expected (``add(): argument 'other' (position 1) must be Tensor,
not str``), and what counts as an operand."""

from __future__ import annotations

import inspect

from .._base.numpy_types import number, numpy_type_name
from .tensor import Tensor, refuse_complex

__all__ = ["not_tensor", "is_operand", "arg_type", "check_input", "check_other", "sizes_by_keyword"]


def not_tensor(x, fn: str, arg: str = "input", pos: int | None = 1) -> TypeError:
    """The TypeError for ``x`` given as ``fn``'s argument ``arg`` (at ``pos``; None for a
    keyword-only argument, which PyTorch names without a position)."""
    where = f" (position {pos})" if pos is not None else ""
    return TypeError(f"{fn}(): argument '{arg}'{where} must be Tensor, not {numpy_type_name(x)}")


def is_operand(x) -> bool:
    """A tensor or a Python number (what an elementwise op takes)."""
    return isinstance(x, Tensor) or x.__class__ in (float, int, bool)


def arg_type(x) -> str:
    """An argument's type as PyTorch's parser names it in "got (...)"."""
    return "Tensor" if isinstance(x, Tensor) else numpy_type_name(x)


def check_input(name: str, x) -> None:
    """``x``, the ``input`` of torch function ``name``, must be a (real) tensor."""
    refuse_complex(x)
    if not isinstance(x, Tensor):
        raise not_tensor(x, name, 'input', 1)


def check_other(name: str, x, pos: int, tensor_only: bool = False, param: str = "other"):
    """``x``, the second operand of ``name`` at ``pos`` (PyTorch's parameter ``param``), must be
    a tensor or a Python number (a tensor alone for ``tensor_only``); returns it, a NumPy scalar
    as the Python number PyTorch's parser reads (a complex number where only a tensor binds is
    the parser's TypeError, not a complex operand)."""
    if not (tensor_only and x.__class__ is complex):
        refuse_complex(x)
    if tensor_only and not isinstance(x, Tensor) or not is_operand(x):
        n = None if tensor_only else number(x)
        if n is None:
            raise not_tensor(x, name, param, pos)
        return n
    return x


_P = inspect.Parameter


def sizes_by_keyword(fn, what: str, *keywords: str, flags: tuple = ()):
    """``fn(self, *sizes)`` (``x.view(3, 2)``) that also takes its sizes under one of PyTorch's
    keywords, ``x.view(size=(3, 2))``, ``x.permute(dims=(1, 0))``: given so, they are the one
    positional argument; given both ways, PyTorch's parser's TypeError. ``flags`` are keywords
    passed on to ``fn`` as they are."""
    def call(self, *sizes, **named):
        passed = {k: named.pop(k) for k in flags if k in named}
        if named:
            for k in named:
                if k not in keywords:
                    raise TypeError(f"{what}() got an unexpected keyword argument '{k}'")
            if sizes or len(named) > 1:
                raise TypeError(f"{what}() got multiple values for argument '{next(iter(named))}'")
            (k, sizes), = named.items()
            if k != "dtype" and not isinstance(sizes, (tuple, list)):  # x.view(size=6): not a tuple of ints
                raise TypeError(f"{what}(): argument '{k}' must be tuple of ints, not {type(sizes).__name__}")
            sizes = (sizes,)
        return fn(self, *sizes, **passed)

    call.__signature__ = inspect.Signature(
        [_P("self", _P.POSITIONAL_ONLY), _P("sizes", _P.VAR_POSITIONAL)] +
        [_P(k, _P.KEYWORD_ONLY, default=None) for k in keywords + flags])
    call.__name__ = call.__qualname__ = what
    call.__doc__ = fn.__doc__
    return call
